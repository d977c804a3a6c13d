"""``paddle.text.viterbi_decode`` and its Layer form ``ViterbiDecoder``."""
from .. import ops as _ops
from ..framework.tensor import Tensor
from ..nn import Layer


def _require(value, what):
    if not isinstance(value, Tensor):
        raise TypeError(f"viterbi_decode: {what} must be a Tensor, got {type(value).__name__}")


def viterbi_decode(potentials, transition_params, lengths, include_bos_eos_tag=True, name=None):
    """(scores [B], path [B, max(lengths)] int64) of the best tag sequences; see the viterbi_decode op."""
    _require(potentials, "potentials")
    _require(transition_params, "transition_params")
    _require(lengths, "lengths")
    return _ops.viterbi_decode(potentials, transition_params, lengths, include_bos_eos_tag=include_bos_eos_tag)


class ViterbiDecoder(Layer):
    """viterbi_decode with the transition matrix held by the layer."""

    def __init__(self, transitions, include_bos_eos_tag=True, name=None):
        super().__init__()
        self.transitions = transitions
        self.include_bos_eos_tag = include_bos_eos_tag
        self.name = name

    def forward(self, potentials, lengths):
        return viterbi_decode(potentials, self.transitions, lengths, self.include_bos_eos_tag, self.name)

"""fluid.LoDTensor / LoDTensorArray / create_lod_tensor: the dense parts. A level of detail (sequence lengths)
is refused until LoD support lands, rather than silently dropped."""
import numpy as np

from ..framework.tensor import Tensor as _EagerTensor
from ..static.scope import LoDTensor, torch_value

__all__ = ["create_lod_tensor", "create_random_int_lodtensor", "LoDTensor", "LoDTensorArray"]

_LOD_MESSAGE = "a level of detail (sequence lengths) comes with LoD support, which torchpaddle does not have yet"


def _refuse_lod(who, recursive_seq_lens):
    if recursive_seq_lens is None:
        raise TypeError(f"{who}: recursive_seq_lens must be a list of lists of ints, got None")
    if any(len(level) for level in recursive_seq_lens):
        raise NotImplementedError(f"{who}: {_LOD_MESSAGE}; pass recursive_seq_lens=[] for a dense tensor")


class LoDTensorArray(list):
    """A list of LoDTensors (Paddle 1.x's ``LoDTensorArray``: append, indexing, len)."""

    def append(self, tensor):
        if not isinstance(tensor, LoDTensor):
            raise TypeError(f"LoDTensorArray.append: expected a LoDTensor, got {type(tensor).__name__}")
        super().append(tensor)

    def _move_to_list(self):
        return list(self)


def create_lod_tensor(data, recursive_seq_lens, place):
    """A LoDTensor holding ``data`` (an ndarray, a LoDTensor or a Tensor) on ``place``; only
    ``recursive_seq_lens=[]`` (no level of detail) is supported yet."""
    _refuse_lod("create_lod_tensor", recursive_seq_lens)
    if isinstance(data, list):
        raise NotImplementedError(f"create_lod_tensor: a list of sequences is {_LOD_MESSAGE}")
    if isinstance(data, (LoDTensor, _EagerTensor)):
        data = np.array(torch_value(data).cpu().numpy())
    elif not isinstance(data, np.ndarray):
        raise TypeError(f"create_lod_tensor: data must be a numpy.ndarray, list or LoDTensor, got "
                        f"{type(data).__name__}")
    tensor = LoDTensor()
    tensor.set(data, place)
    return tensor


def create_random_int_lodtensor(recursive_seq_lens, base_shape, place, low, high):
    """Random int64 values in [low, high]; only ``recursive_seq_lens=[]`` is supported yet (then the shape is
    ``base_shape``)."""
    _refuse_lod("create_random_int_lodtensor", recursive_seq_lens)
    data = np.random.randint(low, high + 1, list(base_shape)).astype("int64")
    return create_lod_tensor(data, [], place)

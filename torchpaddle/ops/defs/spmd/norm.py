"""SPMD rule of layer_norm (Paddle's LayerNormInferSpmd / LayerNormInferSpmdReverse).

The dims before begin_norm_axis keep their sharding (Mean and Variance take it), the normalized dims and Scale and
Bias are replicated.
"""
from ...registry import spmd_rule
from ._common import dims_for, merge, new_attr

_ALPHABET = "ijklmnopqrstuvwxyz"


def _notation(x, attrs):
    begin = attrs.get("begin_norm_axis", 1)
    rank = len(x.shape)
    if not 0 <= begin <= rank:
        raise ValueError(f"layer_norm spmd rule: begin_norm_axis {begin} is out of range for X of rank {rank}")
    x_axes = _ALPHABET[:begin] + "1" * (rank - begin)
    return begin, x_axes, _ALPHABET[:begin]


def _params(inputs):
    return [None if s is None else new_attr(s, [-1] * len(s.shape)) for s in inputs[1:3]]


def _forward(inputs, attrs):
    x = inputs[0]
    begin, x_axes, stat_axes = _notation(x, attrs)
    dims = list(x.dims_mapping[:begin]) + [-1] * (len(x.shape) - begin)
    mapping = merge([(x_axes, dims)])
    stat = dims_for(stat_axes, mapping)
    return [[new_attr(x, dims)] + _params(inputs),
            [new_attr(x, dims_for(x_axes, mapping)), new_attr(x, stat), new_attr(x, stat)]]


def _backward(inputs, outputs, attrs):
    x = inputs[0]
    begin, x_axes, stat_axes = _notation(x, attrs)
    pairs = [(axes, s.dims_mapping) for axes, s in zip((x_axes, stat_axes, stat_axes), outputs) if s is not None]
    mapping = merge(pairs)
    outs = [None if s is None else new_attr(s, dims_for(axes, mapping))
            for axes, s in zip((x_axes, stat_axes, stat_axes), outputs)]
    return [[new_attr(x, dims_for(x_axes, mapping))] + _params(inputs), outs]


spmd_rule("layer_norm", backward=_backward)(_forward)

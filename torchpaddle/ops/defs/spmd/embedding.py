"""SPMD rules of embedding lookups (Paddle's EmbeddingInferSpmd / EmbeddingInferSpmdReverse; c_embedding the same
with its slots swapped).

Out = Ids' dims + the table's hidden dim. A table sharded on its rows (vocab parallel) leaves Out partial (sum)
over that mesh dim; Ids and the table may not share a mesh dim (RuntimeError, as Paddle's PreconditionNotMet).
"""
from ...registry import spmd_rule
from ._common import ALPHABET, dims_for, merge, new_attr

_ALPHABET = "abcdefghilmnopqrstuvwxyz"   # j, k name the table's rows and columns


def _lookup(ids, weight, padding_idx):
    if len(weight.shape) != 2:
        raise ValueError(f"embedding spmd rule: the table must be 2-D, got shape {weight.shape}")
    row = weight.dims_mapping[0]
    if padding_idx not in (-1, None) and row > -1:
        raise ValueError(f"embedding spmd rule: a table sharded on its rows (mesh dim {row}) does not support "
                         f"padding_idx={padding_idx}")
    x_axes = _ALPHABET[:len(ids.shape)]
    mapping = merge([(x_axes, ids.dims_mapping), ("jk", weight.dims_mapping)], merge_conflicts=False)
    out = new_attr(ids, dims_for(x_axes + "k", mapping), [row] if row > -1 else ())
    return new_attr(ids, dims_for(x_axes, mapping)), new_attr(weight, dims_for("jk", mapping)), out


def _reverse(ids, weight, out):
    if len(ids.shape) != len(out.shape) - 1:
        raise ValueError(f"embedding spmd rule: Out must have rank {len(ids.shape) + 1}, got {len(out.shape)}")
    x_axes = _ALPHABET[:len(ids.shape)]
    mapping = merge([(x_axes + "k", out.dims_mapping)], merge_conflicts=False)
    return new_attr(ids, dims_for(x_axes, mapping)), new_attr(weight, dims_for("jk", mapping)), out.dist_attr._copy()


def _forward(inputs, attrs):           # lookup_table_v2: Ids, W
    ids, weight, out = _lookup(inputs[0], inputs[1], attrs.get("padding_idx", -1))
    return [[ids, weight], [out]]


def _backward(inputs, outputs, attrs):
    ids, weight, out = _reverse(inputs[0], inputs[1], outputs[0])
    return [[ids, weight], [out]]


def _c_forward(inputs, attrs):         # c_embedding: W, Ids
    ids, weight, out = _lookup(inputs[1], inputs[0], -1)
    return [[weight, ids], [out]]


def _c_backward(inputs, outputs, attrs):
    ids, weight, out = _reverse(inputs[1], inputs[0], outputs[0])
    return [[weight, ids], [out]]


spmd_rule("embedding", backward=_backward)(_forward)
spmd_rule("c_embedding", backward=_c_backward)(_c_forward)

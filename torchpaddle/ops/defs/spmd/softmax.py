"""SPMD rules of softmax / log_softmax and softmax_with_cross_entropy (Paddle's SoftmaxInferSpmd and
CrossEntropyWithSoftmaxInferSpmdStatic, the variant Paddle's static rule registry holds).

softmax replicates the normalized axis and keeps the other dims. Cross entropy names the class axis k: the
logits may stay sharded on it (a vocab-parallel loss) only for hard labels on the last axis with use_softmax;
the loss and a hard label take the logits' layout with the class axis replicated.
"""
from ...registry import spmd_rule
from ._common import ALPHABET, dims_for, merge, new_attr, norm_axis


def _softmax_forward(inputs, attrs):
    x = inputs[0]
    axis = norm_axis(attrs.get("axis", -1), len(x.shape), "softmax spmd rule")
    dims = list(x.dims_mapping)
    if dims:
        dims[axis] = -1
    mapping = merge([(ALPHABET[:len(dims)], dims)], merge_conflicts=False)
    return [[new_attr(x, dims)], [new_attr(x, dims_for(ALPHABET[:len(dims)], mapping))]]


def _softmax_backward(inputs, outputs, attrs):
    x, out = inputs[0], outputs[0]
    axis = norm_axis(attrs.get("axis", -1), len(x.shape), "softmax spmd rule")
    dims = list(out.dims_mapping)
    if dims:
        dims[axis] = -1
    mapping = merge([(ALPHABET[:len(dims)], dims)])
    return [[new_attr(x, dims_for(ALPHABET[:len(x.shape)], mapping))], [new_attr(out, dims)]]


spmd_rule("softmax", backward=_softmax_backward)(_softmax_forward)

_CE_ALPHABET = "abcdefghijlmnopqrstuvwxyz"   # k names the class axis


def _ce_notation(rank, axis, soft_label, use_softmax):
    x_src = list(_CE_ALPHABET[:rank])
    x_src[axis] = "k"
    x_src = "".join(x_src)
    label = x_src if soft_label else x_src[:axis] + "1" + x_src[axis + 1:]
    loss = x_src[:axis] + "1" + x_src[axis + 1:]
    return x_src, label, loss, (x_src if use_softmax else "")


def _ce_attrs(x, attrs):
    axis = norm_axis(attrs.get("axis", -1), len(x.shape), "softmax_with_cross_entropy spmd rule")
    return axis, bool(attrs.get("soft_label", False)), bool(attrs.get("use_softmax", True))


def _ce_forward(inputs, attrs):
    x, label = inputs[0], inputs[1]
    axis, soft_label, use_softmax = _ce_attrs(x, attrs)
    if x.dims_mapping[axis] > -1:
        if soft_label:
            raise ValueError("softmax_with_cross_entropy spmd rule: the class axis of Logits is sharded, which "
                             "soft_label=True does not support")
        if axis != len(x.shape) - 1:
            raise ValueError(f"softmax_with_cross_entropy spmd rule: the class axis of Logits is sharded, which "
                             f"needs it to be the last axis, got axis={axis}")
        if not use_softmax:
            raise ValueError("softmax_with_cross_entropy spmd rule: the class axis of Logits is sharded, which "
                             "needs use_softmax=True")
    x_axes, label_axes, loss_axes, softmax_axes = _ce_notation(len(x.shape), axis, soft_label, use_softmax)
    mapping = merge([(x_axes, x.dims_mapping), (label_axes, label.dims_mapping)])
    return [[new_attr(x, dims_for(x_axes, mapping)), new_attr(label, dims_for(label_axes, mapping))],
            [new_attr(x, dims_for(softmax_axes, mapping)), new_attr(label, dims_for(loss_axes, mapping))]]


def _ce_backward(inputs, outputs, attrs):
    x, label = inputs[0], inputs[1]
    softmax, loss = outputs[0], outputs[1]
    axis, soft_label, use_softmax = _ce_attrs(x, attrs)
    x_axes, label_axes, loss_axes, softmax_axes = _ce_notation(len(x.shape), axis, soft_label, use_softmax)
    mapping = merge([(loss_axes, loss.dims_mapping), (softmax_axes, softmax.dims_mapping)])
    x_dims, label_dims = dims_for(x_axes, mapping), dims_for(label_axes, mapping)
    softmax_dims, loss_dims = dims_for(softmax_axes, mapping), dims_for(loss_axes, mapping)
    if x_dims[axis] > -1:
        if not use_softmax:
            x_dims[axis] = -1
        elif axis != len(x.shape) - 1 or soft_label:
            x_dims[axis] = softmax_dims[axis] = label_dims[axis] = -1
    return [[new_attr(x, x_dims), new_attr(label, label_dims)],
            [new_attr(softmax, softmax_dims), new_attr(loss, loss_dims)]]


spmd_rule("cross_entropy_with_softmax", backward=_ce_backward)(_ce_forward)

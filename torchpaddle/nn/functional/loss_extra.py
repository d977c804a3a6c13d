"""Margin, likelihood and adaptive-softmax losses that Paddle 3.3.1 composes in Python (soft/hinge/
cosine/triplet/multi-margin losses, poisson and gaussian NLL). They are built from the public tensor functions
so a static program holds the same ops as Paddle's."""
import math

from ... import tensor as _pt
from ...framework.mode import in_static_mode
from .activation import _tensor, log_sigmoid, log_softmax, relu
from .common import linear, one_hot
from .distance import pairwise_distance

__all__ = ["soft_margin_loss", "hinge_embedding_loss", "cosine_embedding_loss",
           "triplet_margin_loss", "triplet_margin_with_distance_loss", "multi_margin_loss",
           "multi_label_soft_margin_loss", "multi_label_margin_loss", "poisson_nll_loss", "gaussian_nll_loss",
           "adaptive_log_softmax_with_loss"]

_FLOAT_NAMES = ("float32", "float64")


def _check_reduction(reduction, api):
    if reduction not in ("sum", "mean", "none"):
        raise ValueError(f"{api}(): reduction must be 'sum', 'mean' or 'none', got {reduction!r}")


def _reduce(loss, reduction):
    if reduction == "mean":
        return _pt.mean(loss)
    if reduction == "sum":
        return _pt.sum(loss)
    return loss


def _same_shape(api, names, *tensors):
    shapes = [list(t.shape) for t in tensors]
    if any(s != shapes[0] for s in shapes[1:]):
        raise ValueError(f"{api}(): {', '.join(names)} must have the same shape, got "
                         f"{', '.join(f'{n}{s}' for n, s in zip(names, shapes))}")


def _float_input(x, api, slot="input"):
    if x.dtype.name not in _FLOAT_NAMES:
        raise TypeError(f"{api}(): {slot} must be float32 or float64, got {x.dtype.name}")


def _check_margin(margin, api):
    if margin < 0:
        raise ValueError(f"{api}(): margin must be >= 0, got {margin}")


# -- margin losses --------------------------------------------------------------------------------------------
def soft_margin_loss(input, label, reduction="mean", name=None):
    _check_reduction(reduction, "soft_margin_loss")
    _tensor(input, "soft_margin_loss")
    _tensor(label, "soft_margin_loss")
    _same_shape("soft_margin_loss", ("input", "label"), input, label)
    label = _pt.cast(label, input.dtype)
    return _reduce(_pt.log(1 + _pt.exp(-label * input)), reduction)


def hinge_embedding_loss(input, label, margin=1.0, reduction="mean", name=None):
    _check_reduction(reduction, "hinge_embedding_loss")
    _tensor(input, "hinge_embedding_loss")
    _tensor(label, "hinge_embedding_loss")
    _float_input(input, "hinge_embedding_loss")
    _float_input(label, "hinge_embedding_loss", "label")
    # NOTE: Paddle's zero is a [1] tensor, so a 0-d input gives a [1]-shaped 'none' loss.
    zero = _pt.zeros([1], dtype=input.dtype)
    loss = _pt.where(label == 1.0, input, zero) + _pt.where(label == -1.0, relu(margin - input), zero)
    return _reduce(loss, reduction)


def cosine_embedding_loss(input1, input2, label, margin=0, reduction="mean", name=None):
    _check_reduction(reduction, "cosine_embedding_loss")
    for x in (input1, input2, label):
        _tensor(x, "cosine_embedding_loss")
    if len(label.shape) != 1:
        raise ValueError(f"cosine_embedding_loss(): label must be 1-D, got shape {list(label.shape)}")
    _same_shape("cosine_embedding_loss", ("input1", "input2"), input1, input2)
    if len(input1.shape) > 2:
        raise ValueError(f"cosine_embedding_loss(): inputs must be 1-D or 2-D, got shape {list(input1.shape)}")
    if input1.dtype.name not in _FLOAT_NAMES:
        raise ValueError(f"cosine_embedding_loss(): input1 must be float32 or float64, got {input1.dtype.name}")
    if label.dtype.name not in ("int32", "int64") + _FLOAT_NAMES:
        raise ValueError(f"cosine_embedding_loss(): label must be int32, int64, float32 or float64, got "
                         f"{label.dtype.name}")
    dot = _pt.sum(input1 * input2, axis=-1)
    norms = _pt.sqrt((_pt.sum(_pt.square(input1), axis=-1) + 1e-11) * (_pt.sum(_pt.square(input2), axis=-1) + 1e-11))
    cos = dot / norms
    zeros = _pt.zeros_like(cos)
    loss = _pt.where(label == 1, 1 - cos, zeros) + _pt.where(label == -1, _pt.clip(cos - margin, min=0), zeros)
    return _reduce(loss, reduction)


def _triplet(api, input, positive, negative, distance, margin, swap, reduction, check_sign):
    _check_reduction(reduction, api)
    _check_margin(margin, api)
    for x in (input, positive, negative):
        _tensor(x, api)
    _same_shape(api, ("input", "positive", "negative"), input, positive, negative)
    positive_dist = distance(input, positive)
    negative_dist = distance(input, negative)
    if swap:
        negative_dist = _pt.minimum(negative_dist, distance(positive, negative))
    if check_sign and not in_static_mode() and not (bool(_pt.all(positive_dist >= 0)) and bool(_pt.all(negative_dist >= 0))):
        raise ValueError(f"{api}(): distance_function returned a negative distance")
    return _reduce(_pt.clip(positive_dist - negative_dist + margin, min=0.0), reduction)


def triplet_margin_loss(input, positive, negative, margin=1.0, p=2, epsilon=1e-06, swap=False, reduction="mean",
                        name=None):
    def distance(x, y):
        return pairwise_distance(x, y, p, epsilon)
    return _triplet("triplet_margin_loss", input, positive, negative, distance, margin, swap, reduction, False)


def triplet_margin_with_distance_loss(input, positive, negative, distance_function=None, margin=1.0, swap=False,
                                      reduction="mean", name=None):
    distance = distance_function if distance_function is not None else pairwise_distance
    return _triplet("triplet_margin_with_distance_loss", input, positive, negative, distance, margin, swap,
                    reduction, True)


def multi_margin_loss(input, label, p=1, margin=1.0, weight=None, reduction="mean", name=None):
    _check_reduction(reduction, "multi_margin_loss")
    _tensor(input, "multi_margin_loss")
    _tensor(label, "multi_margin_loss")
    if len(input.shape) != 2:
        raise ValueError(f"multi_margin_loss(): input must be 2-D [N, C], got shape {list(input.shape)}")
    if len(label.shape) == 0 or input.shape[0] != label.shape[0]:
        raise ValueError(f"multi_margin_loss(): label{list(label.shape)} must hold one class per row of "
                         f"input{list(input.shape)}")
    label = _pt.reshape(label, [-1, 1])
    picked = _pt.index_sample(input, label)
    classes = input.shape[1]
    # The sum runs over every class, the label's own included; its term (margin ** p) is taken off again.
    hinge = _pt.pow(_pt.clip(margin - picked + input, min=0.0), p)
    if weight is None:
        return _reduce(_pt.mean(hinge, axis=1) - margin ** p / classes, reduction)
    _tensor(weight, "multi_margin_loss")
    if len(weight.shape) != 1 or weight.shape[0] != classes:
        raise ValueError(f"multi_margin_loss(): weight{list(weight.shape)} must have shape [{classes}]")
    weight = _pt.reshape(_pt.gather(weight, label, axis=0), [-1, 1])
    loss = _pt.mean(weight * hinge, axis=1) - _pt.squeeze(weight * (margin ** p / classes))
    return _reduce(loss, reduction)


def multi_label_soft_margin_loss(input, label, weight=None, reduction="mean", name=None):
    _check_reduction(reduction, "multi_label_soft_margin_loss")
    _tensor(input, "multi_label_soft_margin_loss")
    _tensor(label, "multi_label_soft_margin_loss")
    _same_shape("multi_label_soft_margin_loss", ("input", "label"), input, label)
    loss = -(label * log_sigmoid(input) + (1 - label) * log_sigmoid(-input))
    if weight is not None:
        loss = loss * weight
    return _reduce(_pt.mean(loss, axis=-1), reduction)


def multi_label_margin_loss(input, label, reduction="mean", name=None):
    """Rows of ``label`` list target classes up to the first -1."""
    _check_reduction(reduction, "multi_label_margin_loss")
    _tensor(input, "multi_label_margin_loss")
    _tensor(label, "multi_label_margin_loss")
    if len(input.shape) != 2 or len(label.shape) != 2:
        raise ValueError(f"multi_label_margin_loss(): input and label must be 2-D, got input{list(input.shape)} and "
                         f"label{list(label.shape)}")
    if label.dtype.name not in ("int32", "int64"):
        raise ValueError(f"multi_label_margin_loss(): label must be int32 or int64, got {label.dtype.name}")
    rows, classes = input.shape
    if label.shape[0] != rows:
        # NOTE: Paddle 3.3.1 accepts a label with a different row count and mixes rows up; we refuse it.
        raise ValueError(f"multi_label_margin_loss(): label{list(label.shape)} must have {rows} rows like "
                         f"input{list(input.shape)}")
    if label.size and not in_static_mode():   # value checks need values: eager only
        low, high = int(_pt.min(label)), int(_pt.max(label))
        if low < -1:
            raise ValueError(f"multi_label_margin_loss(): label values must be >= -1, got {low}")
        if high >= classes:
            raise ValueError(f"multi_label_margin_loss(): label values must be < {classes}, got {high}")
    valid = _pt.cumprod(_pt.cast(label != -1, input.dtype), dim=1)          # [N, L]: targets before the first -1
    targets = _pt.cast(label, "int64") * _pt.cast(valid, "int64")
    is_target = _pt.sum(one_hot(targets, classes) * _pt.unsqueeze(valid, -1), axis=1) > 0   # [N, C]
    target_score = _pt.take_along_axis(input, targets, 1)                   # [N, L]
    hinge = relu(1 - _pt.unsqueeze(target_score, -1) + _pt.unsqueeze(input, 1))   # [N, L, C]
    mask = _pt.unsqueeze(valid, -1) * _pt.unsqueeze(1 - _pt.cast(is_target, input.dtype), 1)
    return _reduce(_pt.sum(hinge * mask, axis=[1, 2]) / classes, reduction)


# -- likelihoods ----------------------------------------------------------------------------------------------
def poisson_nll_loss(input, label, log_input=True, full=False, epsilon=1e-08, reduction="mean", name=None):
    if epsilon <= 0:
        raise ValueError(f"poisson_nll_loss(): epsilon must be positive, got {epsilon}")
    _check_reduction(reduction, "poisson_nll_loss")
    _tensor(input, "poisson_nll_loss")
    _tensor(label, "poisson_nll_loss")
    _float_input(input, "poisson_nll_loss")
    _float_input(label, "poisson_nll_loss", "label")
    _same_shape("poisson_nll_loss", ("input", "label"), input, label)
    if log_input:
        loss = _pt.exp(input) - label * input
    else:
        loss = input - label * _pt.log(input + epsilon)
    if full:
        stirling = label * _pt.log(label) - label + 0.5 * _pt.log(2 * math.pi * label)
        loss = loss + _pt.where(label > 1, stirling, _pt.zeros_like(stirling))
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, label, variance, full=False, epsilon=1e-06, reduction="mean", name=None):
    """As in Paddle 3.3.1, no gradient flows to ``variance`` (Paddle clamps it under no_grad)."""
    for x in (input, label, variance):
        _tensor(x, "gaussian_nll_loss")
    in_shape, var_shape = list(input.shape), list(variance.shape)
    if var_shape != in_shape:
        if in_shape[:-1] == var_shape:
            variance = _pt.unsqueeze(variance, -1)
        elif not (in_shape[:-1] == var_shape[:-1] and var_shape[-1:] == [1]):
            raise ValueError(f"gaussian_nll_loss(): variance{var_shape} must have input's shape {in_shape}, or it "
                             f"without (or with 1 in) the last dimension")
    _check_reduction(reduction, "gaussian_nll_loss")
    for slot, x in (("input", input), ("label", label), ("variance", variance)):
        if x.dtype.name not in _FLOAT_NAMES:
            raise ValueError(f"gaussian_nll_loss(): {slot} must be float32 or float64, got {x.dtype.name}")
    if not in_static_mode() and bool(_pt.any(variance < 0)):
        raise ValueError("gaussian_nll_loss(): variance has negative entries")
    variance = _pt.clip(variance.detach(), min=epsilon)
    loss = 0.5 * (_pt.log(variance) + _pt.square(input - label) / variance)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


# -- adaptive softmax -----------------------------------------------------------------------------------------
def adaptive_log_softmax_with_loss(input, label, head_weight, tail_weights, cutoffs, head_bias=None, name=None):
    """Returns (per-row log-probability of the label, mean negative log-likelihood). ``cutoffs`` ends with
    n_classes; tail cluster i projects through tail_weights[i][0] then tail_weights[i][1]."""
    api = "adaptive_log_softmax_with_loss"
    _tensor(input, api)
    _tensor(label, api)
    label_dims, input_dims = len(label.shape), len(input.shape)
    if label_dims == 1:
        if input.shape[0] != label.shape[0] and label.shape[0] != 0:
            raise ValueError(f"{api}(): input{list(input.shape)} and label{list(label.shape)} must have the same "
                             f"batch size")
        if input_dims != 2:
            raise ValueError(f"{api}(): a 1-D label needs a 2-D input, got input{list(input.shape)}")
    elif label_dims == 0:
        if input_dims != 1:
            raise ValueError(f"{api}(): a 0-D label needs a 1-D input, got input{list(input.shape)}")
        input, label = _pt.unsqueeze(input, 0), _pt.unsqueeze(label, 0)
    else:
        raise ValueError(f"{api}(): label must be 0-D or 1-D, got label{list(label.shape)}")
    cutoffs = [int(c) for c in cutoffs]
    batch = label.shape[0]
    if label.size and not in_static_mode():   # value checks need values: eager only
        low, high = int(_pt.min(label)), int(_pt.max(label))
        if low < 0 or high >= cutoffs[-1]:
            raise ValueError(f"{api}(): label values must lie in [0, {cutoffs[-1] - 1}], got values in "
                             f"[{low}, {high}]")
    label = _pt.cast(label, "int64")
    head_index = label
    output = _pt.zeros([batch], dtype=input.dtype)
    for i in range(1, len(cutoffs)):
        low, high = cutoffs[i - 1], cutoffs[i]
        in_cluster = (label >= low) & (label < high)
        rows = _pt.reshape(_pt.nonzero(in_cluster), [-1])
        if rows.shape[0] == 0:
            continue
        # A tail row's head term is its cluster's slot; its own term comes from the cluster's softmax, computed
        # over that cluster's rows only.
        head_index = _pt.where(in_cluster, _pt.full_like(head_index, cutoffs[0] + i - 1), head_index)
        projected = linear(linear(_pt.index_select(input, rows, 0), tail_weights[i - 1][0]), tail_weights[i - 1][1])
        relative = _pt.unsqueeze(_pt.index_select(label, rows, 0) - low, 1)
        local = _pt.take_along_axis(log_softmax(projected, axis=1), relative, 1)
        output = output + _pt.scatter_nd(_pt.unsqueeze(rows, 1), _pt.reshape(local, [-1]), [batch])
    head_logprob = log_softmax(linear(input, head_weight, head_bias), axis=1)
    output = output + _pt.reshape(_pt.take_along_axis(head_logprob, _pt.unsqueeze(head_index, 1), 1), [-1])
    loss = _pt.mean(-output)
    return (output if label_dims else _pt.squeeze(output, 0)), loss

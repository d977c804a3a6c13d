"""Large-margin face-recognition heads: ``margin_cross_entropy`` (ArcFace / CosFace / SphereFace as one formula)
and ``class_center_sample`` (PartialFC's sampling of class centres), for one process: a model-parallel
``group`` spanning several ranks is not supported and says so."""

import torch

from ...framework.tensor import wrap
from ...tensor import creation, indexing, manipulation, math as _math, stat
from ...tensor.math import _not_tensor
from .activation import log_softmax, softmax

__all__ = ["margin_cross_entropy", "class_center_sample"]


def _single_process(group, api):
    nranks = getattr(group, "nranks", 1) if group not in (None, False) else 1
    if nranks > 1:
        raise NotImplementedError(f"{api}(): a model-parallel group of {nranks} ranks is not supported here; "
                                  "run it on one process (group=None)")


def margin_cross_entropy(logits, label, margin1=1.0, margin2=0.5, margin3=0.0, scale=64.0, group=None,
                         return_softmax=False, reduction="mean"):
    """``logits`` are cosines; the target class's becomes ``cos(margin1 * theta + margin2) - margin3``, all are
    multiplied by ``scale``, then softmax cross entropy. Paddle 3.3.1 runs this on GPU only."""
    _not_tensor(logits, "margin_cross_entropy", "logits")
    _not_tensor(label, "margin_cross_entropy", "label")
    _single_process(group, "margin_cross_entropy")
    if reduction not in ("mean", "sum", None, "none"):
        raise ValueError(f"margin_cross_entropy(): reduction must be 'mean', 'sum' or None, got {reduction!r}")
    if logits.ndim != 2:
        raise ValueError(f"margin_cross_entropy(): logits must be 2-D [N, num_classes], got {list(logits.shape)}")
    if label.ndim == 2 and label.shape[1] == 1:
        label = manipulation.squeeze(label, [1])
    if label.ndim != 1 or label.shape[0] != logits.shape[0]:
        raise ValueError(f"margin_cross_entropy(): label must be [N] or [N, 1] with N = {logits.shape[0]}, got "
                         f"{list(label.shape)}")
    classes = logits.shape[1]
    if label.size and (int(label.min()) < 0 or int(label.max()) >= classes):
        raise ValueError(f"margin_cross_entropy(): label values must lie in [0, {classes})")
    index = manipulation.unsqueeze(label.astype("int64"), [1])
    cos_t = indexing.take_along_axis(logits, index, 1)
    theta = _math.acos(_math.clip(cos_t, -1.0, 1.0))
    target = _math.subtract(_math.cos(_math.add(_math.scale(theta, margin1), creation.full_like(theta, margin2))),
                            creation.full_like(theta, margin3))
    adjusted = _math.scale(indexing.put_along_axis(logits, index, target, 1), float(scale))
    loss = _math.scale(indexing.take_along_axis(log_softmax(adjusted, axis=1), index, 1), -1.0)
    if reduction == "mean":
        loss = stat.mean(loss)
    elif reduction == "sum":
        loss = _math.sum(loss)
    return (loss, softmax(adjusted, axis=1)) if return_softmax else loss


def class_center_sample(label, num_classes, num_samples, group=None):
    """Keep every class centre the batch's labels use, add randomly chosen other centres up to ``num_samples``;
    returns (labels remapped to positions among the sampled centres, the sampled centres: positives sorted
    first)."""
    _not_tensor(label, "class_center_sample", "label")
    _single_process(group, "class_center_sample")
    if label.ndim != 1 or label.dtype.name not in ("int32", "int64"):
        raise ValueError(f"class_center_sample(): label must be a 1-D int32/int64 Tensor, got {label.dtype} "
                         f"{list(label.shape)}")
    if not 0 < num_samples <= num_classes:
        raise ValueError(f"class_center_sample(): num_samples must be in (0, num_classes={num_classes}], got "
                         f"{num_samples}")
    values = label._t.detach().cpu()
    if values.numel() and (int(values.min()) < 0 or int(values.max()) >= num_classes):
        raise ValueError(f"class_center_sample(): label values must lie in [0, {num_classes})")
    positives = torch.unique(values)
    rest = torch.ones(num_classes, dtype=torch.bool)
    rest[positives] = False
    others = torch.nonzero(rest).flatten()
    extra = max(num_samples - positives.numel(), 0)
    negatives = others[torch.randperm(others.numel())[:extra]]   # the global generator: paddle.seed applies
    sampled = torch.cat([positives, negatives]).to(values.dtype)
    remap = torch.full((num_classes,), -1, dtype=values.dtype)
    remap[sampled] = torch.arange(sampled.numel(), dtype=values.dtype)
    device = label._t.device
    return wrap(remap[values].to(device)), wrap(sampled.to(device))



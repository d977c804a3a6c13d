"""paddle.metric: streaming metrics (accumulated in NumPy on the host, as Paddle does) and ``accuracy``."""
import abc

import numpy as np

from .. import ops as _ops
from ..ops.registry import InputTypeError
from ..framework import dtype as _dtype
from ..framework.tensor import PaddleAssertionError, Tensor
from ..tensor import argmax, argsort, cast, reshape, slice as _slice, topk

__all__ = ["Metric", "Accuracy", "Precision", "Recall", "Auc", "accuracy"]


class Metric(metaclass=abc.ABCMeta):
    """Base class: ``compute`` (optional, on Tensors) -> ``update`` (host side) -> ``accumulate``; ``reset``."""

    def __init__(self):
        pass

    @abc.abstractmethod
    def reset(self):
        raise NotImplementedError(f"function 'reset' not implemented in {type(self).__name__}.")

    @abc.abstractmethod
    def update(self, *args):
        raise NotImplementedError(f"function 'update' not implemented in {type(self).__name__}.")

    @abc.abstractmethod
    def accumulate(self):
        raise NotImplementedError(f"function 'accumulate' not implemented in {type(self).__name__}.")

    @abc.abstractmethod
    def name(self):
        raise NotImplementedError(f"function 'name' not implemented in {type(self).__name__}.")

    def compute(self, *args):
        """Preprocess the network's outputs and labels into ``update``'s inputs; by default, as they are."""
        return args


def _host(value, metric, arg):
    if isinstance(value, Tensor):
        return value.numpy()
    if isinstance(value, (np.ndarray, np.generic)):
        return np.asarray(value)
    raise ValueError(f"{metric}.update: the '{arg}' must be a numpy ndarray or Tensor, got {type(value).__name__}")


def _per_sample(value, n, metric, arg):
    """One value per sample: shape [N] or [N, 1]."""
    if value.size != n:
        raise ValueError(f"{metric}.update: '{arg}' must hold one value per sample ({n}), got shape "
                         f"{list(value.shape)}")
    return value.reshape(n)


class Accuracy(Metric):
    """Top-k accuracy for each k in ``topk``; names are ``name`` or ``{name}_top{k}`` (default name 'acc')."""

    def __init__(self, topk=(1,), name=None, *args, **kwargs):
        super().__init__(*args, **kwargs)
        topk = tuple(topk) if isinstance(topk, (list, tuple)) else (topk,)
        if not topk or any(isinstance(k, bool) or not isinstance(k, int) or k < 1 for k in topk):
            raise ValueError(f"Accuracy: topk must be positive ints, got {topk!r}")
        self.topk = topk
        self.maxk = max(topk)
        name = name or "acc"
        self._name = [f"{name}_top{k}" for k in topk] if self.maxk != 1 else [name]
        self.reset()

    def compute(self, pred, label, *args):
        """[..., maxk] float32: whether each of the top-maxk predictions equals the label."""
        order = argsort(pred, descending=True)
        order = _slice(order, axes=[order.ndim - 1], starts=[0], ends=[self.maxk])
        if label.ndim == 1 or (label.ndim == 2 and label.shape[-1] == 1):
            label = reshape(label, (-1, 1))
        elif label.shape[-1] != 1:
            label = argmax(label, axis=-1, keepdim=True)   # one-hot or soft labels
        return cast(order == label.astype(order.dtype), "float32")

    def update(self, correct, *args):
        """Add a batch of ``compute``'s output; returns this batch's accuracy (a list when several k)."""
        correct = _host(correct, "Accuracy", "correct")
        num_samples = np.prod(np.array(correct.shape[:-1]))
        accs = []
        for i, k in enumerate(self.topk):
            num_corrects = correct[..., :k].sum()
            accs.append(float(num_corrects) / num_samples)
            self.total[i] += num_corrects
            self.count[i] += num_samples
        return accs[0] if len(self.topk) == 1 else accs

    def reset(self):
        self.total = [0.0] * len(self.topk)
        self.count = [0] * len(self.topk)

    def accumulate(self):
        out = [float(t) / c if c > 0 else 0.0 for t, c in zip(self.total, self.count)]
        return out[0] if len(self.topk) == 1 else out

    def name(self):
        return self._name


class Precision(Metric):
    """Binary precision tp / (tp + fp); a prediction is positive when it rounds (half up) to 1."""

    def __init__(self, name="precision", *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.tp = 0
        self.fp = 0
        self._name = name

    def update(self, preds, labels):
        preds = _host(preds, "Precision", "preds")
        labels = _host(labels, "Precision", "labels")
        n = labels.shape[0] if labels.ndim else 1
        preds = _per_sample(np.floor(preds + 0.5).astype("int32"), n, "Precision", "preds")
        labels = _per_sample(labels, n, "Precision", "labels")
        positive = preds == 1
        hit = preds == labels
        self.tp += int(np.sum(positive & hit))
        self.fp += int(np.sum(positive & ~hit))

    def reset(self):
        self.tp = 0
        self.fp = 0

    def accumulate(self):
        predicted = self.tp + self.fp
        return float(self.tp) / predicted if predicted != 0 else 0.0

    def name(self):
        return self._name


class Recall(Metric):
    """Binary recall tp / (tp + fn); predictions are rounded half to even (np.rint), as in Paddle."""

    def __init__(self, name="recall", *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.tp = 0
        self.fn = 0
        self._name = name

    def update(self, preds, labels):
        preds = _host(preds, "Recall", "preds")
        labels = _host(labels, "Recall", "labels")
        n = labels.shape[0] if labels.ndim else 1
        preds = _per_sample(np.rint(preds).astype("int32"), n, "Recall", "preds")
        labels = _per_sample(labels, n, "Recall", "labels")
        actual = labels == 1
        hit = preds == labels
        self.tp += int(np.sum(actual & hit))
        self.fn += int(np.sum(actual & ~hit))

    def accumulate(self):
        actual = self.tp + self.fn
        return float(self.tp) / actual if actual != 0 else 0.0

    def reset(self):
        self.tp = 0
        self.fn = 0

    def name(self):
        return self._name


class Auc(Metric):
    """Area under the ROC curve from ``num_thresholds + 1`` histogram buckets of the positive-class score
    ``preds[:, 1]``. As in Paddle, ``curve`` is recorded but the ROC area is computed for 'PR' too."""

    def __init__(self, curve="ROC", num_thresholds=4095, name="auc", *args, **kwargs):
        super().__init__(*args, **kwargs)
        if isinstance(num_thresholds, bool) or not isinstance(num_thresholds, int) or num_thresholds < 1:
            raise ValueError(f"Auc: num_thresholds must be a positive int, got {num_thresholds!r}")
        self._curve = curve
        self._num_thresholds = num_thresholds
        self._name = name
        self.reset()

    def update(self, preds, labels):
        labels = _host(labels, "Auc", "labels")
        preds = _host(preds, "Auc", "preds")
        if preds.ndim != 2 or preds.shape[1] < 2:
            raise ValueError(f"Auc.update: preds must have shape [N, 2] (class probabilities), got "
                             f"{list(preds.shape)}")
        n = labels.shape[0] if labels.ndim else 1
        if preds.shape[0] < n:
            raise ValueError(f"Auc.update: preds{list(preds.shape)} has fewer rows than labels{list(labels.shape)}")
        labels = _per_sample(labels, n, "Auc", "labels").astype(bool)
        bins = (preds[:n, 1] * self._num_thresholds).astype(np.int64)   # truncation, like int()
        if bins.size and (bins.min() < 0 or bins.max() > self._num_thresholds):
            raise PaddleAssertionError(f"Auc.update: preds[:, 1] must lie in [0, 1], got values in "
                                       f"[{preds[:n, 1].min()}, {preds[:n, 1].max()}]")
        np.add.at(self._stat_pos, bins[labels], 1.0)
        np.add.at(self._stat_neg, bins[~labels], 1.0)

    @staticmethod
    def trapezoid_area(x1, x2, y1, y2):
        return abs(x1 - x2) * (y1 + y2) / 2.0

    def accumulate(self):
        # Walk the buckets from the highest score down; cumsum adds in that same order, term by term.
        pos = np.cumsum(self._stat_pos[::-1])
        neg = np.cumsum(self._stat_neg[::-1])
        pos_prev = np.concatenate([[0.0], pos[:-1]])
        neg_prev = np.concatenate([[0.0], neg[:-1]])
        auc = np.cumsum(np.abs(neg - neg_prev) * (pos + pos_prev) / 2.0)[-1]
        tot_pos, tot_neg = pos[-1], neg[-1]
        return auc / tot_pos / tot_neg if tot_pos > 0.0 and tot_neg > 0.0 else 0.0

    def reset(self):
        self._stat_pos = np.zeros(self._num_thresholds + 1)
        self._stat_neg = np.zeros(self._num_thresholds + 1)

    def name(self):
        return self._name


def accuracy(input, label, k=1, correct=None, total=None, name=None):
    """Top-k accuracy of ``input`` [N, C] against ``label`` [N, 1] (int64 or int32), a 0-D float32 Tensor.

    ``correct``/``total``, when given, receive the counts (0-D int32), as Paddle writes them.
    """
    for value, arg in ((input, "input"), (label, "label")):
        if not isinstance(value, Tensor):
            raise InputTypeError(f"accuracy: {arg} must be a Tensor, got {type(value).__name__}")
    if label.dtype == _dtype.int32:
        label = cast(label, "int64")
    values, indices = topk(input, k=k)
    acc, num_correct, num_total = _ops.accuracy(values, indices, label)
    for target, value, arg in ((correct, num_correct, "correct"), (total, num_total, "total")):
        if target is not None:
            if not isinstance(target, Tensor):
                raise TypeError(f"accuracy: {arg} must be a Tensor or None, got {type(target).__name__}")
            target._t = value._t
    return acc

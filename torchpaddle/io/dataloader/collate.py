"""Collation: samples -> one batch, and the batch's journey from a worker to the user as Tensors.

A batch travels as torch tensors inside builtin lists/dicts (what torch's workers share through shared
memory); the main process wraps each torch tensor as a Tensor. Like Paddle, arrays and Tensors become
Tensors, tuples become lists, and strings, numbers and other objects are left as they are.
"""
import numbers
from collections.abc import Mapping, Sequence

import numpy as np
import torch

from ...framework.tensor import Tensor, wrap
from ...framework.convert import _from_numpy

__all__ = ["default_collate_fn", "default_convert_fn"]


def _shapes(items):
    return sorted({tuple(getattr(x, "shape", ())) for x in items})


def _stack_error(items):
    return ValueError(f"DataLoader default collate_fn: cannot stack samples of shapes {_shapes(items)} into one "
                      f"batch; make the samples the same shape or pass a collate_fn")


def _array_to_torch(array, copy):
    """A torch tensor holding ``array``, or None when torch cannot hold its dtype (strings, objects)."""
    try:
        return _from_numpy(array, copy=copy or not array.flags.c_contiguous or not array.flags.writeable)
    except TypeError:
        return None


def _collate(batch, as_torch):
    sample = batch[0]
    if isinstance(sample, np.ndarray):
        try:
            out = np.stack(batch, axis=0)
        except ValueError:
            raise _stack_error(batch) from None
        if as_torch:
            t = _array_to_torch(out, copy=False)
            return out if t is None else t
        return out
    if isinstance(sample, (Tensor, torch.Tensor)):
        try:
            out = torch.stack([(x._t if isinstance(x, Tensor) else x).detach() for x in batch], dim=0)
        except (RuntimeError, TypeError, AttributeError):
            raise _stack_error(batch) from None
        return out if as_torch else wrap(out)
    if isinstance(sample, (str, bytes)):
        return list(batch)
    if isinstance(sample, (numbers.Number, np.generic)):
        out = np.array(batch)
        return torch.from_numpy(out) if as_torch and out.dtype.kind in "biufc" else out
    if isinstance(sample, Mapping):
        return {key: _collate([d[key] for d in batch], as_torch) for key in sample}
    if isinstance(sample, Sequence):
        width = len(sample)
        if any(len(s) != width for s in batch):
            raise RuntimeError(f"DataLoader default collate_fn: fields number not same among samples in a batch: "
                               f"{sorted({len(s) for s in batch})}")
        return [_collate(list(fields), as_torch) for fields in zip(*batch)]
    raise TypeError(f"DataLoader default collate_fn: batch data can only contain Tensor, numpy.ndarray, dict, "
                    f"list, tuple, number or str, but got {type(sample)}")


def default_collate_fn(batch):
    """Paddle's default collate: arrays and numbers -> stacked numpy arrays, Tensors -> a stacked Tensor,
    strings -> a list, dicts/lists/tuples collated field by field (a tuple becomes a list)."""
    return _collate(batch, as_torch=False)


def default_convert_fn(batch):
    """Used when batch_size is None: containers become lists/dicts; the leaves are left as they are."""
    if isinstance(batch, (Tensor, torch.Tensor, np.ndarray, str, bytes)):
        return batch
    if isinstance(batch, Mapping):
        return {key: default_convert_fn(batch[key]) for key in batch}
    if isinstance(batch, Sequence):
        return [default_convert_fn(x) for x in batch]
    return batch


def to_transport(batch):
    """A collate function's output -> torch tensors in lists/dicts (arrays are copied, as Paddle copies)."""
    if isinstance(batch, Tensor):
        return batch._t.detach()
    if isinstance(batch, torch.Tensor):
        return batch.detach()
    if isinstance(batch, np.ndarray):
        t = _array_to_torch(batch, copy=True)
        return batch if t is None else t
    if isinstance(batch, (str, bytes, numbers.Number)):
        return batch
    if isinstance(batch, Mapping):
        return {key: to_transport(value) for key, value in batch.items()}
    if isinstance(batch, Sequence):
        return [to_transport(x) for x in batch]
    return batch


class WorkerCollate:
    """Runs in the worker (or in-process): collate, then hand over torch tensors."""
    __slots__ = ("collate_fn", "auto_collate")

    def __init__(self, collate_fn, auto_collate):
        self.collate_fn, self.auto_collate = collate_fn, auto_collate

    def __call__(self, data):
        if self.collate_fn is None:
            return _collate(data, as_torch=True) if self.auto_collate else to_transport(data)
        return to_transport(self.collate_fn(data))


def to_paddle(batch, device=None):
    """The main process's side: torch tensors -> Tensors (on ``device`` when given)."""
    if isinstance(batch, torch.Tensor):
        if device is not None and batch.device != device:
            batch = batch.to(device)
        return wrap(batch)
    if isinstance(batch, list):
        return [to_paddle(x, device) for x in batch]
    if isinstance(batch, dict):
        return {key: to_paddle(value, device) for key, value in batch.items()}
    return batch


def flat_tensors(batch, out):
    """The Tensors of a batch in Paddle's slot order (depth first)."""
    if isinstance(batch, Tensor):
        out.append(batch)
    elif isinstance(batch, list):
        for x in batch:
            flat_tensors(x, out)
    elif isinstance(batch, dict):
        for x in batch.values():
            flat_tensors(x, out)
    return out

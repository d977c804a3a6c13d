"""Datasets: the map-style and iterable bases, and the combinators (tensor, compose, chain, concat, subset)."""
import bisect
import math
import numbers
import warnings
from typing import Generic, TypeVar

import torch

from ...framework.mode import in_dynamic_mode
from ...framework.tensor import PaddleAssertionError, Tensor

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "ComposeDataset", "ChainDataset", "Subset",
           "random_split", "ConcatDataset"]

_T = TypeVar("_T")


class Dataset(Generic[_T]):
    """A map-style dataset: subclasses define ``__getitem__`` and ``__len__``."""

    def __init__(self):
        pass

    def __getitem__(self, idx):
        raise NotImplementedError(f"'__getitem__' not implement in class {type(self).__name__}")

    def __len__(self):
        raise NotImplementedError(f"'__len__' not implement in class {type(self).__name__}")


class IterableDataset(Dataset[_T]):
    """A stream of samples: subclasses define ``__iter__``; it has neither indexing nor a length."""

    def __init__(self):
        pass

    def __iter__(self):
        raise NotImplementedError(f"'__iter__' not implement in class {type(self).__name__}")

    def __getitem__(self, idx):
        raise RuntimeError(f"'__getitem__' should not be called for IterableDataset {type(self).__name__}")

    def __len__(self):
        raise RuntimeError(f"'__len__' should not be called for IterableDataset {type(self).__name__}")


def _check(cond, message):
    # Paddle asserts here; PaddleAssertionError is an AssertionError that is also a ValueError.
    if not cond:
        raise PaddleAssertionError(message)


class TensorDataset(Dataset):
    """Sample i is ``tuple(t[i] for t in tensors)``; every tensor must have the same first dimension."""

    def __init__(self, tensors):
        if not in_dynamic_mode():
            raise RuntimeError("TensorDataset can only be used in dynamic (imperative) mode")
        tensors = list(tensors)
        _check(len(tensors) > 0, "TensorDataset: tensors should not be empty")
        for i, t in enumerate(tensors):
            if not isinstance(t, Tensor):
                raise TypeError(f"TensorDataset: tensors[{i}] must be a Tensor, got {type(t).__name__}")
            if t.ndim == 0:
                raise ValueError(f"TensorDataset: tensors[{i}] is 0-D; every tensor needs a first (sample) "
                                 f"dimension")
        _check(all(t.shape[0] == tensors[0].shape[0] for t in tensors),
               f"TensorDataset: tensors not have same shape of the 1st dimension: "
               f"{[list(t.shape) for t in tensors]}")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].shape[0]


def _as_list(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


class ComposeDataset(Dataset):
    """Sample i joins the fields of sample i of each dataset into one tuple; lengths must agree."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        _check(len(self.datasets) > 0, "ComposeDataset: input datasets should not be empty")
        for i, d in enumerate(self.datasets):
            _check(isinstance(d, Dataset), f"ComposeDataset: datasets[{i}] should be paddle.io.Dataset, "
                                           f"got {type(d).__name__}")
            _check(not isinstance(d, IterableDataset), "ComposeDataset: paddle.io.IterableDataset not supported")
            if i:
                _check(len(d) == len(self.datasets[i - 1]),
                       f"ComposeDataset: lengths of datasets should be same, got "
                       f"{[len(x) for x in self.datasets]}")

    def __len__(self):
        return len(self.datasets[0])

    def __getitem__(self, idx):
        sample = []
        for d in self.datasets:
            sample.extend(_as_list(d[idx]))
        return tuple(sample)


class ChainDataset(IterableDataset):
    """Iterates the iterable datasets one after another."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        _check(len(self.datasets) > 0, "ChainDataset: input datasets should not be empty")
        for i, d in enumerate(self.datasets):
            _check(isinstance(d, IterableDataset),
                   f"ChainDataset only support paddle.io.IterableDataset, datasets[{i}] is {type(d).__name__}")

    def __iter__(self):
        for d in self.datasets:
            yield from d


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        return self.dataset[self.indices[idx]]

    def __len__(self):
        return len(self.indices)


def _torch_generator(generator):
    """Our Generator, a torch.Generator, or None (Paddle's default generator)."""
    if generator is None:
        return None
    if isinstance(generator, torch.Generator):
        return generator
    inner = getattr(generator, "_torch", None)
    if isinstance(inner, torch.Generator):
        return inner
    raise TypeError(f"random_split: generator must be a paddle.Generator or None, got {type(generator).__name__}")


def random_split(dataset, lengths, generator=None):
    """Split into non-overlapping random Subsets of the given lengths (or fractions summing to 1).

    The permutation comes from Paddle's default generator (``paddle.seed``); unlike Paddle, which ignores
    ``generator``, a ``paddle.Generator`` passed here is used.
    """
    lengths = list(lengths)
    for i, n in enumerate(lengths):
        if isinstance(n, bool) or not isinstance(n, numbers.Real):
            raise TypeError(f"random_split: lengths[{i}] must be an int or a fraction, got {type(n).__name__}")
    total = len(dataset)
    if lengths and math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        counts = []
        for i, frac in enumerate(lengths):
            if not 0 <= frac <= 1:
                raise ValueError(f"random_split: fraction at index {i} is not between 0 and 1: {frac}")
            counts.append(int(math.floor(total * frac)))
        for i in range(total - sum(counts)):
            counts[i % len(counts)] += 1
        for i, n in enumerate(counts):
            if n == 0:
                warnings.warn(f"random_split: length of split at index {i} is 0; it will be an empty dataset")
        lengths = counts
    for i, n in enumerate(lengths):
        if n != int(n) or n < 0:
            raise ValueError(f"random_split: lengths[{i}] must be a non-negative int, got {n}")
    lengths = [int(n) for n in lengths]
    if sum(lengths) != total:
        raise ValueError(f"random_split: sum of input lengths {sum(lengths)} does not equal the length of the "
                         f"input dataset ({total})")
    gen = _torch_generator(generator)
    order = torch.randperm(total, generator=gen, device=None if gen is None else gen.device).tolist()
    out, offset = [], 0
    for n in lengths:
        out.append(Subset(dataset, order[offset:offset + n]))
        offset += n
    return out


class ConcatDataset(Dataset):
    """The samples of each dataset in turn."""

    @staticmethod
    def cumsum(sequence):
        out, total = [], 0
        for d in sequence:
            total += len(d)
            out.append(total)
        return out

    def __init__(self, datasets):
        self.datasets = list(datasets)
        _check(len(self.datasets) > 0, "ConcatDataset: datasets should not be an empty iterable")
        for d in self.datasets:
            _check(not isinstance(d, IterableDataset), "ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        n = len(self)
        if idx < 0:
            if -idx > n:
                raise ValueError(f"ConcatDataset: absolute value of index {idx} should not exceed dataset length {n}")
            idx += n
        if idx >= n:
            raise IndexError(f"ConcatDataset: index {idx} is out of range for length {n}")
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][idx - start]

"""Index samplers. Like Paddle, the random ones draw from NumPy's global generator (``np.random.seed``
repeats Paddle's order exactly), except SubsetRandomSampler, which uses ``paddle.randperm``."""
from typing import Generic, TypeVar

import numpy as np
import torch

from ...framework.tensor import PaddleAssertionError, Tensor

__all__ = ["Sampler", "SequenceSampler", "RandomSampler", "WeightedRandomSampler", "SubsetRandomSampler"]

_T = TypeVar("_T")


class Sampler(Generic[_T]):
    """Base class: iterating yields dataset indices (or, for batch samplers, lists of them)."""

    def __init__(self, data_source=None):
        self.data_source = data_source

    def __iter__(self):
        raise NotImplementedError


class SequenceSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """Random indices, with or without replacement; ``generator`` is an iterator of indices to use instead."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(replacement, bool):
            raise TypeError(f"RandomSampler: expect boolean value for replacement, but got "
                            f"replacement={replacement!r}")
        n = self.num_samples
        if isinstance(n, bool) or not isinstance(n, int) or n <= 0:
            raise ValueError(f"RandomSampler: num_samples should be a positive integer, but got num_samples={n!r}")
        if not replacement and n > len(data_source):
            raise ValueError(f"RandomSampler: num_samples should be smaller than or equal to length of data_source "
                             f"when replacement is False, but got num_samples: {n} > data_source: "
                             f"{len(data_source)}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        if self.generator:
            for _ in range(self.num_samples):
                try:
                    yield next(self.generator)
                except StopIteration:
                    return
        else:
            yield from np.random.choice(np.arange(len(self.data_source)), self.num_samples,
                                        replace=self.replacement).tolist()

    def __len__(self):
        return self.num_samples


def _weights_array(weights):
    if isinstance(weights, Tensor):
        weights = weights.numpy()
    elif isinstance(weights, torch.Tensor):
        weights = weights.detach().cpu().numpy()
    # Keep the array's own dtype: Paddle normalises in it, and the draws depend on the exact probabilities.
    array = np.asarray(weights) if isinstance(weights, (np.ndarray, list, tuple)) else None
    if array is None or array.dtype.kind not in "iuf":
        raise TypeError(f"WeightedRandomSampler: weights should be a Tensor, numpy.ndarray, list or tuple of "
                        f"numbers, got {type(weights).__name__}")
    weights = array
    if weights.ndim not in (1, 2) or weights.shape[-1] == 0:
        raise ValueError(f"WeightedRandomSampler: weights should be a non-empty 1-D or 2-D array, "
                         f"got shape {list(weights.shape)}")
    return weights.reshape(-1, weights.shape[-1])


class WeightedRandomSampler(Sampler):
    """Indices drawn with probability proportional to ``weights`` (2-D weights: one draw per row, chained)."""

    def __init__(self, weights, num_samples, replacement=True):
        if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples <= 0:
            raise ValueError(f"WeightedRandomSampler: num_samples should be a positive integer, got {num_samples!r}")
        if not isinstance(replacement, bool):
            raise ValueError(f"WeightedRandomSampler: replacement should be a boolean value, got {replacement!r}")
        self.weights = weights
        self.num_samples = num_samples
        self.replacement = replacement
        rows = _weights_array(weights)
        if np.isnan(rows).any() or np.isinf(rows).any():
            raise PaddleAssertionError("WeightedRandomSampler: weights should not be NaN or INF")
        if (rows < 0).any():
            raise PaddleAssertionError("WeightedRandomSampler: weights should be positive value")
        positive = (rows > 0).sum(axis=1)
        if (positive == 0).any():
            raise PaddleAssertionError("WeightedRandomSampler: weights should have positive values")
        if not replacement and (positive < num_samples).any():
            raise PaddleAssertionError(f"WeightedRandomSampler: weights positive value number should not be less "
                                       f"than num_samples={num_samples} when replacement=False")
        self._rows = rows / rows.sum(axis=1, keepdims=True)

    def __iter__(self):
        draws = [np.random.choice(row.shape[0], self.num_samples, self.replacement, row) for row in self._rows]
        return iter(np.array(draws).reshape(-1).tolist())

    def __len__(self):
        return self.num_samples * self._rows.shape[0]


class SubsetRandomSampler(Sampler):
    """The given indices in a random order (from Paddle's default generator)."""

    def __init__(self, indices):
        if len(indices) == 0:
            raise ValueError("The length of `indices` in SubsetRandomSampler should be greater than 0.")
        self.indices = indices

    def __iter__(self):
        for i in torch.randperm(len(self.indices)).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)

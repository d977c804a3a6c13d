"""Batch samplers: lists of indices per batch, for one process or one rank of a data-parallel job."""
import math
import os
from collections.abc import Iterable

import numpy as np

from ...framework.tensor import PaddleAssertionError
from .dataset import IterableDataset
from .sampler import RandomSampler, Sampler, SequenceSampler

__all__ = ["BatchSampler", "DistributedBatchSampler"]


def _check(cond, message):
    if not cond:
        raise PaddleAssertionError(message)


def _positive_int(value):
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _batches(indices, size, drop_last):
    batch = []
    for i in indices:
        batch.append(i)
        if len(batch) == size:
            yield batch
            batch = []
    if batch and not drop_last:
        yield batch


def _num_batches(num_samples, size, drop_last):
    return num_samples // size if drop_last else (num_samples + size - 1) // size


class BatchSampler(Sampler):
    """Groups the indices of ``sampler`` (or of a sequential/random sampler over ``dataset``) into batches."""

    def __init__(self, dataset=None, sampler=None, shuffle=False, batch_size=1, drop_last=False):
        if dataset is None:
            _check(sampler is not None, "BatchSampler: either dataset or sampler should be set")
            _check(isinstance(sampler, (Sampler, Iterable)),
                   f"BatchSampler: sampler should be either paddle.io.Sampler or Iterable, but got {type(sampler)}")
            _check(not shuffle, "BatchSampler: shuffle should be False when sampler is set")
            self.sampler = sampler
        else:
            _check(not isinstance(dataset, IterableDataset),
                   "BatchSampler: dataset should not be a paddle.io.IterableDataset")
            _check(sampler is None, "BatchSampler: should not set both dataset and sampler")
            _check(isinstance(shuffle, bool), f"BatchSampler: shuffle should be a boolean value, but got "
                                              f"{type(shuffle)}")
            self.sampler = RandomSampler(dataset) if shuffle else SequenceSampler(dataset)
        _check(_positive_int(batch_size), f"BatchSampler: batch_size should be a positive integer, but got "
                                          f"{batch_size!r}")
        _check(isinstance(drop_last, bool), f"BatchSampler: drop_last should be a boolean value, but got "
                                            f"{type(drop_last)}")
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.drop_last = drop_last
        self._acc_steps = 1   # hapi's gradient accumulation widens the batches

    def __iter__(self):
        yield from _batches(self.sampler, self.batch_size * self._acc_steps, self.drop_last)

    def __len__(self):
        return _num_batches(len(self.sampler), self.batch_size * self._acc_steps, self.drop_last)


class DistributedBatchSampler(BatchSampler):
    """The batches of one rank: indices are padded by wrapping around so that every rank gets
    ``ceil(len(dataset) / num_replicas)`` of them; ranks take consecutive ``batch_size`` blocks in turn, and
    the last partial round is split evenly. ``shuffle`` permutes with ``RandomState(epoch)``; each pass over
    the sampler then advances the epoch (``set_epoch`` sets it), as in Paddle.

    ``num_replicas``/``rank`` default to PADDLE_TRAINERS_NUM/PADDLE_TRAINER_ID, else torch's WORLD_SIZE/RANK
    (1 and 0 when unset), the variables paddle.distributed.ParallelEnv reads.
    """

    def __init__(self, dataset, batch_size, num_replicas=None, rank=None, shuffle=False, drop_last=False):
        self.dataset = dataset
        _check(_positive_int(batch_size), f"DistributedBatchSampler: batch_size should be a positive integer, "
                                          f"got {batch_size!r}")
        _check(isinstance(shuffle, bool), f"DistributedBatchSampler: shuffle should be a boolean value, got "
                                          f"{shuffle!r}")
        _check(isinstance(drop_last, bool), f"DistributedBatchSampler: drop_last should be a boolean value, "
                                            f"got {drop_last!r}")
        if num_replicas is None:
            num_replicas = int(os.getenv("PADDLE_TRAINERS_NUM") or os.getenv("WORLD_SIZE") or "1")
        else:
            _check(_positive_int(num_replicas), f"DistributedBatchSampler: num_replicas should be a positive "
                                                f"integer, got {num_replicas!r}")
        if rank is None:
            rank = int(os.getenv("PADDLE_TRAINER_ID") or os.getenv("RANK") or "0")
        else:
            _check(isinstance(rank, int) and not isinstance(rank, bool) and rank >= 0,
                   f"DistributedBatchSampler: rank should be a non-negative integer, got {rank!r}")
        if rank >= num_replicas:
            raise ValueError(f"DistributedBatchSampler: rank {rank} is out of range for num_replicas="
                             f"{num_replicas}")
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.drop_last = drop_last
        self.nranks = num_replicas
        self.local_rank = rank
        self.epoch = 0
        self.num_samples = int(math.ceil(len(dataset) / self.nranks))
        self.total_size = self.num_samples * self.nranks
        self._acc_steps = 1

    def _rank_indices(self):
        n = len(self.dataset)
        # Wrapping around pads the index list to total_size (a dataset shorter than the padding repeats).
        indices = [i % n for i in range(self.total_size)] if n else []
        if self.shuffle:
            np.random.RandomState(self.epoch).shuffle(indices)
            self.epoch += 1
        if self.nranks == 1:
            return indices
        size, rank = self.batch_size, self.local_rank
        stride = size * self.nranks
        tail = self.total_size % stride
        mine = []
        for start in range(rank * size, self.total_size - tail, stride):
            mine.extend(indices[start:start + size])
        share = tail // self.nranks
        head = self.total_size - tail
        mine.extend(indices[head + rank * share:head + (rank + 1) * share])
        return mine

    def __iter__(self):
        # A generator, so the shuffle (and the epoch step) happen at the first batch, as in Paddle.
        yield from _batches(self._rank_indices(), self.batch_size * self._acc_steps, self.drop_last)

    def __len__(self):
        return _num_batches(self.num_samples, self.batch_size * self._acc_steps, self.drop_last)

    def set_epoch(self, epoch):
        """Seed of the next shuffle; call it each epoch so every rank shuffles the same way."""
        self.epoch = epoch

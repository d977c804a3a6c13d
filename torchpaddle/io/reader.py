"""paddle.io.DataLoader on torch.utils.data.DataLoader.

torch runs the sampling, the worker processes (fork, shared-memory transfer of torch tensors, liveness
checks, ``timeout``) and the in-order reassembly; workers collate and hand back torch tensors, and the
main process wraps them as Tensors in Paddle's batch structure. Worker errors surface in the main process
with their type and the worker's traceback; a worker killed by a signal is a RuntimeError.
"""
import sys
import warnings

import numpy as np
import torch
import torch.utils.data

from ..framework.mode import in_dynamic_mode
from ..framework.place import current_torch_device, to_torch_device
from ..framework.tensor import PaddleAssertionError
from .dataloader.batch_sampler import BatchSampler
from .dataloader.collate import WorkerCollate, flat_tensors, to_paddle
from .dataloader.dataset import IterableDataset
from .dataloader.worker import WorkerInit

__all__ = ["DataLoader"]


def _check(cond, message):
    if not cond:
        raise PaddleAssertionError(message)


def _is_iterable_dataset(dataset):
    return isinstance(dataset, (IterableDataset, torch.utils.data.IterableDataset))


class _InfiniteIterableSampler:
    """The batch sampler of an iterable dataset: ``batch_size`` placeholders per batch, forever."""

    def __init__(self, dataset, batch_size=1):
        self.dataset, self.batch_size = dataset, batch_size

    def __iter__(self):
        while True:
            yield [None] * self.batch_size


class _TorchIterable(torch.utils.data.IterableDataset):
    """Lets torch recognise a Paddle IterableDataset (which is not a torch one)."""

    def __init__(self, dataset):
        self.dataset = dataset

    def __iter__(self):
        return iter(self.dataset)


def _int_arg(name, value, low):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise PaddleAssertionError(f"DataLoader: {name} should be an integer >= {low}, got {value!r}")
    return int(value)


def _device_of(places):
    if places is None:
        device = current_torch_device()
    else:
        if isinstance(places, (list, tuple)):
            if not places:
                raise ValueError("DataLoader: places should not be an empty list")
            places = places[0]
        device = to_torch_device(places)
    return None if device.type == "cpu" else device


class DataLoader:
    """Iterates ``dataset`` in batches of Tensors (see the module docstring for how workers are run).

    Differences from Paddle: ``timeout`` > 0 raises RuntimeError when no batch arrives in time (Paddle keeps
    waiting); a batch holding no arrays (only strings or numbers) is returned as it is (Paddle skips it);
    ``use_buffer_reader``, ``reader_buffer_size`` and ``use_shared_memory`` are accepted and have no effect.
    """

    def __init__(self, dataset, feed_list=None, places=None, return_list=True, batch_sampler=None, batch_size=1,
                 shuffle=False, drop_last=False, collate_fn=None, num_workers=0, use_buffer_reader=True,
                 reader_buffer_size=2, prefetch_factor=2, use_shared_memory=True, timeout=0, worker_init_fn=None,
                 persistent_workers=False):
        if not return_list and not in_dynamic_mode():
            _check(feed_list is not None, "DataLoader: feed_list should be set when return_list=False")
        if collate_fn is not None and not callable(collate_fn):
            raise TypeError(f"DataLoader: collate_fn must be callable, got {type(collate_fn).__name__}")
        if worker_init_fn is not None and not callable(worker_init_fn):
            raise TypeError(f"DataLoader: worker_init_fn must be callable, got {type(worker_init_fn).__name__}")
        self.dataset = dataset
        self.feed_list = feed_list
        self.places = places
        self._device = _device_of(places)
        self.return_list = return_list
        self.collate_fn = collate_fn
        self.num_workers = _int_arg("num_workers", num_workers, 0)
        if self.num_workers and sys.platform in ("darwin", "win32"):
            # As Paddle does there: its workers need fork, and datasets need not be picklable.
            warnings.warn("DataLoader with multi-process mode is not supported on MacOs and Windows currently. "
                          "Please use single-process mode with num_workers = 0 instead")
            self.num_workers = 0
        self.use_buffer_reader = use_buffer_reader
        self.reader_buffer_size = reader_buffer_size
        self.prefetch_factor = _int_arg("prefetch_factor", prefetch_factor, 1)
        self.use_shared_memory = use_shared_memory and self.num_workers > 0
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout < 0:
            raise PaddleAssertionError(f"DataLoader: timeout should be a non-negative number, got {timeout!r}")
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self._persistent_workers = bool(persistent_workers) and self.num_workers > 0

        iterable = _is_iterable_dataset(dataset)
        if iterable:
            if shuffle:
                raise ValueError(f"IterableDataset not support shuffle, but got shuffle={shuffle}")
            if batch_sampler is not None:
                raise ValueError("IterableDataset expect unspecified batch_sampler")
        elif not (hasattr(dataset, "__getitem__") and hasattr(dataset, "__len__")):
            raise TypeError(f"DataLoader: dataset must be a paddle.io.Dataset (with __getitem__ and __len__) or an "
                            f"IterableDataset, got {type(dataset).__name__}")
        if batch_sampler is not None:
            _check(batch_size == 1 and not shuffle and not drop_last,
                   "DataLoader: batch_size/shuffle/drop_last should not be set when batch_sampler is given")
            self.batch_sampler, self.batch_size = batch_sampler, None
        elif batch_size is None:
            self.batch_sampler, self.batch_size = None, None
        else:
            self.batch_size = _int_arg("batch_size", batch_size, 1)
            self.batch_sampler = (_InfiniteIterableSampler(dataset, self.batch_size) if iterable else
                                  BatchSampler(dataset=dataset, batch_size=self.batch_size, shuffle=shuffle,
                                               drop_last=drop_last))
        self.drop_last = drop_last
        self.auto_collate_batch = self.batch_sampler is not None
        self._iterable = iterable
        self._torch_loader = None

    def _torch(self):
        if self._torch_loader is None:
            kwargs = {"num_workers": self.num_workers, "timeout": self.timeout,
                      "collate_fn": WorkerCollate(self.collate_fn, self.auto_collate_batch),
                      "persistent_workers": self._persistent_workers,
                      # torch draws its own base seed from this, so Paddle's default generator is untouched.
                      "generator": torch.Generator()}
            if self.num_workers:
                kwargs["prefetch_factor"] = self.prefetch_factor
            if self._iterable:
                kwargs.update(batch_size=self.batch_size, drop_last=bool(self.drop_last))
                self._torch_loader = torch.utils.data.DataLoader(_TorchIterable(self.dataset), **kwargs)
            elif self.auto_collate_batch:
                self._torch_loader = torch.utils.data.DataLoader(self.dataset, batch_sampler=self.batch_sampler,
                                                                 **kwargs)
            else:
                self._torch_loader = torch.utils.data.DataLoader(self.dataset, batch_size=None, **kwargs)
        return self._torch_loader

    def __len__(self):
        if self._iterable:
            raise ValueError("length of IterableDataset not supported")
        return len(self.batch_sampler) if self.auto_collate_batch else len(self.dataset)

    def __iter__(self):
        return _DataLoaderIter(self)

    def __call__(self):
        return self.__iter__()


class _DataLoaderIter:
    __slots__ = ("_loader", "_it", "_device", "_feed_names")

    def __init__(self, loader):
        self._loader = loader
        self._device = loader._device
        tl = loader._torch()
        if loader.num_workers and (not loader._persistent_workers or tl._iterator is None):
            # Like Paddle, the workers' base seed comes from NumPy's global generator in the main process.
            base_seed = int(np.random.randint(low=0, high=sys.maxsize))
            tl.worker_init_fn = WorkerInit(loader.dataset, loader.worker_init_fn, base_seed)
            tl.generator.manual_seed(base_seed)
        self._feed_names = None
        if not loader.return_list and not in_dynamic_mode():
            self._feed_names = [v.name for v in loader.feed_list]
        self._it = iter(tl)

    def __iter__(self):
        return self

    def __next__(self):
        try:
            batch = to_paddle(next(self._it), self._device)
        except StopIteration:
            raise
        except BaseException:
            # Stop the workers now: the traceback keeps this iterator alive, and processes forked later
            # would inherit it and try to shut down workers that are not theirs.
            shutdown = getattr(self._it, "_shutdown_workers", None)
            if shutdown is not None:
                shutdown()
                if self._loader._persistent_workers:
                    self._loader._torch()._iterator = None   # the next epoch starts fresh workers
            raise
        if self._feed_names is not None:
            # Static mode with return_list=False: one {feed name: Tensor} dict per place, as Paddle gives.
            return [dict(zip(self._feed_names, flat_tensors(batch, [])))]
        return batch

    def __len__(self):
        return len(self._loader)

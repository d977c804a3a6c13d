"""fluid.io.DataLoader.from_generator and PyReader: Python readers feeding a static program (iterable: each
step yields the feed; non-iterable: ``start()`` then ``exe.run`` pulls the next batch itself until
``fluid.core.EOFException``) or, with ``return_list=True`` in dygraph, lists of Tensors."""
import numpy as np

from ..framework.mode import in_dynamic_mode
from ..framework.program import Variable
from ..framework.tensor import Tensor
from ..io import DataLoader as _DataLoader
from ..static.scope import LoDTensor, torch_value
from .data_feeder import DataFeeder
from ..reader.decorator import batch as _batch

__all__ = ["DataLoader", "PyReader", "default_collate_fn", "EOFException"]


class EOFException(Exception):
    """Raised by Executor.run when the started non-iterable reader of the program has no batch left."""


def default_collate_fn(batch):
    """A list of samples (tuples of arrays or numbers) -> a list of stacked arrays, one per field."""
    if not batch:
        raise ValueError("default_collate_fn: the batch is empty")
    return [np.stack([np.asarray(sample[i]) for sample in batch]) for i in range(len(batch[0]))]


class GeneratorLoader:
    """What DataLoader.from_generator returns."""

    def __init__(self, feed_list=None, capacity=None, use_double_buffer=True, iterable=True, return_list=False,
                 use_multiprocess=False, drop_last=True):
        if in_dynamic_mode():
            return_list = True
        elif feed_list is None:
            raise ValueError("from_generator: feed_list must be given in static mode")
        elif not all(isinstance(v, Variable) for v in feed_list):
            raise TypeError("from_generator: feed_list must be a list of Variables")
        if not iterable and return_list:
            raise ValueError("from_generator: return_list=True needs iterable=True")
        self._feed_list = list(feed_list or [])
        self._capacity, self._iterable, self._return_list = capacity, iterable, return_list
        self._drop_last = drop_last
        self._batch_reader = None
        self._pending = None
        if not iterable:
            program = self._feed_list[0].block.program
            program.__dict__.setdefault("_fluid_readers", []).append(self)

    @property
    def iterable(self):
        return self._iterable

    # -- what the reader yields -------------------------------------------------------------------------
    def set_sample_generator(self, reader, batch_size, drop_last=True, places=None):
        """``reader()`` yields single samples (a tuple, one field per feed variable)."""
        return self.set_sample_list_generator(_batch(reader, batch_size, drop_last), places)

    def set_sample_list_generator(self, reader, places=None):
        """``reader()`` yields lists of samples."""
        if self._feed_list and not self._return_list:
            feeder = DataFeeder(self._feed_list, places)

            def batches():
                for samples in reader():
                    converted = feeder.feed(samples)
                    yield [converted[v.name] for v in self._feed_list]
        else:
            def batches():
                for samples in reader():
                    yield default_collate_fn(samples)
        self._batch_reader = batches
        return self

    def set_batch_generator(self, reader, places=None):
        """``reader()`` yields whole batches (a list or tuple of arrays, one per feed variable)."""
        self._batch_reader = reader
        return self

    # -- iterable mode --------------------------------------------------------------------------------
    def _convert(self, fields):
        if isinstance(fields, (np.ndarray, Tensor, LoDTensor)):
            fields = [fields]
        fields = list(fields)
        if self._feed_list and len(fields) != len(self._feed_list):
            raise ValueError(f"DataLoader: a batch has {len(fields)} fields, but feed_list has "
                             f"{len(self._feed_list)} variables")
        if self._return_list:
            from ..tensor.creation import to_tensor
            return [f if isinstance(f, Tensor) else to_tensor(np.asarray(torch_value(f).cpu().numpy()
                                                                           if isinstance(f, LoDTensor) else f))
                    for f in fields]
        out = {}
        for var, value in zip(self._feed_list, fields):
            out[var.name] = value if isinstance(value, LoDTensor) else np.asarray(value)
        return [out]

    def __iter__(self):
        if not self._iterable:
            raise RuntimeError("DataLoader: this loader is not iterable (iterable=False); call start() and run "
                               "the program until fluid.core.EOFException")
        if self._batch_reader is None:
            raise RuntimeError("DataLoader: no data source; call set_sample_generator, set_sample_list_generator "
                               "or set_batch_generator first")
        for fields in self._batch_reader():
            yield self._convert(fields)

    def __call__(self):
        return self.__iter__()

    # -- non-iterable mode ----------------------------------------------------------------------------
    def start(self):
        if self._iterable:
            raise RuntimeError("DataLoader: start() is for a non-iterable loader (iterable=False)")
        if self._batch_reader is None:
            raise RuntimeError("DataLoader: no data source; call set_*_generator first")
        self._pending = iter(self._batch_reader())

    def reset(self):
        if self._iterable:
            raise RuntimeError("DataLoader: reset() is for a non-iterable loader (iterable=False)")
        self._pending = None

    def next_feed(self):
        """The feed dict of the next batch, for Executor.run; EOFException when the reader is exhausted."""
        if self._pending is None:
            raise RuntimeError("DataLoader: the non-iterable reader was not started (call start())")
        try:
            fields = next(self._pending)
        except StopIteration:
            self._pending = None
            raise EOFException("There is no next data.") from None
        return self._convert(fields)[0]


def reader_feed(program, feed):
    """The feed of a run of ``program``, completed by its started non-iterable readers."""
    readers = [r for r in getattr(program, "_fluid_readers", ()) if r._pending is not None]
    if not readers:
        return feed
    feed = dict(feed or {})
    for reader in readers:
        if not all(v.name in feed for v in reader._feed_list):
            feed.update(reader.next_feed())
    return feed


class DataLoader(_DataLoader):
    """paddle.io.DataLoader, plus Paddle 1.x's ``from_generator`` and ``from_dataset``."""

    @staticmethod
    def from_generator(feed_list=None, capacity=None, use_double_buffer=True, iterable=True, return_list=False,
                       use_multiprocess=False, drop_last=True):
        return GeneratorLoader(feed_list, capacity, use_double_buffer, iterable, return_list, use_multiprocess,
                               drop_last)

    @staticmethod
    def from_dataset(dataset, places, drop_last=True):
        raise NotImplementedError("DataLoader.from_dataset reads a fluid InMemoryDataset/QueueDataset (the "
                                  "C++ data feed of the parameter-server trainer), which torchpaddle does not have; "
                                  "use DataLoader.from_generator or paddle.io.DataLoader")


class PyReader(GeneratorLoader):
    """Paddle 1.x's PyReader: from_generator with ``decorate_*`` method names."""

    def __init__(self, feed_list=None, capacity=None, use_double_buffer=True, iterable=True, return_list=False):
        super().__init__(feed_list, capacity, use_double_buffer, iterable, return_list)

    def decorate_sample_generator(self, sample_generator, batch_size, drop_last=True, places=None):
        return self.set_sample_generator(sample_generator, batch_size, drop_last, places)

    def decorate_sample_list_generator(self, reader, places=None):
        return self.set_sample_list_generator(reader, places)

    def decorate_batch_generator(self, reader, places=None):
        return self.set_batch_generator(reader, places)

"""fluid.DataFeeder: turns a mini-batch of samples (one entry per feed variable) into the feed dict."""
import numpy as np

from ..framework.program import Variable, default_main_program
from ..static.scope import LoDTensor

__all__ = ["DataFeeder"]


class DataFeeder:
    """``DataFeeder(feed_list, place, program=None)``: ``feed(minibatch)`` -> {name: LoDTensor}; each sample is a
    tuple holding one value per variable of ``feed_list`` (Variables, or their names in ``program``)."""

    def __init__(self, feed_list, place, program=None):
        program = default_main_program() if program is None else program
        self.feed_dtypes, self.feed_names, self.feed_shapes, self.feed_lod_level = [], [], [], []
        if not isinstance(feed_list, (list, tuple)):
            raise TypeError(f"DataFeeder: feed_list must be a list of Variables or names, got "
                            f"{type(feed_list).__name__}")
        for each in feed_list:
            if isinstance(each, str):
                each = program.global_block().var(each)
            if not isinstance(each, Variable):
                raise TypeError(f"DataFeeder: feed_list must hold Variables or names, got {type(each).__name__}")
            self.feed_dtypes.append(each.dtype.numpy or np.float32)
            self.feed_names.append(each.name)
            self.feed_lod_level.append(each.lod_level)
            self.feed_shapes.append(list(each.shape))
        self.place = place

    def _convert(self, column, i):
        name, shape = self.feed_names[i], self.feed_shapes[i]
        lengths = []
        if self.feed_lod_level[i]:   # each sample is a sequence (nested lod_level deep): flatten, keep lengths
            lengths = [[] for _ in range(self.feed_lod_level[i])]
            for level in lengths:
                flat = []
                for seq in column:
                    level.append(len(seq))
                    flat.extend(seq)
                column = flat
        array = np.array(column, dtype=self.feed_dtypes[i])
        if shape and array.ndim != len(shape):
            try:
                array = array.reshape(shape)
            except ValueError:
                raise ValueError(f"Reshape error. What is defined in data layer is {shape}, but receive "
                                 f"{list(array.shape)}") from None
        tensor = LoDTensor()
        tensor.set(array, self.place)
        if lengths:
            tensor.set_recursive_sequence_lengths(lengths)
        return tensor

    def feed(self, iterable):
        columns = [[] for _ in self.feed_names]
        for sample in iterable:
            if len(sample) != len(self.feed_names):
                raise ValueError(f"The number of fields in data ({len(sample)}) does not match len(feed_list) "
                                 f"({len(self.feed_names)})")
            for column, value in zip(columns, sample):
                column.append(value)
        return {name: self._convert(column, i) for i, (name, column) in enumerate(zip(self.feed_names, columns))}

    def feed_parallel(self, iterable, num_places=None):
        """One feed dict per place, from one mini-batch per place."""
        batches = list(iterable)
        if num_places is not None and len(batches) != num_places:
            raise ValueError(f"feed_parallel: got {len(batches)} mini-batches for {num_places} places")
        for batch in batches:
            yield self.feed(batch)

    def decorate_reader(self, reader, multi_devices, num_places=None, drop_last=True):
        """A reader of feed dicts (a list of them, one per place, when ``multi_devices``) from a batch reader."""
        def single():
            for batch in reader():
                yield self.feed(batch)

        def multiple():
            places = num_places or 1
            pending = []
            for batch in reader():
                pending.append(batch)
                if len(pending) == places:
                    yield list(self.feed_parallel(pending, places))
                    pending = []
            if pending and not drop_last:
                raise ValueError("The data batch which cannot fit for devices will be dropped is not "
                                 "implementation. Other strategies are not implemented")

        return multiple if multi_devices else single

"""paddle.reader.decorator: Paddle 1.x's reader decorators (``paddle.batch``, ``paddle.reader.shuffle``, also
``fluid.io.*``): a reader is a function with no arguments returning an iterable of samples; each decorator
returns a new reader."""
import itertools
import queue
import random
import threading

__all__ = ["batch", "cache", "map_readers", "buffered", "compose", "chain", "shuffle", "ComposeNotAligned",
           "firstn", "xmap_readers", "multiprocess_reader"]


def batch(reader, batch_size, drop_last=False):
    """Group the samples of ``reader`` into lists of ``batch_size`` (the last one shorter unless ``drop_last``)."""
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
        raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")

    def batch_reader():
        pending = []
        for sample in reader():
            pending.append(sample)
            if len(pending) == batch_size:
                yield pending
                pending = []
        if pending and not drop_last:
            yield pending
    return batch_reader


def cache(reader):
    """Read ``reader`` once, then replay its samples from memory."""
    samples = list(reader())

    def cached():
        return iter(samples)
    return cached


def map_readers(func, *readers):
    """``func(*samples)`` over the readers read in step."""
    def mapped():
        for samples in zip(*[r() for r in readers]):
            yield func(*samples)
    return mapped


def shuffle(reader, buf_size):
    """Shuffle within windows of ``buf_size`` samples."""
    def shuffled():
        buf = []
        for sample in reader():
            buf.append(sample)
            if len(buf) >= buf_size:
                random.shuffle(buf)
                yield from buf
                buf = []
        if buf:
            random.shuffle(buf)
            yield from buf
    return shuffled


def chain(*readers):
    """The samples of each reader in turn."""
    def chained():
        return itertools.chain(*[r() for r in readers])
    return chained


class ComposeNotAligned(ValueError):
    pass


def compose(*readers, **kwargs):
    """Samples of the readers read in step, flattened into one tuple; unequal lengths raise ComposeNotAligned
    unless ``check_alignment=False`` (then reading stops at the shortest)."""
    check_alignment = kwargs.pop("check_alignment", True)
    if kwargs:
        raise TypeError(f"compose: unexpected arguments {sorted(kwargs)}")

    def as_tuple(x):
        return x if isinstance(x, tuple) else (x,)

    def composed():
        iterators = [r() for r in readers]
        if not check_alignment:
            for items in zip(*iterators):
                yield sum((as_tuple(i) for i in items), ())
            return
        for items in itertools.zip_longest(*iterators):
            if any(i is None for i in items):
                raise ComposeNotAligned("outputs of readers are not aligned.")
            yield sum((as_tuple(i) for i in items), ())
    return composed


def firstn(reader, n):
    """The first ``n`` samples."""
    def first():
        return itertools.islice(reader(), n)
    return first


_END = object()


class _Failure:
    def __init__(self, exc):
        self.exc = exc


def _fill(iterator, q):
    try:
        for item in iterator:
            q.put(item)
    except Exception as e:  # noqa: BLE001 - handed to the consumer, which re-raises it
        q.put(_Failure(e))
    q.put(_END)


def _drain(q, ends=1):
    seen = 0
    while seen < ends:
        item = q.get()
        if item is _END:
            seen += 1
        elif isinstance(item, _Failure):
            raise item.exc
        else:
            yield item


def buffered(reader, size):
    """Read ahead up to ``size`` samples in a background thread."""
    def buffered_reader():
        q = queue.Queue(maxsize=size)
        threading.Thread(target=_fill, args=(reader(), q), daemon=True).start()
        yield from _drain(q)
    return buffered_reader


def xmap_readers(mapper, reader, process_num, buffer_size, order=False):
    """``mapper(sample)`` in ``process_num`` threads; samples come out in input order when ``order``."""
    def xreader():
        inputs, outputs = queue.Queue(buffer_size), queue.Queue(buffer_size)

        def feed():
            try:
                for i, sample in enumerate(reader()):
                    inputs.put((i, sample))
            finally:
                for _ in range(process_num):
                    inputs.put(_END)

        def work():
            while True:
                item = inputs.get()
                if item is _END:
                    outputs.put(_END)
                    return
                try:
                    outputs.put((item[0], mapper(item[1])))
                except Exception as e:  # noqa: BLE001 - re-raised by the consumer
                    outputs.put(_Failure(e))

        threading.Thread(target=feed, daemon=True).start()
        for _ in range(process_num):
            threading.Thread(target=work, daemon=True).start()
        if not order:
            for _, value in _drain(outputs, process_num):
                yield value
            return
        waiting, next_index = {}, 0
        for index, value in _drain(outputs, process_num):
            waiting[index] = value
            while next_index in waiting:
                yield waiting.pop(next_index)
                next_index += 1
    return xreader


def _process_fill(reader, q):
    try:
        for sample in reader():
            if sample is None:
                raise ValueError("multiprocess_reader: a sample is None, which cannot be passed between processes")
            q.put(sample)
        q.put(None)
    except Exception as e:  # noqa: BLE001 - handed to the consumer
        q.put(("__multiprocess_reader_error__", repr(e)))
        q.put(None)


def multiprocess_reader(readers, use_pipe=True, queue_size=1000):
    """Run each reader in its own (forked) process and interleave their samples."""
    import multiprocessing
    if not isinstance(readers, (list, tuple)) or not readers:
        raise ValueError("multiprocess_reader: readers must be a non-empty list of readers")

    def reader():
        ctx = multiprocessing.get_context("fork")
        q = ctx.Queue(queue_size)
        procs = [ctx.Process(target=_process_fill, args=(r, q), daemon=True) for r in readers]
        for p in procs:
            p.start()
        finished = 0
        try:
            while finished < len(readers):
                sample = q.get()
                if sample is None:
                    finished += 1
                elif isinstance(sample, tuple) and len(sample) == 2 and sample[0] == "__multiprocess_reader_error__":
                    raise RuntimeError(f"multiprocess_reader: a reader process failed: {sample[1]}")
                else:
                    yield sample
        finally:
            for p in procs:
                p.join(timeout=1)
                if p.is_alive():
                    p.terminate()
    return reader

"""paddle.device streams and events: torch.cuda streams/events on a GPU; on the CPU, where work runs in order
on the calling thread, a stream is always idle (query() is True, synchronize() returns at once) and events
record the host time, so code written for a GPU runs unchanged."""
import ctypes
import time

import torch

from ..framework.place import Place, _parse_device, get_device, set_device

__all__ = ["Stream", "Event", "current_stream", "set_stream", "stream_guard", "StreamContext", "stream",
           "get_stream_from_external"]


def _to_place(device):
    if device is None:
        device = get_device()
    if isinstance(device, Place):
        return device
    if isinstance(device, int) and not isinstance(device, bool):
        device = f"gpu:{device}"
    if not isinstance(device, str):
        raise ValueError(f"device must be a str like 'cpu' or 'gpu:0', an int or a Place, got {type(device).__name__}")
    return _parse_device(device.replace("cuda", "gpu"))


class _CPUStream:
    """The stream of the CPU: ``place``, ``query``, ``synchronize``, ``wait_*`` like a torch stream."""

    def __init__(self, priority=2):
        self.place = Place("cpu", 0)
        self.priority = priority

    def query(self):
        return True

    def synchronize(self):
        pass

    def wait_event(self, event):
        pass

    def wait_stream(self, stream):
        pass

    raw_stream = 0


class _CPUEvent:
    def __init__(self, enable_timing=False):
        self.enable_timing = enable_timing
        self.time = None

    def record(self, stream=None):
        self.time = time.perf_counter()

    def query(self):
        return True

    def synchronize(self):
        pass

    def elapsed_time(self, end_event):
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("Event.elapsed_time: both events must be created with enable_timing=True")
        if self.time is None or end_event.time is None:
            raise RuntimeError("Event.elapsed_time: both events must be recorded first")
        return (end_event.time - self.time) * 1000.0


_CPU_DEFAULT = _CPUStream()
_CPU_CURRENT = [_CPU_DEFAULT]


class Stream:
    """A device stream (``paddle.device.Stream``): ``device`` None means the current device; priority 1 or -1 is
    high, 0 or 2 low."""
    _priority_map = {-1: 1, 0: 2, 1: 1, 2: 2}

    def __init__(self, device=None, priority=2, stream_base=None):
        if stream_base is not None:
            if not isinstance(stream_base, (torch.cuda.Stream, _CPUStream)):
                raise TypeError("stream_base should be CUDAStream, XPUStream, CustomDeviceStream")
            self.stream_base = stream_base
            self.device = _place_of_base(stream_base)
            return
        self.device = _to_place(device)
        priority = self._priority_map.get(priority, 2)
        if self.device.is_gpu_place():
            self.stream_base = torch.cuda.Stream(self.device.get_device_id(), priority=-1 if priority == 1 else 0)
        else:
            self.stream_base = _CPUStream(priority)

    def wait_event(self, event):
        self.stream_base.wait_event(event.event_base)

    def wait_stream(self, stream):
        self.stream_base.wait_stream(stream.stream_base)

    def record_event(self, event=None):
        if event is None:
            event = Event()
        event.record(self)
        return event

    def query(self):
        return self.stream_base.query()

    def synchronize(self):
        self.stream_base.synchronize()

    @property
    def _as_parameter_(self):
        base = self.stream_base
        return ctypes.c_void_p(base.cuda_stream if isinstance(base, torch.cuda.Stream) else 0)

    def __cuda_stream__(self):
        return (0, self._as_parameter_.value or 0)

    def __eq__(self, other):
        return isinstance(other, Stream) and self.stream_base == other.stream_base

    def __hash__(self):
        return hash((self.stream_base, self.device))

    def __repr__(self):
        return f"<paddle.device.Stream device={self.device} stream={(self._as_parameter_.value or 0):#x}>"


def _place_of_base(base):
    if isinstance(base, torch.cuda.Stream):
        return Place("gpu", base.device.index or 0)
    return base.place


class Event:
    """A device event on the current device (``paddle.device.Event``)."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        self.device = _to_place(None)
        self.enable_timing = enable_timing
        if self.device.is_gpu_place():
            self.event_base = torch.cuda.Event(enable_timing=enable_timing, blocking=blocking,
                                               interprocess=interprocess)
        else:
            self.event_base = _CPUEvent(enable_timing)

    def record(self, stream=None):
        if stream is None:
            stream = current_stream(self.device)
        self.event_base.record(stream.stream_base)

    def query(self):
        return self.event_base.query()

    def elapsed_time(self, end_event):
        """Milliseconds from this event to ``end_event``."""
        return self.event_base.elapsed_time(end_event.event_base)

    def synchronize(self):
        self.event_base.synchronize()

    def __repr__(self):
        return f"Event(device={self.device}, event_base={self.event_base})"


def current_stream(device=None):
    """The current stream of ``device`` (the current device if None)."""
    place = _to_place(device)
    if place.is_gpu_place():
        return Stream(stream_base=torch.cuda.current_stream(place.get_device_id()))
    return Stream(stream_base=_CPU_CURRENT[0])


def set_stream(stream):
    """Make ``stream`` current on its device; returns the previous current stream."""
    if not isinstance(stream, Stream):
        raise TypeError(f"set_stream: stream must be a paddle.device.Stream, got {type(stream).__name__}")
    previous = current_stream(stream.device)
    if isinstance(stream.stream_base, torch.cuda.Stream):
        torch.cuda.set_stream(stream.stream_base)
    else:
        _CPU_CURRENT[0] = stream.stream_base
    return previous


class stream_guard:
    """Context in which ``stream`` is current (and its device too); None does nothing."""

    def __init__(self, stream=None):
        self.stream = stream

    def __enter__(self):
        if self.stream is None:
            return
        self._previous_device = get_device()
        self._previous_stream = current_stream(self.stream.device)
        if str(self.stream.device) != str(_to_place(None)):
            set_device(self.stream.device)
        set_stream(self.stream)

    def __exit__(self, exc_type, exc_value, traceback):
        if self.stream is None:
            return
        set_stream(self._previous_stream)
        set_device(self._previous_device)


StreamContext = stream_guard


def stream(stream):
    return StreamContext(stream)


def get_stream_from_external(data_ptr, device=None):
    """A Stream over a CUDA stream handle (``cudaStream_t``) made by another library."""
    place = _to_place(device)
    if not place.is_gpu_place():
        raise ValueError("get_stream_from_external wraps a CUDA stream, but the device is the CPU (torch sees no "
                         "CUDA device or the current device is 'cpu')")
    return Stream(stream_base=torch.cuda.ExternalStream(data_ptr, device=place.get_device_id()))

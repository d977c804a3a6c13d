"""paddle.device.cuda on torch.cuda; every function works (and reports no devices) on a CPU-only build."""
import torch

from ..framework.place import Place


def _index(device):
    if device is None:
        return None
    if isinstance(device, Place):
        return device.get_device_id()
    if isinstance(device, str):
        return int(device.split(":")[1]) if ":" in device else 0
    return int(device)


def device_count():
    return torch.cuda.device_count() if torch.cuda.is_available() else 0


def synchronize(device=None):
    if torch.cuda.is_available():
        torch.cuda.synchronize(_index(device))


def empty_cache():
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def _require(what):
    if not torch.cuda.is_available():
        raise ValueError(f"paddle.device.cuda.{what}: no CUDA device is available")


def max_memory_allocated(device=None):
    _require("max_memory_allocated")
    return torch.cuda.max_memory_allocated(_index(device))


def max_memory_reserved(device=None):
    _require("max_memory_reserved")
    return torch.cuda.max_memory_reserved(_index(device))


def memory_allocated(device=None):
    _require("memory_allocated")
    return torch.cuda.memory_allocated(_index(device))


def memory_reserved(device=None):
    _require("memory_reserved")
    return torch.cuda.memory_reserved(_index(device))


def get_device_properties(device=None):
    _require("get_device_properties")
    return torch.cuda.get_device_properties(_index(device) or 0)


def get_device_name(device=None):
    _require("get_device_name")
    return torch.cuda.get_device_name(_index(device))


def get_device_capability(device=None):
    _require("get_device_capability")
    return torch.cuda.get_device_capability(_index(device))


class Stream:
    """A CUDA stream (torch.cuda.Stream underneath)."""

    def __init__(self, device=None, priority=2):
        _require("Stream")
        self._stream = torch.cuda.Stream(_index(device), priority=-1 if priority == 1 else 0)

    def synchronize(self):
        self._stream.synchronize()

    def wait_stream(self, stream):
        self._stream.wait_stream(stream._stream)


class Event:
    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        _require("Event")
        self._event = torch.cuda.Event(enable_timing=enable_timing, blocking=blocking, interprocess=interprocess)

    def record(self, stream=None):
        self._event.record(None if stream is None else stream._stream)

    def synchronize(self):
        self._event.synchronize()

    def elapsed_time(self, end_event):
        return self._event.elapsed_time(end_event._event)

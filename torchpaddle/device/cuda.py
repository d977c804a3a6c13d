"""paddle.device.cuda on torch.cuda. Without CUDA, device_count() is 0, synchronize() and empty_cache() do
nothing, and the rest raise ValueError, as in Paddle's CPU build."""
import torch

from ..framework.place import Place
from . import streams as _streams

__all__ = ["Stream", "Event", "current_stream", "synchronize", "device_count", "empty_cache", "max_memory_allocated",
           "max_memory_reserved", "memory_allocated", "memory_reserved", "stream_guard", "get_device_properties",
           "get_device_name", "get_device_capability", "reset_max_memory_allocated", "reset_max_memory_reserved",
           "memory_summary", "vmm_compact"]


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


def _require(what, error=ValueError):
    if not torch.cuda.is_available():
        raise error(f"The API paddle.device.cuda.{what} is not supported in CPU-only torchpaddle: torch sees no "
                    "CUDA device. Install a CUDA build of torch and run on a GPU to call this API.")


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


def reset_max_memory_allocated(device=None):
    _require("reset_max_memory_allocated")
    torch.cuda.reset_peak_memory_stats(_index(device))


def reset_max_memory_reserved(device=None):
    # torch keeps one peak record for allocated and reserved memory
    _require("reset_max_memory_reserved")
    torch.cuda.reset_peak_memory_stats(_index(device))


def memory_summary(device=None):
    """A printable table of the CUDA caching allocator's statistics."""
    _require("memory_summary")
    return torch.cuda.memory_summary(_index(device))


def vmm_compact(device=None):
    """Paddle's virtual-memory allocator compaction; torch's caching allocator has none, so this releases the
    cached blocks instead (empty_cache). Returns the number of bytes released."""
    _require("vmm_compact")
    before = torch.cuda.memory_reserved(_index(device))
    torch.cuda.empty_cache()
    return before - torch.cuda.memory_reserved(_index(device))


def _place(device):
    return Place("gpu", 0 if device is None else _index(device))


class Stream(_streams.Stream):
    """A CUDA stream (torch.cuda.Stream underneath, as ``stream_base``)."""

    def __init__(self, device=None, priority=2, stream_base=None):
        _require("Stream", RuntimeError)
        super().__init__(_place(device) if stream_base is None else None, priority, stream_base)


class Event(_streams.Event):
    """A CUDA event (torch.cuda.Event underneath, as ``event_base``)."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        _require("Event", RuntimeError)
        self.device = _place(None)
        self.enable_timing = enable_timing
        self.event_base = torch.cuda.Event(enable_timing=enable_timing, blocking=blocking, interprocess=interprocess)


def current_stream(device=None):
    _require("current_stream")
    return _streams.current_stream(_place(device))


stream_guard = _streams.stream_guard

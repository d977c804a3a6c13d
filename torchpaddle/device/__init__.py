"""paddle.device: the current device, which devices exist, memory statistics, random state, streams and events.

GPUs are torch's CUDA devices. Without one, as in Paddle's CPU build: no device types or devices are listed,
device properties and memory statistics raise ValueError, synchronize() and empty_cache() do nothing, and
streams/events are the CPU's trivial ones (always idle). XPU, IPU and custom-device plugins do not exist here:
their places raise ValueError and the is_compiled_with_* queries answer False.
"""
import torch

from ..framework.place import (set_device, get_device, is_compiled_with_cuda, is_compiled_with_xpu,  # noqa: F401
                               is_compiled_with_rocm, get_cudnn_version, CPUPlace, CUDAPlace, XPUPlace,
                               CUDAPinnedPlace, Place, _parse_device)
from ..framework import random as _random
from . import cuda, streams  # noqa: F401
from .streams import (Stream, Event, current_stream, set_stream, stream_guard, StreamContext,  # noqa: F401
                      stream, get_stream_from_external)
from .tensor_types import (FloatTensor, DoubleTensor, HalfTensor, BFloat16Tensor, ByteTensor,  # noqa: F401
                           CharTensor, ShortTensor, IntTensor, LongTensor, BoolTensor)

__all__ = [
    "get_cudnn_version", "set_device", "get_device", "XPUPlace", "IPUPlace", "is_compiled_with_xpu",
    "is_compiled_with_ipu", "is_compiled_with_cinn", "is_compiled_with_cuda", "is_compiled_with_rocm",
    "is_compiled_with_distribute", "is_compiled_with_custom_device", "get_all_device_type",
    "get_all_custom_device_type", "get_available_device", "get_available_custom_device", "get_device_properties",
    "Stream", "Event", "current_stream", "set_stream", "stream_guard", "device_guard", "synchronize",
    "device_count", "empty_cache", "max_memory_allocated", "max_memory_reserved", "reset_max_memory_allocated",
    "reset_max_memory_reserved", "memory_allocated", "memory_reserved", "is_available",
    "is_current_stream_capturing", "get_device_name", "get_device_capability", "get_rng_state", "set_rng_state",
    "FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "ByteTensor", "CharTensor", "ShortTensor",
    "IntTensor", "LongTensor", "BoolTensor", "device", "is_bf16_supported", "manual_seed",
    "reset_peak_memory_stats", "ipc_collect", "get_stream_from_external", "StreamContext"]


# -- what exists ---------------------------------------------------------------------------------------------
def IPUPlace():
    raise ValueError("IPUPlace: torchpaddle is not compiled with IPU (torch has no Graphcore IPU backend); use "
                     "CPUPlace() or CUDAPlace()")


def is_compiled_with_ipu():
    return False


def is_compiled_with_cinn():
    return False


def is_compiled_with_distribute():
    return torch.distributed.is_available()


def is_compiled_with_custom_device(device_type):
    return False


def get_all_device_type():
    """['gpu'] with CUDA, else [] (Paddle lists accelerator types only)."""
    return ["gpu"] if is_compiled_with_cuda() else []


def get_all_custom_device_type():
    return []


def get_available_device():
    """['gpu:0', 'gpu:1', ...]; [] without CUDA."""
    return [f"gpu:{i}" for i in range(cuda.device_count())]


def get_available_custom_device():
    return []


def device_count():
    """The number of GPUs (0 without CUDA)."""
    return cuda.device_count()


def is_available():
    """Whether any accelerator is available."""
    return device_count() >= 1


def current_device():
    """The index of the current device (0 for the CPU)."""
    current = get_device()
    return int(current.split(":")[1]) if ":" in current else 0


def device_to_place(device=None):
    """A Place from a Place, an int (a GPU index, or 0 for the CPU when it is current), a str or None."""
    if device is None:
        device = get_device()
    elif isinstance(device, int) and not isinstance(device, bool):
        if device < 0:
            raise ValueError(f"Device index must be non-negative, got {device}")
        current = get_device()
        if current == "cpu":
            if device != 0:
                raise ValueError(f"CPU device only supports index 0, got {device}")
            device = "cpu"
        else:
            device = f"{current.split(':')[0]}:{device}"
    return device if isinstance(device, Place) else _parse_device(device)


# -- GPU properties and memory -------------------------------------------------------------------------------
def _gpu(api, device):
    """The CUDA index ``device`` names; ValueError on the CPU."""
    place = device_to_place(device)
    if not place.is_gpu_place():
        raise ValueError(f"The API paddle.device.{api} is not supported on the CPU: torchpaddle's devices with "
                         f"properties and memory statistics are CUDA GPUs, and the device here is {place}")
    return place.get_device_id()


def get_device_properties(device=None):
    """The CUDA device's properties (name, major, minor, total_memory, multi_processor_count...)."""
    return torch.cuda.get_device_properties(_gpu("get_device_properties", device))


def get_device_name(device=None):
    return torch.cuda.get_device_name(_gpu("get_device_name", device))


def get_device_capability(device=None):
    return torch.cuda.get_device_capability(_gpu("get_device_capability", device))


def _memory(api, stat):
    def query(device=None):
        return stat(_gpu(api, device))
    query.__name__ = query.__qualname__ = api
    query.__doc__ = f"paddle.device.{api} of a CUDA device, in bytes (ValueError on the CPU)."
    return query


max_memory_allocated = _memory("max_memory_allocated", torch.cuda.max_memory_allocated)
max_memory_reserved = _memory("max_memory_reserved", torch.cuda.max_memory_reserved)
memory_allocated = _memory("memory_allocated", torch.cuda.memory_allocated)
memory_reserved = _memory("memory_reserved", torch.cuda.memory_reserved)


def reset_max_memory_allocated(device=None):
    torch.cuda.reset_peak_memory_stats(_gpu("reset_max_memory_allocated", device))


def reset_max_memory_reserved(device=None):
    # torch keeps one peak record for allocated and reserved memory
    torch.cuda.reset_peak_memory_stats(_gpu("reset_max_memory_reserved", device))


def reset_peak_memory_stats(device=None):
    torch.cuda.reset_peak_memory_stats(_gpu("reset_peak_memory_stats", device))


def empty_cache():
    cuda.empty_cache()


def ipc_collect():
    if not is_compiled_with_cuda():
        raise RuntimeError("(Unavailable) torchpaddle has no CUDA device, so `ipc_collect` cannot be used.")
    torch.cuda.ipc_collect()


def synchronize(device=None):
    """Wait for the device's queued work; the CPU's is always done."""
    place = device_to_place(device)
    if place.is_gpu_place():
        torch.cuda.synchronize(place.get_device_id())


def is_current_stream_capturing():
    return is_compiled_with_cuda() and torch.cuda.is_current_stream_capturing()


def _bf16_supported(place):
    if place.is_gpu_place():
        return torch.cuda.get_device_capability(place.get_device_id()) >= (8, 0)
    # Paddle's oneDNN build: bfloat16 kernels on CPUs with AVX-512
    return torch.backends.cpu.get_cpu_capability().startswith("AVX512")


def _fp16_supported(place):
    return place.is_gpu_place() and torch.cuda.get_device_capability(place.get_device_id()) >= (5, 3)


def is_bf16_supported(including_emulation=True):
    """Whether the current device computes in bfloat16."""
    place = device_to_place(None)
    if _bf16_supported(place):
        return True
    return bool(place.is_gpu_place() and including_emulation)


# -- random state --------------------------------------------------------------------------------------------
def _generator(device):
    return _random._default_generator(device_to_place(device).torch_device)


def get_rng_state(device=None):
    """The GeneratorState of the default generator of ``device`` (the current one if None)."""
    return _generator(device).get_state()


def set_rng_state(new_state, device=None):
    _generator(device).set_state(new_state)


def manual_seed(seed):
    """Seed the current device's default generator."""
    _generator(None).manual_seed(int(seed))


def manual_seed_all(seed):
    _random.seed(seed)


# -- switching device ----------------------------------------------------------------------------------------
class device_guard:
    """Context in which ``device`` (a str or a Place) is the current device."""

    def __init__(self, device):
        if isinstance(device, str):
            self._target = _parse_device(device)
        elif isinstance(device, Place):
            self._target = device
        else:
            raise ValueError("'device' must be a string or an instance of a subclass of paddle.base.libpaddle.Place, "
                             f"but got {type(device)}")

    def __enter__(self):
        self._original = get_device()
        set_device(self._target)

    def __exit__(self, exc_type, exc_value, traceback):
        set_device(self._original)


class device:
    """Context in which ``device`` (a Place, an int or a str) is the current device."""

    def __init__(self, device=None):
        self.place = device_to_place(device)
        self.prev_place_str = "-1"

    def __enter__(self):
        self.prev_place_str = get_device()
        set_device(self.place)

    def __exit__(self, exc_type, exc_value, traceback):
        set_device(self.prev_place_str)
        return False

"""paddle.amp: dygraph automatic mixed precision (auto_cast, decorate, GradScaler) and its debugging tools."""
from ..device import _bf16_supported, _fp16_supported
from ..framework.place import Place, _parse_device, get_device
from . import accuracy_compare, amp_lists, debugging, grad_scaler  # noqa: F401
from .amp_lists import black_list, white_list  # noqa: F401
from .auto_cast import (amp_decorate, amp_guard, auto_cast, autocast, decorate, get_autocast_dtype,  # noqa: F401
                        is_autocast_enabled)
from .grad_scaler import AmpScaler, GradScaler, OptimizerState  # noqa: F401

__all__ = ["auto_cast", "GradScaler", "decorate", "is_float16_supported", "is_bfloat16_supported",
           "is_autocast_enabled", "get_autocast_dtype", "get_autocast_cpu_dtype", "get_autocast_gpu_dtype"]

get_autocast_cpu_dtype = get_autocast_dtype
get_autocast_gpu_dtype = get_autocast_dtype


def _place(device, api):
    if device is None:
        device = get_device()
    if isinstance(device, Place):
        return device
    if not isinstance(device, str):
        raise ValueError(f"{api}: device must be a str like 'cpu' or 'gpu:0', or a Place, but got {device!r}")
    return _parse_device(device)


def is_float16_supported(device=None):
    """Whether ``device`` (the current one if None) computes in float16 under AMP: GPUs of compute capability
    5.3 or higher; never the CPU."""
    return _fp16_supported(_place(device, "is_float16_supported"))


def is_bfloat16_supported(device=None):
    """Whether ``device`` computes in bfloat16 under AMP: GPUs of compute capability 8.0 or higher, CPUs with
    AVX-512 (as Paddle's oneDNN build answers)."""
    return _bf16_supported(_place(device, "is_bfloat16_supported"))

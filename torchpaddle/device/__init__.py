"""paddle.device: the current device and per-backend helpers."""
from ..framework.place import (set_device, get_device, is_compiled_with_cuda, is_compiled_with_xpu,  # noqa: F401
                               is_compiled_with_rocm, get_cudnn_version, CPUPlace, CUDAPlace, XPUPlace,
                               CUDAPinnedPlace)
from . import cuda  # noqa: F401


def get_all_device_type():
    return ["cpu"] + (["gpu"] if is_compiled_with_cuda() else [])


def get_available_device():
    return ["cpu"] + [f"gpu:{i}" for i in range(cuda.device_count())]


def is_compiled_with_cinn():
    return False


def is_compiled_with_custom_device(device_type):
    return False


def synchronize(device=None):
    cuda.synchronize(device)

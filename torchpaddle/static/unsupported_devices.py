"""Graphcore IPU and Kunlun XPU entry points of paddle.static: they resolve, so scripts that mention them import,
but torchpaddle runs on PyTorch, which has neither device; using one raises a RuntimeError that says so."""

__all__ = ["IpuCompiledProgram", "IpuStrategy", "ipu_shard_guard", "set_ipu_shard", "xpu_places"]


class DeviceUnavailableError(RuntimeError, AssertionError):
    """The device does not exist in this build (Paddle raises AssertionError for XPU, RuntimeError for IPU)."""


def _no_device(api, device):
    return DeviceUnavailableError(f"{api}: torchpaddle runs on PyTorch, which has no {device} support; run on CPU "
                                  "or CUDA (paddle.static.cpu_places / cuda_places)")


class IpuStrategy:
    def __init__(self):
        raise _no_device("IpuStrategy", "Graphcore IPU")


class IpuCompiledProgram:
    def __init__(self, program=None, scope=None, ipu_strategy=None):
        raise _no_device("IpuCompiledProgram", "Graphcore IPU")


def ipu_shard_guard(index=-1, stage=-1):
    raise _no_device("ipu_shard_guard", "Graphcore IPU")


def set_ipu_shard(call_func, index=-1, stage=-1):
    raise _no_device("set_ipu_shard", "Graphcore IPU")


def xpu_places(device_ids=None):
    raise _no_device("xpu_places", "Kunlun XPU")

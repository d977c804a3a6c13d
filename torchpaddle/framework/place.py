"""Places (Paddle's devices) and the current device, mapped onto torch.device."""
import contextlib

import torch

__all__ = ["Place", "CPUPlace", "CUDAPlace", "CUDAPinnedPlace", "XPUPlace", "set_device", "get_device",
           "is_compiled_with_cuda", "is_compiled_with_xpu", "is_compiled_with_rocm", "get_cudnn_version",
           "current_torch_device", "to_torch_device", "place_of"]


class Place:
    """Base of every place; ``torch_device`` is what tensors on it live on."""
    __slots__ = ("_kind", "_id")

    def __init__(self, kind="cpu", device_id=0):
        self._kind, self._id = kind, device_id

    @property
    def torch_device(self):
        if self._kind == "gpu":
            return torch.device("cuda", self._id)
        return torch.device("cpu")

    def get_device_id(self):
        return self._id

    def is_cpu_place(self):
        return self._kind == "cpu"

    def is_gpu_place(self):
        return self._kind == "gpu"

    def is_cuda_pinned_place(self):
        return self._kind == "gpu_pinned"

    def is_xpu_place(self):
        return self._kind == "xpu"

    def __eq__(self, other):
        return isinstance(other, Place) and (self._kind, self._id) == (other._kind, other._id)

    def __hash__(self):
        return hash((self._kind, self._id))

    def __repr__(self):
        if self._kind in ("cpu", "gpu_pinned"):
            return f"Place({self._kind})"
        return f"Place({self._kind}:{self._id})"

    __str__ = __repr__


def _require_cuda(device_id):
    if not torch.cuda.is_available():
        raise ValueError("use wrong place: CUDAPlace needs a CUDA build of torch and a visible GPU; "
                         "use CPUPlace() instead")
    if not isinstance(device_id, int) or not 0 <= device_id < torch.cuda.device_count():
        raise ValueError(f"CUDAPlace: device_id must be in [0, {torch.cuda.device_count()}), got {device_id!r}")


class CPUPlace(Place):
    __slots__ = ()

    def __init__(self):
        super().__init__("cpu", 0)


class CUDAPlace(Place):
    __slots__ = ()

    def __init__(self, device_id=0):
        _require_cuda(device_id)
        super().__init__("gpu", device_id)


class CUDAPinnedPlace(Place):
    __slots__ = ()

    def __init__(self):
        if not torch.cuda.is_available():
            raise RuntimeError("Cannot use CUDAPinnedPlace without CUDA: torch has no visible GPU")
        super().__init__("gpu_pinned", 0)

    @property
    def torch_device(self):
        return torch.device("cpu")


class XPUPlace(Place):
    __slots__ = ()

    def __init__(self, device_id=0):
        raise ValueError("use wrong place: XPUPlace is not supported, torchpaddle is not compiled with XPU")


def is_compiled_with_cuda():
    return torch.cuda.is_available()


def is_compiled_with_xpu():
    return False


def is_compiled_with_rocm():
    return bool(getattr(torch.version, "hip", None))


def get_cudnn_version():
    if not torch.cuda.is_available():
        return None
    return torch.backends.cudnn.version()


class _DeviceState:
    __slots__ = ("device", "place")


_STATE = _DeviceState()
_STATE.device = torch.device("cuda", 0) if torch.cuda.is_available() else torch.device("cpu")
_STATE.place = Place("gpu", 0) if torch.cuda.is_available() else Place("cpu", 0)


def current_torch_device():
    return _STATE.device


@contextlib.contextmanager
def running_on(device):
    """Ops that create tensors (fill_constant, the random ops...) put them on the torch ``device`` inside: an
    Executor runs its programs on its own place, whatever the current device is."""
    old = _STATE.device
    if old == device:
        yield
        return
    _STATE.device = device
    try:
        yield
    finally:
        _STATE.device = old


def _parse_device(device):
    if isinstance(device, Place):
        return device
    if isinstance(device, int) and not isinstance(device, bool):
        device = f"gpu:{device}"
    if not isinstance(device, str):
        raise ValueError(f"set_device: device must be a str like 'cpu' or 'gpu:0', or a Place, "
                         f"got {type(device).__name__}")
    text = device.strip().lower()
    if text == "cpu":
        return Place("cpu", 0)
    kind, _, index = text.partition(":")
    if kind in ("gpu", "cuda"):
        if not torch.cuda.is_available():
            raise ValueError(f"The device should not be '{device}', since torchpaddle is not compiled with CUDA")
        device_id = int(index) if index else 0
        _require_cuda(device_id)
        return Place("gpu", device_id)
    if kind in ("xpu", "npu", "mlu", "ipu", "custom_cpu"):
        raise ValueError(f"The device should not be '{device}', since torchpaddle is not compiled with {kind.upper()}")
    raise ValueError(f"The device must be a string which is like 'cpu', 'gpu', 'gpu:x', got '{device}'")


def set_device(device):
    place = _parse_device(device)
    _STATE.place = place
    _STATE.device = place.torch_device
    if place._kind == "gpu":
        torch.cuda.set_device(place._id)
    return place


def get_device(input=None):
    """The current device ('cpu', 'gpu:0'...); of a Tensor ``input``, its GPU index (-1 on the CPU), as in Paddle."""
    if input is not None:
        place = input.place
        return place._id if place._kind == "gpu" else -1
    place = _STATE.place
    return "cpu" if place._kind in ("cpu", "gpu_pinned") else f"{place._kind}:{place._id}"


def to_torch_device(place):
    """A place-like (None, Place, str) -> torch.device."""
    if place is None:
        return _STATE.device
    if isinstance(place, Place):
        return place.torch_device
    return _parse_device(place).torch_device


def place_of(torch_device):
    if torch_device.type == "cuda":
        return Place("gpu", torch_device.index or 0)
    return Place("cpu", 0)

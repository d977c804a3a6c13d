"""static.data, InputSpec, create_parameter, WeightNormParamAttr, cpu_places/cuda_places."""
import numpy as np

from ..framework import dtype as _dtype
from ..framework.param_attr import WeightNormParamAttr  # noqa: F401  (paddle.static.WeightNormParamAttr)
from ..framework.place import CPUPlace, CUDAPlace, is_compiled_with_cuda
from ..framework.program import default_main_program
from ..framework.tensor import Tensor

__all__ = ["data", "InputSpec", "create_parameter", "WeightNormParamAttr", "cpu_places", "cuda_places"]


def _shape(shape, who):
    if isinstance(shape, int):
        shape = [shape]
    if not isinstance(shape, (list, tuple)):
        raise TypeError(f"{who}: shape must be a list or tuple, got {type(shape).__name__}")
    out = []
    for i, d in enumerate(shape):
        if d is None:
            out.append(-1)
        elif isinstance(d, (int, np.integer)) and not isinstance(d, bool):
            if d < -1:
                raise ValueError(f"{who}: shape[{i}] must be >= -1 (or None), got {d}")
            out.append(int(d))
        else:
            raise TypeError(f"{who}: shape[{i}] must be an int or None, got {type(d).__name__}")
    return out


def data(name, shape, dtype=None, lod_level=0):
    """A feed variable of the global block: None or -1 in ``shape`` is a dimension known only when fed."""
    if not isinstance(name, str):
        raise TypeError(f"static.data: name must be a str, got {type(name).__name__}")
    shape = _shape(shape, "static.data")
    d = _dtype.convert_dtype(dtype if dtype is not None else _dtype.get_default_dtype())
    block = default_main_program().global_block()
    return block.create_var(name=name, shape=shape, dtype=d, stop_gradient=True, lod_level=lod_level,
                            is_data=True, need_check_feed=True)


class InputSpec:
    """The shape, dtype and name of a model input (``paddle.static.InputSpec``)."""

    def __init__(self, shape, dtype="float32", name=None, stop_gradient=False):
        self.shape = tuple(_shape(shape, "InputSpec"))
        self.dtype = _dtype.convert_dtype(dtype)
        self.name = name
        self.stop_gradient = stop_gradient

    @classmethod
    def from_tensor(cls, tensor, name=None):
        if not isinstance(tensor, Tensor):
            raise ValueError(f"InputSpec.from_tensor: expected a Tensor, got {type(tensor).__name__}")
        return cls(tensor.shape, tensor.dtype, name if name is not None else getattr(tensor, "_name", None))

    @classmethod
    def from_numpy(cls, ndarray, name=None):
        return cls(ndarray.shape, ndarray.dtype, name)

    def batch(self, batch_size):
        if isinstance(batch_size, (list, tuple)):
            if len(batch_size) != 1:
                raise ValueError(f"InputSpec.batch: batch_size must be an int or a 1-element list, got {batch_size}")
            batch_size = batch_size[0]
        if not isinstance(batch_size, int):
            raise TypeError(f"InputSpec.batch: batch_size must be an int, got {type(batch_size).__name__}")
        self.shape = (batch_size,) + self.shape
        return self

    def unbatch(self):
        if not self.shape:
            raise ValueError("InputSpec.unbatch: shape is already empty")
        self.shape = self.shape[1:]
        return self

    def _create_feed_layer(self):
        return data(self.name, self.shape, self.dtype)

    def __repr__(self):
        return f"InputSpec(shape={self.shape}, dtype={self.dtype}, name={self.name}, " \
               f"stop_gradient={self.stop_gradient})"

    def __eq__(self, other):
        return isinstance(other, InputSpec) and (self.shape, self.dtype, self.name, self.stop_gradient) == \
            (other.shape, other.dtype, other.name, other.stop_gradient)

    def __hash__(self):
        return hash((self.shape, self.dtype.name, self.name, self.stop_gradient))


def cpu_places(device_count=None):
    """``device_count`` CPUPlaces (default: $CPU_NUM, else the number of cores)."""
    import os
    if device_count is None:
        device_count = int(os.environ.get("CPU_NUM", os.cpu_count() or 1))
    if not isinstance(device_count, int) or device_count < 1:
        raise ValueError(f"cpu_places: device_count must be a positive int, got {device_count!r}")
    return [CPUPlace() for _ in range(device_count)]


def cuda_places(device_ids=None):
    if not is_compiled_with_cuda():
        raise RuntimeError("cuda_places: torchpaddle is not running with CUDA (no GPU is visible to torch)")
    import torch
    if device_ids is None:
        device_ids = range(torch.cuda.device_count())
    elif isinstance(device_ids, int):
        device_ids = [device_ids]
    return [CUDAPlace(i) for i in device_ids]

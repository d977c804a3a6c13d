"""paddle.device.FloatTensor and its siblings: calling one makes a Tensor of that dtype on the current device
(no arguments: an empty one; ints: uninitialised of that shape; a list or tuple: its values)."""
import numpy as np
import torch

from ..framework.place import current_torch_device
from ..framework.tensor import Tensor, wrap

__all__ = ["FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "ByteTensor", "CharTensor",
           "ShortTensor", "IntTensor", "LongTensor", "BoolTensor"]


def _factory(name, torch_dtype):
    def make(cls, *args, **kwargs):
        device = current_torch_device()
        if not args and not kwargs:
            return wrap(torch.empty([0], dtype=torch_dtype, device=device))
        if kwargs:
            raise TypeError(f"{name}() takes its data or its shape positionally, got keyword arguments "
                            f"{sorted(kwargs)}")
        if all(isinstance(a, int) and not isinstance(a, bool) for a in args):
            return wrap(torch.empty(list(args), dtype=torch_dtype, device=device))
        if len(args) != 1:
            raise TypeError(f"{name}() takes one list/array or integer sizes, got {len(args)} arguments")
        data = args[0]
        if isinstance(data, (list, tuple)):
            return wrap(torch.as_tensor(np.asarray(data)).to(device=device, dtype=torch_dtype))
        # NOTE: Paddle 3.3.1 hands anything else to paddle.Tensor(data, dtype=...), which keeps data's own dtype
        if isinstance(data, Tensor):
            return wrap(data._t.detach().to(device=device))
        return wrap(torch.as_tensor(np.asarray(data)).to(device=device))
    return type(name, (), {"__new__": make, "__doc__": f"A {str(torch_dtype)[6:]} Tensor maker."})


FloatTensor = _factory("FloatTensor", torch.float32)
DoubleTensor = _factory("DoubleTensor", torch.float64)
HalfTensor = _factory("HalfTensor", torch.float16)
BFloat16Tensor = _factory("BFloat16Tensor", torch.bfloat16)
ByteTensor = _factory("ByteTensor", torch.uint8)
CharTensor = _factory("CharTensor", torch.int8)
ShortTensor = _factory("ShortTensor", torch.int16)
IntTensor = _factory("IntTensor", torch.int32)
LongTensor = _factory("LongTensor", torch.int64)
BoolTensor = _factory("BoolTensor", torch.bool)

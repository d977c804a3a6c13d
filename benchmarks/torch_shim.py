"""A ``paddle``-shaped namespace over raw torch, so the plain-PyTorch column runs the same workload code.

Each Paddle name the workloads use is bound directly to the torch function where the positional call
matches (no wrapper, no Tensor class): tensors are plain ``torch.Tensor``. Only ``to_tensor`` (setup, not
timed) is a Python function. Add names here as workloads need them; keep them direct bindings.
"""
import types

import numpy as np
import torch
import torch.utils.data

__all__ = ["to_tensor", "add", "subtract", "multiply", "divide", "tanh", "exp", "matmul", "transpose",
           "reshape", "mean", "sum", "Tensor", "float32", "float64", "int64", "no_grad", "io", "torch"]

Tensor = torch.Tensor
float32, float64, int64 = torch.float32, torch.float64, torch.int64

add = torch.add
subtract = torch.sub
multiply = torch.mul
divide = torch.true_divide
tanh = torch.tanh
exp = torch.exp
matmul = torch.matmul                # paddle.matmul(x, y): 2-D and batched match torch.matmul
transpose = torch.permute           # paddle.transpose(x, perm) is torch.permute(x, dims)
reshape = torch.reshape              # paddle.reshape(x, shape) with a list shape
mean = torch.mean                    # torch accepts axis=/keepdim= as aliases of dim=/keepdim=
sum = torch.sum  # noqa: A001
no_grad = torch.no_grad
# paddle.io.DataLoader(dataset, batch_size=, shuffle=, num_workers=) takes the same keywords as torch's.
io = types.SimpleNamespace(Dataset=torch.utils.data.Dataset, DataLoader=torch.utils.data.DataLoader)
# The training workloads' plain-torch versions (``@wl.backend("torch")``) reach torch itself through ``shim.torch``.


def to_tensor(data, dtype=None, place=None, stop_gradient=True):
    t = torch.from_numpy(np.array(data, copy=True)) if not isinstance(data, torch.Tensor) else data.clone()
    if dtype is not None:
        t = t.to(getattr(torch, str(dtype).replace("paddle.", "")) if isinstance(dtype, str) else dtype)
    if not stop_gradient:
        t.requires_grad_(True)
    return t

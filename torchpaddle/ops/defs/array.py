"""Ops of LoDTensorArrays (Paddle's VarType LOD_TENSOR_ARRAY): a variable whose value is a Python list of
tensors while a program runs. ``write_to_array`` changes the array it writes in place, which its Out slot names
but no input slot does, so the executor runs it with its own step (static/control_flow_exec.py) that hands the
array to ``write_array``; the kernel alone writes into a new array."""
import torch

from ..registry import op

__all__ = ["write_array"]


def _index(I, op_type):
    if I.numel() != 1:
        raise ValueError(f"{op_type}: I must hold one element, got shape {list(I.shape)}")
    if I.is_floating_point() or I.is_complex() or I.dtype is torch.bool:
        raise TypeError(f"{op_type}: I must be an integer tensor, got {I.dtype}")
    index = int(I.reshape(-1)[0])
    if index < 0:
        raise IndexError(f"{op_type}: I is {index}; an array index must not be negative")
    return index


def write_array(array, X, I):
    """array[I] = X, growing the array (with empty tensors, as Paddle does) when I is past its end."""
    index = _index(I, "write_to_array")
    while len(array) <= index:
        array.append(torch.empty([0], dtype=X.dtype, device=X.device))
    array[index] = X
    return array


@op("write_to_array", inputs=["X", "I"], outputs=["Out"])
def write_to_array(X, I):
    """Out[I] = X (Out: the array, changed in place by the executor's step)."""
    return write_array([], X, I)


@op("read_from_array", inputs=["X", "I", "X_W?"], outputs=["Out"])
def read_from_array(X, I, X_W):
    """Out = X[I] of the array X."""
    index = _index(I, "read_from_array")
    if index >= len(X):
        raise IndexError(f"read_from_array: I is {index}, but the array holds {len(X)} tensors")
    return X[index]


@op("lod_array_length", inputs=["X"], outputs=["Out"], differentiable=False)
def lod_array_length(X):
    """Out = len(X), an int64 tensor of shape [1]."""
    return torch.tensor([len(X)], dtype=torch.int64)


@op("tensor_array_to_tensor", inputs=["X"], outputs=["Out", "OutIndex"], attrs={"axis": 0, "use_stack": False})
def tensor_array_to_tensor(X, *, axis, use_stack):
    """Out = stack(X, axis) or concat(X, axis); OutIndex = each tensor's size along axis (int32)."""
    if len(X) == 0:
        raise ValueError("tensor_array_to_tensor: the array X is empty")
    out = torch.stack(list(X), dim=axis) if use_stack else torch.cat(list(X), dim=axis)
    sizes = [1 if use_stack else t.shape[axis] for t in X]
    return out, torch.tensor(sizes, dtype=torch.int32, device=out.device)

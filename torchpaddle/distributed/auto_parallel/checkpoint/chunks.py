"""Shared by save and load: flattening nested state dicts to Paddle's dotted keys, and the chunk of a global
tensor this process holds (a dense tensor: all of it; a dist tensor: its local shard; a ShardedWeight: what it
says)."""
import torch
from torch.distributed.tensor import DTensor, Partial as _Partial, Replicate as _Replicate
from torch.distributed.tensor._utils import compute_local_shape_and_global_offset

from ....framework.tensor import Tensor
from ..reshard import redistribute as _redistribute
from .sharded_weight import ShardedWeight

__all__ = ["flatten_state_dict", "Chunk", "chunk_of", "dist_chunk", "dtype_name"]


def flatten_state_dict(state_dict, api):
    """{"model": {"w": t}} -> ({"model.w": t}, {"model.w": ("model", "w")})."""
    if not isinstance(state_dict, dict):
        raise TypeError(f"{api}: state_dict must be a dict, got {type(state_dict).__name__}")
    flat, mapping = {}, {}

    def walk(path, value):
        if isinstance(value, dict):
            for key, item in value.items():
                if not isinstance(key, str):
                    raise TypeError(f"{api}: state_dict keys must be str, got {key!r} under {'.'.join(path)!r}")
                walk((*path, key), item)
        elif isinstance(value, (Tensor, ShardedWeight)):
            flat[".".join(path)] = value
            mapping[".".join(path)] = path
        else:
            raise ValueError(f"{api}: the value of {'.'.join(path)!r} should be a dict, paddle.Tensor or "
                             f"ShardedWeight, got {type(value).__name__}")

    walk((), state_dict)
    return flat, mapping


class Chunk:
    """``local`` (a torch tensor, or None when this process holds none of the tensor) is
    ``global[offset : offset + shape]`` of a tensor of ``global_shape``."""
    __slots__ = ("local", "offset", "shape", "global_shape")

    def __init__(self, local, offset, shape, global_shape):
        self.local, self.offset, self.shape, self.global_shape = local, offset, shape, global_shape


def chunk_of(value):
    """This process's chunk of a state-dict value; a Partial dist tensor is summed first (collective over its
    mesh), so what is saved is its global value."""
    if isinstance(value, ShardedWeight):
        return Chunk(value.local_tensor._t, value.global_offset, value.local_shape, value.global_shape)
    t = value._t
    if not isinstance(t, DTensor):
        shape = tuple(t.shape)
        return Chunk(t, (0,) * len(shape), shape, shape)
    if any(isinstance(p, _Partial) for p in t.placements):
        t = _redistribute(t, tuple(_Replicate() if isinstance(p, _Partial) else p for p in t.placements))
    return dist_chunk(t.to_local(), t.device_mesh, t.placements, tuple(t.shape))


def dist_chunk(local, mesh, placements, global_shape):
    if mesh.get_coordinate() is None:   # this process is not in the tensor's mesh
        return Chunk(None, None, None, global_shape)
    plain = tuple(_Replicate() if isinstance(p, _Partial) else p for p in placements)
    shape, offset = compute_local_shape_and_global_offset(global_shape, mesh, plain)
    return Chunk(local, tuple(offset), tuple(shape), global_shape)


def dtype_name(t):
    """Paddle's dtype string for a torch tensor: "float32", "bfloat16"..."""
    return DTYPE_NAMES.get(t.dtype) or str(t.dtype).replace("torch.", "")


DTYPE_NAMES = {torch.bool: "bool", torch.uint8: "uint8", torch.int8: "int8", torch.int16: "int16",
               torch.int32: "int32", torch.int64: "int64", torch.float16: "float16", torch.bfloat16: "bfloat16",
               torch.float32: "float32", torch.float64: "float64", torch.complex64: "complex64",
               torch.complex128: "complex128"}

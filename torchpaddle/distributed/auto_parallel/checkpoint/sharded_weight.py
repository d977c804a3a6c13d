"""``ShardedWeight``: one process's piece of a global tensor described by hand (key, local tensor, global shape
and offset), for checkpoints of models sharded without dist tensors; ``build_sharded_state_dict``."""
import collections
from dataclasses import dataclass
from typing import Union

from ....framework.tensor import Tensor

__all__ = ["ShardedWeight", "ShardedWeightDesc", "ShardedStateDict", "shard_weight", "make_replicated_sharded_weight",
           "make_tp_sharded_weight_for_checkpoint", "build_sharded_state_dict"]


@dataclass(frozen=True)
class ShardedWeightDesc:
    key: str
    local_shape: tuple
    global_shape: tuple
    global_offset: tuple
    dtype: str = None


def _int_tuple(value, what, key):
    try:
        out = tuple(int(v) for v in value)
    except TypeError:
        raise TypeError(f"ShardedWeight {key!r}: {what} must be a sequence of ints, got {value!r}") from None
    if any(v < 0 for v in out):
        raise ValueError(f"ShardedWeight {key!r}: {what} must be non-negative, got {out}")
    return out


class ShardedWeight:
    """A local shard of a parameter: ``local_tensor`` holds ``global[offset:offset+local_shape]``."""

    def __init__(self, key, local_tensor, local_shape, global_shape, global_offset, is_flattened=False,
                 flattened_range=None):
        if not isinstance(key, str):
            raise TypeError(f"ShardedWeight: key must be a str, got {type(key).__name__}")
        if not isinstance(local_tensor, Tensor):
            raise TypeError(f"ShardedWeight {key!r}: local_tensor must be a paddle.Tensor, "
                            f"got {type(local_tensor).__name__}")
        if is_flattened or flattened_range is not None:
            raise NotImplementedError(f"ShardedWeight {key!r}: flattened shards (is_flattened/flattened_range) "
                                      "are not supported by torchpaddle")
        self.key = key
        if local_tensor.is_dist():
            name = local_tensor.name
            self.local_tensor = local_tensor._local_value()
            self.local_tensor.name = name
            self.local_shape = tuple(local_tensor._local_shape)
        else:
            self.local_tensor = local_tensor
            self.local_shape = _int_tuple(local_shape, "local_shape", key)
        self.global_shape = _int_tuple(global_shape, "global_shape", key)
        self.global_offset = _int_tuple(global_offset, "global_offset", key)
        self.is_flattened = False
        self.flattened_range = None
        shape = tuple(self.local_tensor.shape)
        if shape != self.local_shape:
            raise ValueError(f"ShardedWeight {key!r}: local_tensor has shape {list(shape)}, "
                             f"local_shape says {list(self.local_shape)}")
        if not (len(self.local_shape) == len(self.global_shape) == len(self.global_offset)) or any(
                o + s > g for o, s, g in zip(self.global_offset, self.local_shape, self.global_shape)):
            raise ValueError(f"ShardedWeight {key!r}: a shard of shape {list(self.local_shape)} at offset "
                             f"{list(self.global_offset)} does not fit in global shape {list(self.global_shape)}")

    def __str__(self):
        return (f"ShardedWeight(\n  key={self.key},\n  local_tensor={type(self.local_tensor).__name__}"
                f"(shape={self.local_tensor.shape}),\n  local_shape={self.local_shape},\n"
                f"  global_shape={self.global_shape},\n  global_offset={self.global_offset},\n"
                f"  flattened_range={self.flattened_range}\n)")


ShardedStateDict = Union[dict[str, ShardedWeight], collections.OrderedDict[str, ShardedWeight]]


def shard_weight(key, weight, axis, group):
    """``weight`` is this rank's equal piece, along ``axis``, of a tensor split over ``group``."""
    if not 0 <= axis < len(weight.shape):
        raise ValueError(f"Shard axis {axis} is invalid for tensor with shape {weight.shape}")
    local_shape = tuple(weight.shape)
    global_shape = list(local_shape)
    global_shape[axis] *= group.nranks
    offset = [0] * len(local_shape)
    offset[axis] = group.rank * local_shape[axis]
    return ShardedWeight(key, weight, local_shape, tuple(global_shape), tuple(offset))


def make_tp_sharded_weight_for_checkpoint(key, tensor, tensor_parallel_axis=0):
    """A tensor-parallel piece over fleet's model-parallel group."""
    from ...fleet import get_hybrid_communicate_group
    hcg = get_hybrid_communicate_group()
    if hcg is None:
        raise RuntimeError("make_tp_sharded_weight_for_checkpoint: call fleet.init(is_collective=True, "
                           "strategy=...) with hybrid_configs first")
    return shard_weight(key, tensor, tensor_parallel_axis, hcg.get_model_parallel_group())


def make_replicated_sharded_weight(key, tensor):
    """Every process holds the whole tensor."""
    shape = tuple(tensor.shape)
    return ShardedWeight(key, tensor, shape, shape, (0,) * len(shape))


def build_sharded_state_dict(state_dict, shard_rules=None, prefix=""):
    """ShardedWeights for a state dict: keys in ``shard_rules`` are tensor-parallel pieces along the given
    axis, the rest replicated; keys get ``prefix`` prepended."""
    if not isinstance(state_dict, dict):
        raise TypeError(f"build_sharded_state_dict: state_dict must be a dict, got {type(state_dict).__name__}")
    shard_rules = shard_rules or {}
    out = {}
    for key, tensor in state_dict.items():
        full_key = f"{prefix}{key}" if prefix else key
        if key in shard_rules:
            out[full_key] = make_tp_sharded_weight_for_checkpoint(full_key, tensor, shard_rules[key])
        else:
            out[full_key] = make_replicated_sharded_weight(full_key, tensor)
    return out

"""paddle.distributed.split: a linear or embedding layer whose weight is split over the ranks (model parallel).

Works in static mode (as Paddle: parameters in the program, c_split/c_identity/c_embedding/mp_allreduce_sum/
c_concat ops) and, unlike Paddle (which refuses dygraph and points to fleet's Parallel* layers), in dygraph
mode too, where every call creates new parameters of this rank's part (as Paddle 2.0's dygraph example
did); the gradients flow through the same ops' backward collectives.
Rank and partition come from the default group; ``num_partitions`` must be its size (the ops run over the
whole default group, ring 0) or 1 (a plain local layer, no communication).
"""
from .. import ops as _ops
from ..framework import dtype as _dtype
from ..framework.mode import STATE as _MODE
from ..nn import functional as F
from ..nn.layer.common import Linear
from ..nn.layer.layers import create_parameter_for
from . import group as _group

__all__ = ["split"]


def _rank_and_size(num_partitions):
    if _MODE.static:
        from .env import _global_env
        env = _global_env()
        return env.rank, env.world_size
    group = _group._default_group("paddle.distributed.split")
    return group.rank, group.nranks


def _check(x, size, operation, axis, num_partitions, gather_out):
    if not isinstance(size, (list, tuple)):
        raise TypeError(f"paddle.distributed.split: size must be a list or tuple, got {type(size).__name__}")
    if len(size) != 2 or not all(isinstance(s, int) and not isinstance(s, bool) and s > 0 for s in size):
        raise ValueError(f"paddle.distributed.split: size must be two positive ints (the weight's shape), "
                         f"got {list(size)}")
    if not isinstance(operation, str):
        raise TypeError(f"paddle.distributed.split: operation must be a str, got {type(operation).__name__}")
    if operation not in ("linear", "embedding"):
        raise ValueError(f"paddle.distributed.split: operation must be one of ['linear', 'embedding'], got "
                         f"{operation!r}")
    if not isinstance(num_partitions, int) or isinstance(num_partitions, bool) or num_partitions < 1:
        raise ValueError(f"paddle.distributed.split: num_partitions must be a positive int, got {num_partitions!r}")
    if axis not in (0, 1) or isinstance(axis, bool):
        raise ValueError(f"paddle.distributed.split: the value of axis must be 0 or 1, but the value given is "
                         f"{axis!r}")
    if operation == "embedding" and axis != 0:
        raise ValueError("paddle.distributed.split: the weight of an embedding is split along axis 0 only")
    if size[axis] % num_partitions:
        raise ValueError(f"paddle.distributed.split: size[{axis}]={size[axis]} must be divisible by "
                         f"num_partitions={num_partitions}")
    if not isinstance(gather_out, bool):
        raise TypeError(f"paddle.distributed.split: gather_out must be a bool, got {type(gather_out).__name__}")


def split(x, size, operation, axis=0, num_partitions=1, gather_out=True, weight_attr=None, bias_attr=None,
          name=None):
    """Split the weight of ``operation`` ('linear' or 'embedding', weight shape ``size``) into
    ``num_partitions`` parts, one per rank, and compute the layer in parallel."""
    _check(x, size, operation, axis, num_partitions, gather_out)
    rank, nranks = 0, 1
    if num_partitions > 1:
        rank, nranks = _rank_and_size(num_partitions)
        if nranks != num_partitions:
            raise ValueError(f"paddle.distributed.split: num_partitions={num_partitions} must equal the number of "
                             f"ranks of the default group ({nranks}); the parts communicate over all of them")
    part = rank % num_partitions
    if operation == "embedding":
        return _embedding(x, size, part, num_partitions, weight_attr, name)
    if axis == 0:
        return _row_linear(x, size, part, num_partitions, gather_out, weight_attr, bias_attr, name)
    return _column_linear(x, size, part, num_partitions, gather_out, weight_attr, bias_attr, name)


def _embedding(x, size, part, parts, weight_attr, name):
    rows = size[0] // parts
    weight = create_parameter_for([rows, size[1]], _dtype.get_default_dtype(), None, weight_attr, False, None,
                                  "paddle.distributed.split", name_prefix=name)
    if parts == 1:
        return F.embedding(x, weight)
    # ids outside this rank's rows [part * rows, (part + 1) * rows) look up zeros; the sum completes them
    out = _ops.c_embedding(weight, x, start_index=part * rows, vocab_size=size[0])
    return _ops.mp_allreduce_sum(out, ring_id=0)


def _row_linear(x, size, part, parts, gather_out, weight_attr, bias_attr, name):
    """Rows of the weight split: each rank multiplies its slice of x's last axis (split here when x has all
    of it), then the partial products are summed; the bias, whole on every rank, is added after the sum."""
    linear = Linear(size[0] // parts, size[1], weight_attr=weight_attr, bias_attr=bias_attr, name=name)
    if parts == 1:
        return F.linear(x, linear.weight, linear.bias)
    if x.shape[-1] == size[0]:
        x = _ops.c_split(x, ring_id=0, rank=part, nranks=parts, use_model_parallel=True)
    out = F.linear(x, linear.weight, None)
    if not gather_out:
        # NOTE: Paddle returns the partial product here, without the bias
        return out
    out = _ops.mp_allreduce_sum(out, ring_id=0)
    return out if linear.bias is None else out + linear.bias


def _column_linear(x, size, part, parts, gather_out, weight_attr, bias_attr, name):
    """Columns of the weight (and the bias) split: each rank computes its columns of the output; gather_out
    concatenates them along the last axis."""
    linear = Linear(size[0], size[1] // parts, weight_attr=weight_attr, bias_attr=bias_attr, name=name)
    if parts == 1:
        return F.linear(x, linear.weight, linear.bias)
    # identity forward; the backward sums x's gradient over the ranks, each having used x for its columns
    x = _ops.c_identity(x, ring_id=0, use_calc_stream=True, use_model_parallel=True)
    out = F.linear(x, linear.weight, linear.bias)
    if not gather_out:
        return out
    return _ops.c_concat(out, ring_id=0, rank=part, nranks=parts, use_calc_stream=True, use_model_parallel=True)

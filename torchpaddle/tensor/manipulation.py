"""Shape manipulation and indexing functions: reshape, squeeze, concat, split, gather, scatter, unique...

Each function only normalises Paddle's arguments (shapes given as lists, tuples, ints or Tensors; axes as
ints or Tensors) and calls its op. In-place variants make the given Tensor hold the result and return it.
"""
import numbers

import numpy as np
import torch

from .. import ops as _ops
from ..framework import dtype as _dtype
from ..framework.tensor import PaddleAssertionError, Tensor, wrap
from ..ops.defs.manipulation import ArgTypeError, AxisError, DtypeError

__all__ = ["cast", "reshape", "reshape_", "view", "view_as", "squeeze", "squeeze_", "unsqueeze", "unsqueeze_",
           "flatten", "flatten_", "transpose", "transpose_", "t", "t_", "moveaxis", "expand", "broadcast_to",
           "expand_as", "tile", "flip", "roll", "rot90", "concat", "stack", "split", "chunk", "unbind", "unstack",
           "slice", "strided_slice", "crop", "shape", "rank", "is_empty", "repeat_interleave", "as_complex",
           "as_real", "gather", "gather_nd", "index_select", "index_sample", "take_along_axis", "put_along_axis",
           "scatter", "scatter_", "scatter_nd", "scatter_nd_add", "masked_select", "masked_fill", "masked_fill_",
           "multiplex", "shard_index", "unique", "unique_consecutive"]
__methods__ = [n for n in __all__ if n not in ("shape", "crop")] + ["put_along_axis_"]


# -- argument normalisation ---------------------------------------------------------------------------------

def _is_int(v):
    return isinstance(v, (int, np.integer))


def _ints(api, arg, value, allow_int=True, container_exc=TypeError):
    """A shape-like argument (list/tuple of ints or 1-element Tensors, a Tensor, an int) -> list of ints."""
    if isinstance(value, Tensor):
        if value._t.is_floating_point():
            raise TypeError(f"{api}: {arg} must hold integers, got a {value.dtype} Tensor")
        return [int(v) for v in value._t.reshape(-1).tolist()]
    if isinstance(value, (list, tuple)):
        out = []
        for v in value:
            if _is_int(v):
                out.append(int(v))
            elif isinstance(v, Tensor):
                out.append(v.__index__())
            else:
                raise TypeError(f"{api}: {arg} must hold ints, got {type(v).__name__} in {value!r}")
        return out
    if allow_int and _is_int(value):
        return [int(value)]
    raise container_exc(f"{api}: {arg} must be a list, tuple{', int' if allow_int else ''} or Tensor, "
                        f"got {type(value).__name__}")


def _int(api, arg, value, exc=TypeError):
    if _is_int(value):
        return int(value)
    if isinstance(value, float) and value.is_integer():  # Paddle lets an integral float through
        return int(value)
    if isinstance(value, Tensor):
        return value.__index__()
    raise exc(f"{api}: {arg} must be an int, got {type(value).__name__}")


def _rebind(x, out, api):
    """Make Tensor ``x`` hold ``out``'s value: in its own storage when shapes allow, else by rebinding."""
    t, new = x._t, out._t
    if t.requires_grad and torch.is_grad_enabled():
        if t.is_leaf:
            raise ValueError(f"{api}: Leaf Tensor ({x.name}) that doesn't stop gradient can't use inplace strategy.")
        x._t = new
    elif new.requires_grad and torch.is_grad_enabled():
        x._t = new
    elif new.shape == t.shape and new.dtype is t.dtype and new.data_ptr() != t.data_ptr():
        with torch.no_grad():
            t.copy_(new)
    else:
        if t.requires_grad and not new.requires_grad:  # a leaf changed under no_grad stays a leaf
            new = new.detach().requires_grad_(True)
        x._t = new
    return x


# -- cast and shape queries ---------------------------------------------------------------------------------

def cast(x, dtype):
    # NOTE: like Paddle (which goes through np.dtype), dtype=None means float64.
    target = _dtype.convert_dtype("float64" if dtype is None else dtype)
    out = _ops.cast(x, in_dtype=x.dtype.proto if isinstance(x, Tensor) else -1, out_dtype=target.proto)
    if isinstance(out, Tensor) and isinstance(x, Tensor) and x._t.requires_grad and not out._t.requires_grad:
        out._sg_false = True  # Paddle keeps stop_gradient=False on an integer cast of a differentiable input
    return out


def shape(input):
    return _ops.shape(input)


def rank(input):
    t = input._t if isinstance(input, Tensor) else np.asarray(input)
    return wrap(torch.tensor(t.ndim, dtype=torch.int32))


def is_empty(x, name=None):
    return _ops.is_empty(x)


# -- reshape family -----------------------------------------------------------------------------------------

def reshape(x, shape, name=None):
    return _ops.reshape2(x, shape=_ints("reshape", "shape", shape, container_exc=ValueError))


def reshape_(x, shape, name=None):
    return _rebind(x, reshape(x, shape), "reshape_")


def view(x, shape_or_dtype, name=None):
    if isinstance(shape_or_dtype, (list, tuple)):
        return _ops.view_shape(x, dims=_ints("view", "shape_or_dtype", shape_or_dtype))
    out = _ops.view_dtype(x, dtype=_dtype.convert_dtype(shape_or_dtype).proto)
    if isinstance(out, Tensor) and x._t.requires_grad and not out._t.requires_grad:
        out._sg_false = True  # as for cast: an integer view of a differentiable input keeps stop_gradient=False
    return out


def view_as(x, other, name=None):
    return _ops.view_shape(x, dims=list(other.shape))


def _axes(api, axis):
    return [] if axis is None else _ints(api, "axis", axis)


def squeeze(x, axis=None, name=None):
    return _ops.squeeze2(x, axes=_axes("squeeze", axis))


def squeeze_(x, axis=None, name=None):
    return _rebind(x, squeeze(x, axis), "squeeze_")


def unsqueeze(x, axis, name=None):
    return _ops.unsqueeze2(x, axes=_ints("unsqueeze", "axis", axis))


def unsqueeze_(x, axis, name=None):
    return _rebind(x, unsqueeze(x, axis), "unsqueeze_")


def flatten(x, start_axis=0, stop_axis=-1, name=None):
    if not (_is_int(start_axis) and _is_int(stop_axis)):
        raise ValueError(f"flatten: start_axis and stop_axis must be ints, got {start_axis!r} and {stop_axis!r}")
    return _ops.flatten_contiguous_range(x, start_axis=int(start_axis), stop_axis=int(stop_axis))


def flatten_(x, start_axis=0, stop_axis=-1, name=None):
    return _rebind(x, flatten(x, start_axis, stop_axis), "flatten_")


def transpose(x, perm, name=None):
    if not isinstance(perm, (list, tuple)):
        raise ArgTypeError(f"transpose: perm must be a list or tuple, got {type(perm).__name__}")
    return _ops.transpose2(x, axis=_ints("transpose", "perm", perm))


def transpose_(x, perm, name=None):
    return _rebind(x, transpose(x, perm), "transpose_")


def t(input, name=None):
    ndim = input.ndim
    if ndim > 2:
        raise ValueError(f"t: input must be at most 2-D, got shape {list(input.shape)}; use transpose")
    return _ops.transpose2(input, axis=[1, 0] if ndim == 2 else list(range(ndim)))


def t_(input, name=None):
    return _rebind(input, t(input), "t_")


def moveaxis(x, source, destination, name=None):
    src = _ints("moveaxis", "source", source, container_exc=TypeError)
    dst = _ints("moveaxis", "destination", destination, container_exc=TypeError)
    if len(src) != len(dst):
        raise PaddleAssertionError(f"moveaxis: source {src} and destination {dst} must have the same length")
    ndim = x.ndim
    for name_, values in (("source", src), ("destination", dst)):
        for a in values:
            if not -ndim <= a < ndim:
                raise PaddleAssertionError(f"moveaxis: {name_} axis {a} is out of range [{-ndim}, {ndim})")
    src = [a % ndim for a in src]
    dst = [a % ndim for a in dst]
    for name_, values in (("source", src), ("destination", dst)):
        if len(set(values)) != len(values):
            raise ValueError(f"moveaxis: each element of {name_} must be unique, got {values}")
    perm = [None] * ndim
    for s, d in zip(src, dst):
        perm[d] = s
    rest = iter(a for a in range(ndim) if a not in src)
    perm = [p if p is not None else next(rest) for p in perm]
    return _ops.transpose2(x, axis=perm)


# -- expand / tile / flip / roll / rot90 -------------------------------------------------------------------

def expand(x, shape, name=None):
    return _ops.expand_v2(x, shape=_ints("expand", "shape", shape))


def broadcast_to(x, shape, name=None):
    return _ops.expand_v2(x, shape=_ints("broadcast_to", "shape", shape))


def expand_as(x, y, name=None):
    return _ops.expand_as_v2(x, None, target_shape=list(y.shape))


def tile(x, repeat_times, name=None):
    return _ops.tile(x, repeat_times=_ints("tile", "repeat_times", repeat_times))


def flip(x, axis, name=None):
    return _ops.flip(x, axis=_ints("flip", "axis", axis))


def roll(x, shifts, axis=None, name=None):
    return _ops.roll(x, shifts=_ints("roll", "shifts", shifts), axis=_axes("roll", axis))


def rot90(x, k=1, axes=[0, 1], name=None):  # noqa: B006 - Paddle's signature
    axes = _ints("rot90", "axes", axes, allow_int=False)
    ndim = x.ndim
    if len(axes) != 2:
        raise ValueError(f"rot90: axes must hold 2 axes, got {axes}")
    if ndim < 2:
        raise ValueError(f"rot90: x must be at least 2-D, got shape {list(x.shape)}")
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == ndim:
        raise ValueError(f"rot90: the rotation axes must differ, got {axes}")
    for i, a in enumerate(axes):
        if not -ndim <= a < ndim:
            raise ValueError(f"rot90: axes[{i}]={a} is out of range [{-ndim}, {ndim})")
    k = int(k) % 4
    a0, a1 = axes[0] % ndim, axes[1] % ndim
    if k == 0:
        return _ops.flip(x, axis=[])
    if k == 2:
        return _ops.flip(x, axis=[a0, a1])
    perm = list(range(ndim))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    if k == 1:
        return _ops.transpose2(_ops.flip(x, axis=[a1]), axis=perm)
    return _ops.flip(_ops.transpose2(x, axis=perm), axis=[a1])


# -- concat / stack / split ---------------------------------------------------------------------------------

def concat(x, axis=0, name=None, *, out=None):
    return _ops.concat(x, axis=_int("concat", "axis", axis))


def stack(x, axis=0, name=None, *, out=None):
    return _ops.stack(x, axis=_int("stack", "axis", axis))


def split(x, num_or_sections, axis=0, name=None):
    axis = _int("split", "axis", axis)
    if _is_int(num_or_sections) and not isinstance(num_or_sections, bool):
        if num_or_sections == 0:
            raise ValueError("split: num_or_sections must not be 0")
        return _ops.split(x, axis=axis, num=int(num_or_sections), sections=[])
    if isinstance(num_or_sections, (list, tuple)):
        return _ops.split(x, axis=axis, num=0, sections=_ints("split", "num_or_sections", num_or_sections))
    raise TypeError(f"split: num_or_sections must be an int, list or tuple, got {type(num_or_sections).__name__}")


def chunk(x, chunks, axis=0, name=None):
    axis = _int("chunk", "axis", axis)
    ndim = x.ndim
    if axis >= ndim:
        raise AxisError(f"chunk: axis {axis} is out of range [{-ndim}, {ndim})")
    if axis < -ndim:
        raise PaddleAssertionError(f"chunk: axis {axis} is out of range [{-ndim}, {ndim})")
    if not _is_int(chunks) or isinstance(chunks, bool):
        raise TypeError(f"chunk: chunks must be an int, got {type(chunks).__name__}")
    size = x.shape[axis]
    if not 0 < chunks <= max(size, 1):
        raise ValueError(f"chunk: chunks must be in [1, {size}] for x's dim {axis} of size {size}, got {chunks}")
    return _ops.split(x, axis=axis, num=int(chunks), sections=[])


def unbind(input, axis=0):
    if not _is_int(axis):
        raise TypeError(f"unbind: axis must be an int, got {type(axis).__name__}")
    return _ops.unbind(input, axis=int(axis))


def unstack(x, axis=0, num=None):
    if not _is_int(axis):
        raise TypeError(f"unstack: axis must be an int, got {type(axis).__name__}")
    if num == 0:
        return []
    return _ops.unstack(x, axis=int(axis), num=num or 0)


# -- slicing ------------------------------------------------------------------------------------------------

def slice(input, axes, starts, ends):
    if not isinstance(axes, (list, tuple)):
        raise ValueError(f"slice: axes must be a list or tuple, got {type(axes).__name__}")
    return _ops.slice(input, axes=_ints("slice", "axes", axes), starts=_ints("slice", "starts", starts),
                      ends=_ints("slice", "ends", ends))


def strided_slice(x, axes, starts, ends, strides, name=None):
    return _ops.strided_slice(x, axes=_ints("strided_slice", "axes", axes),
                              starts=_ints("strided_slice", "starts", starts),
                              ends=_ints("strided_slice", "ends", ends),
                              strides=_ints("strided_slice", "strides", strides))


def crop(x, shape=None, offsets=None, name=None):
    return _ops.crop_tensor(x, shape=[] if shape is None else _ints("crop", "shape", shape),
                            offsets=[] if offsets is None else _ints("crop", "offsets", offsets))


# -- repeat_interleave, complex views ------------------------------------------------------------------------

def repeat_interleave(x, repeats, axis=None, name=None, *, output_size=None):
    if axis is not None:
        axis = _int("repeat_interleave", "axis", axis)
    size = -1 if output_size is None else output_size
    if isinstance(repeats, Tensor):
        return _ops.repeat_interleave(x, repeats, Repeats=0, dim=axis, output_size=size)
    if not _is_int(repeats) or isinstance(repeats, bool):
        raise TypeError(f"repeat_interleave: repeats must be an int or Tensor, got {type(repeats).__name__}")
    return _ops.repeat_interleave(x, None, Repeats=int(repeats), dim=axis, output_size=size)


def as_complex(x, name=None):
    return _ops.as_complex(x)


def as_real(x, name=None):
    return _ops.as_real(x)


# -- gather family ------------------------------------------------------------------------------------------

def gather(x, index, axis=None, name=None, out=None):
    return _ops.gather(x, index, axis=0 if axis is None else _int("gather", "axis", axis), overwrite=True)


def gather_nd(x, index, name=None):
    return _ops.gather_nd(x, index)


def index_select(x, index, axis=0, name=None, *, out=None):
    return _ops.index_select(x, index, dim=_int("index_select", "axis", axis))


def index_sample(x, index):
    return _ops.index_sample(x, index)


def take_along_axis(arr, indices, axis, broadcast=True, *, out=None):
    return _ops.take_along_axis(arr, indices, Axis=_int("take_along_axis", "axis", axis), broadcast=broadcast)


def put_along_axis(arr, indices, values, axis, reduce="assign", include_self=True, broadcast=True):
    if not isinstance(values, (Tensor, numbers.Number)):
        values = np.asarray(values)
    return _ops.put_along_axis(arr, indices, values, Axis=_int("put_along_axis", "axis", axis), Reduce=reduce,
                               include_self=include_self, broadcast=broadcast)


def put_along_axis_(arr, indices, values, axis, reduce="assign", include_self=True, broadcast=True):
    return _rebind(arr, put_along_axis(arr, indices, values, axis, reduce, include_self, broadcast),
                   "put_along_axis_")


# -- scatter family -----------------------------------------------------------------------------------------

def scatter(x, index, updates, overwrite=True, name=None, out=None):
    return _ops.scatter(x, index, updates, overwrite=bool(overwrite))


def scatter_(x, index, updates, overwrite=True, name=None):
    return _rebind(x, scatter(x, index, updates, overwrite), "scatter_")


def scatter_nd_add(x, index, updates, name=None):
    return _ops.scatter_nd_add(x, index, updates)


def scatter_nd(index, updates, shape, name=None):
    dims = _ints("scatter_nd", "shape", shape)
    zeros = wrap(torch.zeros(dims, dtype=updates._t.dtype, device=updates._t.device))
    return _ops.scatter_nd_add(zeros, index, updates)


# -- masks, multiplex, shard_index --------------------------------------------------------------------------

def masked_select(x, mask, name=None, *, out=None):
    return _ops.masked_select(x, mask)


def masked_fill(x, mask, value, name=None):
    if isinstance(value, Tensor):
        return _ops.masked_fill(x, mask, value)
    if not isinstance(value, numbers.Number):
        raise TypeError(f"masked_fill: value must be a number or a Tensor, got {type(value).__name__}")
    return _ops.masked_fill(x, mask, None, value=value)


def masked_fill_(x, mask, value, name=None):
    return _rebind(x, masked_fill(x, mask, value), "masked_fill_")


def multiplex(inputs, index, name=None):
    return _ops.multiplex(inputs, index)


def shard_index(input, index_num, nshards, shard_id, ignore_value=-1):
    return _ops.shard_index(input, index_num=index_num, nshards=nshards, shard_id=shard_id,
                            ignore_value=ignore_value)


# -- unique -------------------------------------------------------------------------------------------------

def _unique_axis(api, axis):
    if axis is None:
        return []
    if not _is_int(axis):
        raise TypeError(f"{api}: axis must be an int or None, got {type(axis).__name__}")
    return [int(axis)]


def _index_dtype(api, dtype):
    d = _dtype.convert_dtype(dtype)
    if d.name not in ("int32", "int64"):
        raise DtypeError(f"{api}: dtype must be int32 or int64, got {d.name}")
    return d.proto


def unique(x, return_index=False, return_inverse=False, return_counts=False, axis=None, dtype="int64",
           sorted=True, name=None):
    out, indices, inverse, counts = _ops.unique(
        x, dtype=_index_dtype("unique", dtype), return_index=return_index, return_inverse=return_inverse,
        return_counts=return_counts, axis=_unique_axis("unique", axis), is_sorted=sorted)
    extra = [t for t, want in ((indices, return_index), (inverse, return_inverse), (counts, return_counts)) if want]
    return tuple([out] + extra) if extra else out


def unique_consecutive(x, return_inverse=False, return_counts=False, axis=None, dtype="int64", name=None):
    out, inverse, counts = _ops.unique_consecutive(
        x, dtype=_index_dtype("unique_consecutive", dtype), return_inverse=return_inverse,
        return_counts=return_counts, axis=_unique_axis("unique_consecutive", axis))
    extra = [t for t, want in ((inverse, return_inverse), (counts, return_counts)) if want]
    return tuple([out] + extra) if extra else out

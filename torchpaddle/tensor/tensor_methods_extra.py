"""Tensor methods Paddle 3.x has without a ``paddle.*`` function: the dense/sparse dims and SelectedRows query,
storage and graph queries (``offset``, ``layout``, ``grad_fn``), ``apply``, ``split_with_sizes``, diagonal fills
and a few in-place random fills and reshapes."""
import torch

from ..framework.mode import STATE as _MODE
from ..framework.tensor import PaddleAssertionError, Tensor, wrap

__all__ = []
__methods__ = ["is_selected_rows", "dense_dim", "sparse_dim", "is_same_shape", "is_tensor", "layout", "offset",
               "grad_fn", "grad_", "apply", "apply_", "split_with_sizes", "fill_diagonal_", "fill_diagonal_tensor", "fill_diagonal_tensor_", "random_",
               "geometric_", "resize_", "set_", "sigmoid", "sigmoid_", "create_tensor"]


# -- sparse queries (paddle.sparse defines is_sparse, to_dense, nnz, indices... for both layouts) -----------
def is_selected_rows(self):
    return False   # SelectedRows (sparse gradient rows) do not exist here


def dense_dim(self):
    t = self._t
    return t.dense_dim() if t.layout is not torch.strided else t.dim()


def sparse_dim(self):
    t = self._t
    return t.sparse_dim() if t.layout is not torch.strided else 0


# -- queries ------------------------------------------------------------------------------------------------
def is_same_shape(self, y):
    if not isinstance(y, Tensor):
        raise TypeError(f"is_same_shape(): y must be a Tensor, got {type(y).__name__}")
    return list(self.shape) == list(y.shape)


@staticmethod
def is_tensor(x):
    return isinstance(x, Tensor)


layout = property(lambda self: "NCHW", doc="The data layout Paddle reports for a dense Tensor.")
offset = property(lambda self: self._t.storage_offset() * self._t.element_size(),
                  doc="Byte offset of the first element in the underlying storage.")
grad_fn = property(lambda self: self._t.grad_fn, doc="The autograd node that made this Tensor (None for leaves).")
grad_ = property(lambda self: self.grad, doc="The gradient (as ``grad``).")


# -- functions and splits -----------------------------------------------------------------------------------
def _check_apply(self, api):
    if not self.stop_gradient:
        raise RuntimeError(f"Tensor.{api}: cannot apply a function on a Tensor that requires gradient")


def apply(self, func):
    """``func(self)`` computed without recording gradients."""
    _check_apply(self, "apply")
    from ..autograd import no_grad
    with no_grad():
        return func(self)


def apply_(self, func):
    _check_apply(self, "apply_")
    result = apply(self, func)
    with torch.no_grad():
        self._t.copy_(result._t if isinstance(result, Tensor) else torch.as_tensor(result))
    return self


def split_with_sizes(self, split_sizes, dim=0):
    from .manipulation import split
    if sum(split_sizes) != self.shape[dim]:
        raise ValueError(f"split_with_sizes(): split_sizes {list(split_sizes)} must sum to the size of dim {dim} "
                         f"({self.shape[dim]})")
    return split(self, list(split_sizes), axis=dim)


def sigmoid(x, name=None, *, out=None):
    from .. import ops
    from .math import _write
    return _write(out, ops.sigmoid(x))


def sigmoid_(x, name=None):
    from ._inplace import commit
    return commit(x, sigmoid(x), "sigmoid_")


# -- diagonal fills -----------------------------------------------------------------------------------------
def fill_diagonal_(x, value, offset=0, wrap=False, name=None):
    """Write ``value`` on the diagonal of a 2-D Tensor (all dims equal beyond 2-D); ``wrap`` restarts the
    diagonal every ``ncols + 1`` rows of a tall matrix."""
    t = x._t
    if t.dim() < 2:
        raise ValueError(f"fill_diagonal_(): x must be at least 2-D, got shape {list(t.shape)}")
    if t.dim() > 2 and len(set(t.shape)) != 1:
        raise ValueError(f"fill_diagonal_(): beyond 2-D all dims must be equal, got shape {list(t.shape)}")
    with torch.no_grad():
        flat = t.view(-1) if t.is_contiguous() else None
        if t.dim() > 2 or flat is None:
            idx = torch.arange(min(t.shape), device=t.device)
            t[(idx,) * t.dim()] = value
            return x
        rows, cols = t.shape
        step = cols + 1
        start = offset if offset >= 0 else -offset * cols
        end = rows * cols if wrap else min(rows * cols, (min(rows, cols) if offset == 0 else rows) * cols)
        positions = torch.arange(start, end, step, device=t.device)
        if not wrap:   # stay on one diagonal: column = row + offset
            positions = positions[(positions % cols) - (positions // cols) == offset]
        flat[positions] = value
    return x


def _diagonal_target(x, y, offset, dim1, dim2, api):
    diag = torch.diagonal(x._t, offset, dim1, dim2)
    if list(y.shape) != list(diag.shape):
        raise PaddleAssertionError(f"{api}(): y must have the diagonal's shape {list(diag.shape)}, got {list(y.shape)}")
    return diag


def fill_diagonal_tensor(x, y, offset=0, dim1=0, dim2=1, name=None):
    """A copy of ``x`` whose (``offset``, ``dim1``, ``dim2``) diagonal holds ``y``; differentiable in both."""
    _diagonal_target(x, y, offset, dim1, dim2, "fill_diagonal_tensor")
    if _MODE.static:
        raise NotImplementedError("fill_diagonal_tensor() runs in dynamic mode only here")
    out = x._t.clone()
    torch.diagonal(out, offset, dim1, dim2).copy_(y._t.to(out.dtype))
    result = wrap(out)
    result.stop_gradient = x.stop_gradient and y.stop_gradient
    return result


def fill_diagonal_tensor_(x, y, offset=0, dim1=0, dim2=1, name=None):
    from ._inplace import commit
    return commit(x, fill_diagonal_tensor(x, y, offset, dim1, dim2), "fill_diagonal_tensor_")


# -- in-place random fills and reshapes ---------------------------------------------------------------------
def random_(x, from_=0, to=None, *, generator=None):
    """Uniform integers in [from_, to) (``to`` None: up to the dtype's largest integer)."""
    if to is None:
        from_, to = 0, from_ if from_ else None
    with torch.no_grad():
        if to is None:
            x._t.random_()
        else:
            if to <= from_:
                raise ValueError(f"random_(): to ({to}) must be greater than from_ ({from_})")
            x._t.random_(int(from_), int(to))
    return x


def geometric_(x, probs, name=None):
    """Fill with draws of the number of Bernoulli(``probs``) trials up to the first success."""
    p = probs.item() if isinstance(probs, Tensor) else probs
    if not 0 < p < 1:
        raise ValueError(f"geometric_(): probs must be in (0, 1), got {p}")
    with torch.no_grad():
        x._t.geometric_(p)
    return x


def resize_(x, shape, fill_zero=False, name=None):
    """Give ``x`` the shape ``shape``, keeping its leading elements in order; new elements are zeros."""
    shape = [int(s) for s in shape]
    if any(s < 0 for s in shape):
        raise ValueError(f"resize_(): shape must hold non-negative sizes, got {shape}")
    old = x._t.detach().reshape(-1)
    new = torch.zeros(shape, dtype=old.dtype, device=old.device)
    count = min(old.numel(), new.numel())
    new.view(-1)[:count] = old[:count]
    x._t = new
    return x


def set_(x, source=None, shape=None, stride=None, offset=0, name=None):
    """Make ``x`` a view of ``source``'s data (empty when ``source`` is None), optionally with ``shape``/``stride``
    (in elements) starting ``offset`` elements in."""
    if source is None:
        x._t = torch.empty([0], dtype=x._t.dtype, device=x._t.device)
        return x
    if not isinstance(source, Tensor):
        raise TypeError(f"set_(): source must be a Tensor, got {type(source).__name__}")
    if source.dtype != x.dtype:
        raise TypeError(f"set_(): source has dtype {source.dtype}, x has {x.dtype}; they must match")
    t = source._t.detach()
    if shape is None:
        x._t = t
    else:
        x._t = torch.as_strided(t, list(shape), list(stride) if stride is not None else
                                torch.empty(list(shape)).stride(), t.storage_offset() + int(offset))
    return x


@staticmethod
def create_tensor(dtype, name=None, persistable=False):
    """An empty Variable of ``dtype`` for an op to write, in static mode; an empty Tensor in dygraph."""
    from ..framework import dtype as _dtype
    d = _dtype.convert_dtype(dtype)
    if not _MODE.static:
        return wrap(torch.empty([0], dtype=d.torch))
    from ..framework.program import default_main_program
    from ..utils import unique_name
    return default_main_program().current_block().create_var(
        name=name or unique_name.generate("create_tensor"), dtype=d, persistable=persistable)

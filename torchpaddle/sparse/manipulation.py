"""paddle.sparse shape functions (reshape, transpose, slice), mask_as and coalesce: they move indices and keep
values, so gradients reach the values unchanged."""
import torch

from ..framework.tensor import Tensor, wrap
from .creation import coalesce as _coalesce, is_same_shape, rewrap, values_of  # noqa: F401
from .math import _dense, _sparse

__all__ = ["reshape", "transpose", "slice", "mask_as", "coalesce", "is_same_shape"]


def _as_coo(t):
    return t.to_sparse_coo() if t.layout is torch.sparse_csr else t


def _back(x, t, out):
    """``out`` (COO) in ``t``'s layout."""
    if t.layout is torch.sparse_csr:
        out = out.coalesce().to_sparse_csr()
    return rewrap(x, out)


def _ints(values, what, op):
    if isinstance(values, Tensor):
        values = values.tolist()
    if isinstance(values, int):
        values = [values]
    try:
        return [int(v) for v in values]
    except (TypeError, ValueError):
        raise TypeError(f"sparse.{op}: {what} must be a list of ints, got {values!r}") from None


def reshape(x, shape, name=None):
    """Reshape the sparse dims (0 copies a dim, -1 is inferred); the dense dims of a hybrid COO stay."""
    t = _sparse(x, "reshape")
    coo = _as_coo(t)
    sparse_dim = coo.sparse_dim()
    old = list(coo.shape[:sparse_dim])
    shape = _ints(shape, "shape", "reshape")
    dense_dims = list(coo.shape[sparse_dim:])
    if dense_dims and shape[len(shape) - len(dense_dims):] != dense_dims:
        raise ValueError(f"sparse.reshape: a hybrid COO keeps its dense dims {dense_dims}, got shape {shape}")
    new = shape[:len(shape) - len(dense_dims)] if dense_dims else shape
    new = [old[i] if s == 0 and i < len(old) else s for i, s in enumerate(new)]
    total = 1
    for s in old:
        total *= s
    if new.count(-1) > 1 or any(s < -1 for s in new):
        raise ValueError(f"sparse.reshape: shape {shape} may hold at most one -1 and no other negative")
    known = 1
    for s in new:
        known *= s if s != -1 else 1
    if -1 in new:
        if known == 0 or total % known:
            raise ValueError(f"sparse.reshape: cannot reshape {list(t.shape)} to {shape}")
        new[new.index(-1)] = total // known
    elif known != total:
        raise ValueError(f"sparse.reshape: cannot reshape {list(t.shape)} ({total} elements) to {shape}")
    index = coo._indices()
    flat = torch.zeros(index.shape[1], dtype=torch.int64, device=index.device)
    for d, size in enumerate(old):
        flat = flat * size + index[d]
    rows = []
    for size in reversed(new):
        rows.append(flat % size)
        flat = flat // size
    new_index = torch.stack(rows[::-1]) if rows else flat.reshape(0, -1)
    out = torch.sparse_coo_tensor(new_index, values_of(coo), new + dense_dims)
    return _back(x, t, out)


def transpose(x, perm, name=None):
    """Permute the dims of a sparse tensor (a COO's dense dims stay last)."""
    t = _sparse(x, "transpose")
    perm = _ints(perm, "perm", "transpose")
    if sorted(p % t.dim() for p in perm) != list(range(t.dim())) or len(perm) != t.dim():
        raise ValueError(f"sparse.transpose: perm {perm} is not a permutation of {t.dim()} dims")
    coo = _as_coo(t)
    perm = [p % t.dim() for p in perm]
    sparse_dim = coo.sparse_dim()
    if perm[sparse_dim:] != list(range(sparse_dim, t.dim())):
        raise ValueError("sparse.transpose: the dense dims of a hybrid COO cannot move")
    index = coo._indices()[perm[:sparse_dim]]
    out = torch.sparse_coo_tensor(index, values_of(coo), [t.shape[p] for p in perm])
    return _back(x, t, out.coalesce() if t.layout is torch.sparse_csr else out)


def slice(x, axes, starts, ends, name=None):  # noqa: A001
    """Keep the entries with index in [start, end) along each axis (negative and too-large bounds clip)."""
    t = _sparse(x, "slice")
    axes, starts, ends = (_ints(v, what, "slice") for v, what in ((axes, "axes"), (starts, "starts"),
                                                                   (ends, "ends")))
    if not len(axes) == len(starts) == len(ends):
        raise ValueError(f"sparse.slice: axes, starts and ends must have one length, got {axes}, {starts}, {ends}")
    coo = _as_coo(t)
    if coo.layout is torch.sparse_coo and not coo.is_coalesced():
        coo = coo.coalesce()
    sparse_dim = coo.sparse_dim()
    index, vals, shape = coo._indices(), values_of(coo), list(coo.shape)
    keep = torch.ones(index.shape[1], dtype=torch.bool, device=index.device)
    bounds = []
    for axis, start, end in zip(axes, starts, ends):
        if not -t.dim() <= axis < t.dim():
            raise ValueError(f"sparse.slice: axis {axis} is out of range for a {t.dim()}-D tensor")
        axis %= t.dim()
        if axis >= sparse_dim:
            raise ValueError("sparse.slice: only the sparse dims of a hybrid COO can be sliced")
        size = shape[axis]
        start = min(max(start + size if start < 0 else start, 0), size)
        end = min(max(end + size if end < 0 else end, 0), size)
        end = max(end, start)
        keep &= (index[axis] >= start) & (index[axis] < end)
        bounds.append((axis, start, end))
    index = index[:, keep].clone()
    for axis, start, end in bounds:
        index[axis] -= start
        shape[axis] = end - start
    out = torch.sparse_coo_tensor(index, vals[keep], shape)
    return _back(x, t, out)


def mask_as(x, mask, name=None):
    """Dense ``x`` kept at the stored positions of sparse ``mask``; a sparse tensor of mask's layout."""
    d = _dense(x, "mask_as", "x")
    m = _sparse(mask, "mask_as", "mask")
    if list(d.shape) != list(m.shape):
        raise ValueError(f"sparse.mask_as: x{list(d.shape)} and mask{list(m.shape)} must have the same shape")
    coo = _as_coo(m).coalesce()
    out = torch.sparse_coo_tensor(coo._indices(), d[tuple(coo._indices())], m.shape, is_coalesced=True)
    return wrap(out if m.layout is torch.sparse_coo else out.to_sparse_csr())


def coalesce(x, name=None):
    """Sum duplicate indices and sort them."""
    _sparse(x, "coalesce")
    return _coalesce(x)

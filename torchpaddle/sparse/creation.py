"""COO/CSR tensors: a torchpaddle Tensor whose ``_t`` is a torch sparse COO or CSR tensor, the two creation
functions and the Tensor methods that read or convert them."""
import torch

from ..framework import dtype as _dtype
from ..framework.convert import _as_torch
from ..framework.tensor import Tensor, wrap

__all__ = ["sparse_coo_tensor", "sparse_csr_tensor"]

class _Values(torch.autograd.Function):
    """The stored values of a COO tensor, coalesced or not, differentiable (torch's ``values()`` refuses an
    uncoalesced tensor and ``_values()`` is not tracked)."""

    @staticmethod
    def forward(ctx, t):
        ctx.indices, ctx.shape = t._indices(), t.shape
        return t._values().clone()

    @staticmethod
    def backward(ctx, grad):
        return torch.sparse_coo_tensor(ctx.indices, grad, ctx.shape)


def values_of(t):
    """The values of torch sparse ``t`` (COO or CSR), keeping the autograd link."""
    if t.layout is torch.sparse_coo:
        return _Values.apply(t) if t.requires_grad else t._values()
    return t.values()


def like(t, values, shape=None):
    """A torch sparse tensor with ``t``'s layout and indices and new ``values``."""
    shape = t.shape if shape is None else shape
    if t.layout is torch.sparse_coo:
        return torch.sparse_coo_tensor(t._indices(), values, shape, is_coalesced=t.is_coalesced())
    return torch.sparse_csr_tensor(t.crow_indices(), t.col_indices(), values, shape)


def rewrap(x, t):
    """Wrap the torch sparse result ``t`` of an op on ``x``, keeping ``x``'s COO index dtype."""
    out = wrap(t)
    index_dtype = getattr(x, "_index_dtype", None)
    if index_dtype is not None:
        out._index_dtype = index_dtype
    return out


def _index_tensor(data, what):
    t = _as_torch(data.numpy() if isinstance(data, Tensor) else data)
    if t.is_floating_point() or t.is_complex() or t.dtype is torch.bool:
        raise TypeError(f"sparse: {what} must hold integers, got {t.dtype}")
    return t


def _value_tensor(values, dtype, place):
    if isinstance(values, Tensor):
        t = values._t.detach()
        if dtype is not None:
            t = t.to(_dtype.to_torch_dtype(dtype))
        return t
    return _as_torch(values, dtype, place)


def sparse_coo_tensor(indices, values, shape=None, dtype=None, place=None, stop_gradient=True):
    """A COO tensor from ``indices`` [sparse_dim, nnz] and ``values`` [nnz, *dense_dims]; not coalesced."""
    index = _index_tensor(indices, "indices").to(torch.int64)
    vals = _value_tensor(values, dtype, place)
    if index.dim() != 2:
        raise ValueError(f"sparse_coo_tensor: indices must be 2-D [sparse_dim, nnz], got shape {list(index.shape)}")
    if vals.dim() < 1:
        raise ValueError("sparse_coo_tensor: values must have at least one dimension [nnz, ...]")
    if index.shape[1] != vals.shape[0]:
        raise ValueError(f"sparse_coo_tensor: the indices and values must have the same number of non-zero, "
                         f"but get {index.shape[1]} and {vals.shape[0]}")
    if (index < 0).any():
        raise ValueError("sparse_coo_tensor: indices must be non-negative")
    sparse_dim = index.shape[0]
    least = (index.max(dim=1).values + 1).tolist() if index.numel() else [0] * sparse_dim
    dense_shape = list(vals.shape[1:])
    if shape is None:
        shape = least + dense_shape
    else:
        shape = [int(s) for s in (shape.tolist() if isinstance(shape, Tensor) else shape)]
        if len(shape) != sparse_dim + len(dense_shape) or any(s < m for s, m in zip(shape, least)):
            raise ValueError(f"sparse_coo_tensor: the minimum shape required is {least + dense_shape}, "
                             f"but get {shape}")
        if shape[sparse_dim:] != dense_shape:
            raise ValueError(f"sparse_coo_tensor: the dense dims of shape {shape} must match values' "
                             f"{dense_shape}")
    t = torch.sparse_coo_tensor(index.to(vals.device), vals, shape)
    out = wrap(t)
    if not stop_gradient:
        out.stop_gradient = False
    return out


def sparse_csr_tensor(crows, cols, values, shape=None, dtype=None, place=None, stop_gradient=True):
    """A CSR tensor (2-D, or 3-D batched with ``crows`` of length batch*(rows+1))."""
    crow = _index_tensor(crows, "crows").to(torch.int64).reshape(-1)
    col = _index_tensor(cols, "cols").to(torch.int64).reshape(-1)
    vals = _value_tensor(values, dtype, place).reshape(-1)
    if col.numel() != vals.numel():
        raise ValueError(f"sparse_csr_tensor: cols and values must have the same length, got {col.numel()} "
                         f"and {vals.numel()}")
    if shape is None:
        shape = [crow.numel() - 1, int(col.max()) + 1 if col.numel() else 0]
    shape = [int(s) for s in (shape.tolist() if isinstance(shape, Tensor) else shape)]
    if len(shape) not in (2, 3):
        raise ValueError(f"sparse_csr_tensor: shape must be 2-D or 3-D, got {shape}")
    batch = 1 if len(shape) == 2 else shape[0]
    if crow.numel() != batch * (shape[-2] + 1):
        raise ValueError(f"sparse_csr_tensor: crows must have batch*(rows+1) = {batch * (shape[-2] + 1)} "
                         f"entries for shape {shape}, got {crow.numel()}")
    if len(shape) == 2 and (crow[0] != 0 or crow[-1] != col.numel() or (crow[1:] < crow[:-1]).any()):
        raise ValueError("sparse_csr_tensor: crows must start at 0, not decrease, and the last value of "
                         "crows must be equal the number of non-zero")
    if col.numel() and (col.min() < 0 or col.max() >= shape[-1]):
        raise ValueError(f"sparse_csr_tensor: cols must lie in [0, {shape[-1]}), got {col.tolist()}")
    if len(shape) == 3:
        crow = crow.reshape(batch, shape[-2] + 1)
        per_batch = crow[:, -1] - crow[:, 0]
        if (crow[:, 0] != 0).any() or (per_batch != per_batch[0]).any():
            raise ValueError("sparse_csr_tensor: batched crows must each start at 0 and hold the same nnz "
                             "(torch's batched CSR)")
        col, vals = col.reshape(batch, -1), vals.reshape(batch, -1)
    t = torch.sparse_csr_tensor(crow, col, vals, shape, check_invariants=True)
    out = wrap(t)
    if not stop_gradient:
        out.stop_gradient = False
    return out


# -- Tensor methods ---------------------------------------------------------------------------------------
def is_sparse(self):
    return self._t.layout is not torch.strided


def is_sparse_coo(self):
    return self._t.layout is torch.sparse_coo


def is_sparse_csr(self):
    return self._t.layout is torch.sparse_csr


def is_dense(self):
    return self._t.layout is torch.strided


def _need(x, layout, method):
    if x._t.layout is not layout:
        kind = {torch.sparse_coo: "SparseCooTensor", torch.sparse_csr: "SparseCsrTensor"}[layout]
        raise ValueError(f"Tensor.{method}: only a {kind} has {method}(), got a {_kind(x)}")


def _kind(x):
    return {torch.sparse_coo: "SparseCooTensor", torch.sparse_csr: "SparseCsrTensor"}.get(x._t.layout,
                                                                                          "DenseTensor")


def indices(self):
    _need(self, torch.sparse_coo, "indices")
    return wrap(self._t._indices().to(getattr(self, "_index_dtype", torch.int64)))


def values(self):
    if self._t.layout is torch.strided:
        raise ValueError("Tensor.values: only a sparse tensor has values()")
    return wrap(values_of(self._t))


def crows(self):
    _need(self, torch.sparse_csr, "crows")
    return wrap(self._t.crow_indices().reshape(-1).to(getattr(self, "_index_dtype", torch.int64)))


def cols(self):
    _need(self, torch.sparse_csr, "cols")
    return wrap(self._t.col_indices().reshape(-1).to(getattr(self, "_index_dtype", torch.int64)))


def nnz(self):
    t = self._t
    if t.layout is torch.sparse_coo:
        return t._nnz()
    if t.layout is torch.sparse_csr:
        return t.values().numel()
    raise ValueError("Tensor.nnz: only a sparse tensor has nnz()")


def to_dense(self):
    t = self._t
    return self if t.layout is torch.strided else wrap(t.to_dense())


def _dynamic_only(x, method):
    if x._is_variable:
        raise TypeError(f"Tensor.{method}: a static-graph Variable cannot become sparse; torchpaddle's "
                        "paddle.sparse runs in dynamic mode only")


def to_sparse_coo(self, sparse_dim):
    _dynamic_only(self, "to_sparse_coo")
    t = self._t
    sparse_dim = int(sparse_dim)
    if not 0 < sparse_dim <= max(t.dim(), 1):
        raise ValueError(f"Tensor.to_sparse_coo: sparse_dim must be in [1, {t.dim()}], got {sparse_dim}")
    if t.layout is torch.sparse_coo:
        return self
    if t.layout is torch.sparse_csr:
        return rewrap(self, t.to_sparse_coo())
    return wrap(t.to_sparse(sparse_dim))


def to_sparse_csr(self):
    _dynamic_only(self, "to_sparse_csr")
    t = self._t
    if t.layout is torch.sparse_csr:
        return self
    if t.dim() not in (2, 3):
        raise ValueError(f"Tensor.to_sparse_csr: only 2-D or 3-D tensors convert to CSR, got {t.dim()}-D")
    if t.layout is torch.sparse_coo:
        if t.dim() == 3:
            return wrap(t.to_dense().to_sparse_csr())
        return rewrap(self, t.coalesce().to_sparse_csr())
    return wrap(t.to_sparse_csr())


def coalesce(self, name=None):
    _need(self, torch.sparse_coo, "coalesce")
    return rewrap(self, self._t.coalesce())


def is_coalesced(self):
    _need(self, torch.sparse_coo, "is_coalesced")
    return self._t.is_coalesced()


def is_same_shape(x, y):
    """Whether ``x`` and ``y`` (dense or sparse) have the same shape."""
    return list(x.shape) == list(y.shape)


__methods__ = ["is_sparse", "is_sparse_coo", "is_sparse_csr", "indices", "values", "crows", "cols", "nnz",
               "to_dense", "to_sparse_coo", "to_sparse_csr", "coalesce", "is_coalesced", "is_same_shape"]


def attach():
    """Make these the Tensor methods (they win over any placeholders set earlier)."""
    for name in __methods__:
        setattr(Tensor, name, globals()[name])
    Tensor.is_dense = is_dense

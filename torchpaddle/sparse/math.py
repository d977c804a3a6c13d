"""paddle.sparse math on COO/CSR tensors: value-wise unary functions, elementwise binary functions, matrix
products and sum. Results keep the input's layout unless Paddle's function returns a dense tensor.

Elementwise binary functions and the matrix products compute on torch (dense where torch has no sparse kernel)
and re-sparsify at the pattern Paddle's kernel would produce, so they cost memory of the dense shape."""

import torch

from ..framework import dtype as _dtype
from ..framework.tensor import Tensor, wrap
from .creation import like, rewrap, values_of

__all__ = ["add", "subtract", "multiply", "divide", "matmul", "masked_matmul", "mv", "addmm", "pow", "cast",
           "isnan", "sum", "pca_lowrank"]

_KIND = {torch.sparse_coo: "SparseCooTensor", torch.sparse_csr: "SparseCsrTensor", torch.strided: "DenseTensor"}


def _static(x, op, arg):
    if x._is_variable:
        raise TypeError(f"sparse.{op}: {arg} is a static-graph Variable; torchpaddle's paddle.sparse runs in "
                        "dynamic mode only")


def _sparse(x, op, arg="x"):
    if not isinstance(x, Tensor):
        raise TypeError(f"sparse.{op}: {arg} must be a Tensor, got {type(x).__name__}")
    _static(x, op, arg)
    if x._t.layout is torch.strided:
        raise TypeError(f"sparse.{op}: {arg} must be a SparseCooTensor or SparseCsrTensor, got a DenseTensor")
    return x._t


def _dense(x, op, arg):
    if isinstance(x, Tensor):
        _static(x, op, arg)
    if not isinstance(x, Tensor) or x._t.layout is not torch.strided:
        kind = _KIND.get(x._t.layout) if isinstance(x, Tensor) else type(x).__name__
        raise TypeError(f"sparse.{op}: {arg} must be a dense Tensor, got {kind}")
    return x._t


# -- value-wise unary functions (f(0) == 0, so the pattern is kept) --------------------------------------
def _unary(name, fn):
    def unary(x, name=None):
        t = _sparse(x, unary.__name__)
        return rewrap(x, like(t, fn(values_of(t))))
    unary.__name__ = unary.__qualname__ = name
    unary.__doc__ = f"{name} of the stored values; the result keeps ``x``'s layout and indices."
    return unary


_UNARY = [("abs", torch.abs), ("asin", torch.asin), ("asinh", torch.asinh), ("atan", torch.atan),
          ("atanh", torch.atanh), ("sin", torch.sin), ("sinh", torch.sinh), ("sqrt", torch.sqrt),
          ("square", torch.square), ("tan", torch.tan), ("tanh", torch.tanh), ("log1p", torch.log1p),
          ("expm1", torch.expm1), ("neg", torch.neg), ("deg2rad", torch.deg2rad), ("rad2deg", torch.rad2deg),
          ("isnan", torch.isnan)]
for _name, _fn in _UNARY:
    globals()[_name] = _unary(_name, _fn)
__all__ += [n for n, _ in _UNARY if n not in __all__]


def pow(x, factor, name=None):  # noqa: A001
    """``x ** factor`` on the stored values."""
    t = _sparse(x, "pow")
    return rewrap(x, like(t, values_of(t) ** factor))


def cast(x, index_dtype=None, value_dtype=None, name=None):
    """Cast the values to ``value_dtype``; ``index_dtype`` is what indices()/crows()/cols() return."""
    t = _sparse(x, "cast")
    if value_dtype is not None:
        t = like(t, values_of(t).to(_dtype.to_torch_dtype(value_dtype)))
    out = rewrap(x, t)
    if index_dtype is not None:
        index = _dtype.to_torch_dtype(index_dtype)
        if index not in (torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8):
            raise TypeError(f"sparse.cast: index_dtype must be an integer dtype, got {index_dtype}")
        out._index_dtype = index
    return out


# -- elementwise binary functions ------------------------------------------------------------------------
def _pattern(t):
    """Ones at the stored positions of COO ``t`` (hybrid dense dims included)."""
    t = t.coalesce()
    ones = torch.ones(t._values().shape, dtype=torch.float32, device=t.device)
    return torch.sparse_coo_tensor(t._indices(), ones, t.shape)


def _binary(op, fn, full):
    def binary(x, y, name=None):
        t = _sparse(x, op)
        if not isinstance(y, Tensor):
            if op in ("multiply", "divide") and isinstance(y, (int, float)):
                return rewrap(x, like(t, fn(values_of(t), y)))
            # NOTE: Paddle raises ValueError here (a scalar y only works for multiply and divide)
            raise ValueError(f"sparse.{op}: y must be a sparse Tensor, got {type(y).__name__}")
        u = _sparse(y, op, "y")
        if t.layout is not u.layout:
            raise NotImplementedError(f"sparse.{op}: x is a {_KIND[t.layout]} and y a {_KIND[u.layout]}; both "
                                      "must have the same layout")
        if t.shape != u.shape:
            raise ValueError(f"sparse.{op}: x{list(t.shape)} and y{list(u.shape)} must have the same shape")
        dense = fn(t.to_dense(), u.to_dense())
        if full:   # x / y has no zeros to skip (0 / 0 is nan): Paddle stores every position
            coo = torch.ones(dense.shape, dtype=torch.float32, device=dense.device).to_sparse(
                t.sparse_dim() if t.layout is torch.sparse_coo else dense.dim())
        else:
            a, b = (t, u) if t.layout is torch.sparse_coo else (t.to_sparse_coo(), u.to_sparse_coo())
            coo = (_pattern(a) + _pattern(b)).coalesce()
        out = dense.sparse_mask(coo)
        # NOTE: torch's sparse_mask has no backward for a CSR mask, so CSR goes through COO
        return rewrap(x, out if t.layout is torch.sparse_coo else out.to_sparse_csr())
    binary.__name__ = binary.__qualname__ = op
    binary.__doc__ = (f"Elementwise {op} of two sparse tensors of one layout and shape; the result is stored at "
                      + ("every position." if full else "the union of both patterns."))
    return binary


add = _binary("add", torch.add, False)
subtract = _binary("subtract", torch.subtract, False)
multiply = _binary("multiply", torch.multiply, False)
divide = _binary("divide", lambda a, b: torch.divide(a.to(torch.float32) if not a.is_floating_point() else a,
                                                    b), True)


# -- matrix products -------------------------------------------------------------------------------------
def _mm(a, b):
    """sparse @ dense or sparse @ sparse over torch, batched when 3-D."""
    if a.layout is torch.sparse_csr:
        a = a.to_sparse_coo()
    if b.layout is torch.sparse_csr:
        b = b.to_sparse_coo()
    if a.dim() == 3:
        if b.layout is not torch.strided:
            b = b.to_dense()
        return torch.bmm(a, b)
    return torch.sparse.mm(a, b)


def matmul(x, y, name=None):
    """sparse @ dense -> dense; sparse @ sparse -> sparse of x's layout; dense @ sparse -> dense."""
    if not isinstance(x, Tensor) or not isinstance(y, Tensor):
        raise TypeError("sparse.matmul: x and y must be Tensors")
    t, u = x._t, y._t
    if t.dim() not in (2, 3) or t.dim() != u.dim():
        raise ValueError(f"sparse.matmul: x{list(t.shape)} and y{list(u.shape)} must both be 2-D or 3-D")
    if t.shape[-1] != u.shape[-2]:
        raise ValueError(f"sparse.matmul: x{list(t.shape)} and y{list(u.shape)}: x's last dim must equal y's "
                         "second last")
    if t.layout is torch.strided:
        if u.layout is torch.strided:
            return wrap(torch.matmul(t, u))
        return wrap(_mm(u.transpose(-2, -1).coalesce() if u.layout is torch.sparse_coo
                        else u.to_sparse_coo().transpose(-2, -1).coalesce(), t.transpose(-2, -1)).transpose(-2, -1))
    out = _mm(t, u)
    if u.layout is not torch.strided:
        out = out.coalesce() if out.layout is torch.sparse_coo else out
        if t.layout is torch.sparse_csr:
            out = out.to_sparse_csr()
    return wrap(out)


def masked_matmul(x, y, mask, name=None):
    """(dense x @ dense y) kept at ``mask``'s pattern; a sparse tensor of mask's layout."""
    a, b = _dense(x, "masked_matmul", "x"), _dense(y, "masked_matmul", "y")
    m = _sparse(mask, "masked_matmul", "mask")
    if a.shape[-1] != b.shape[-2] or list(a.shape[:-1]) + [b.shape[-1]] != list(m.shape):
        raise ValueError(f"sparse.masked_matmul: x{list(a.shape)} @ y{list(b.shape)} must have mask's shape "
                         f"{list(m.shape)}")
    if m.layout is torch.sparse_coo:
        m = m.coalesce()
    return wrap(torch.matmul(a, b).sparse_mask(m))


def mv(x, vec, name=None):
    """sparse matrix ``x`` [M, N] times dense vector ``vec`` [N]; a dense [M]."""
    t = _sparse(x, "mv")
    v = _dense(vec, "mv", "vec")
    if t.dim() != 2 or v.dim() != 1 or t.shape[1] != v.shape[0]:
        raise ValueError(f"sparse.mv: x must be [M, N] and vec [N], got {list(t.shape)} and {list(v.shape)}")
    return wrap(_mm(t, v.unsqueeze(1)).squeeze(1))


def addmm(input, x, y, beta=1.0, alpha=1.0, name=None):
    """``beta * input + alpha * (x @ y)``; sparse when input, x and y are all sparse, else dense."""
    if not all(isinstance(v, Tensor) for v in (input, x, y)):
        raise TypeError("sparse.addmm: input, x and y must be Tensors")
    product = matmul(x, y)._t
    base = input._t
    if product.layout is torch.strided or base.layout is torch.strided:
        product = product.to_dense() if product.layout is not torch.strided else product
        base = base.to_dense() if base.layout is not torch.strided else base
        return wrap(beta * base + alpha * product)
    layout = base.layout
    base = base.to_sparse_coo() if layout is torch.sparse_csr else base
    product = product.to_sparse_coo() if product.layout is torch.sparse_csr else product
    out = (base * beta + product * alpha).coalesce()
    return wrap(out.to_sparse_csr() if layout is torch.sparse_csr else out)


# -- reduction -------------------------------------------------------------------------------------------
def sum(x, axis=None, dtype=None, keepdim=False, name=None):  # noqa: A001
    """Sum of a sparse tensor: a sparse tensor of x's layout (the whole sum is a [1] COO / [1, 1] CSR)."""
    t = _sparse(x, "sum")
    layout = t.layout
    if dtype is not None:
        t = like(t, values_of(t).to(_dtype.to_torch_dtype(dtype)))
    coo = t.to_sparse_coo() if layout is torch.sparse_csr else t
    ndim = coo.dim()
    if axis is None or (isinstance(axis, (list, tuple)) and len(axis) in (0, ndim)):
        total = values_of(coo).sum().reshape(1)
        dims = ndim if keepdim or layout is torch.sparse_csr else 1
        index = torch.zeros(dims, 1, dtype=torch.int64, device=total.device)
        out = torch.sparse_coo_tensor(index, total, [1] * dims)
    else:
        axes = [axis] if isinstance(axis, int) else list(axis)
        for a in axes:
            if not -ndim <= a < ndim:
                raise ValueError(f"sparse.sum: axis {a} is out of range for a {ndim}-D tensor")
        axes = sorted(a % ndim for a in axes)
        out = torch.sparse.sum(coo, axes)
        if out.layout is torch.strided:
            out = out.to_sparse(out.dim()) if out.dim() else out.reshape(1).to_sparse()
        out = out.coalesce()
        if keepdim:   # re-insert the summed dims as index rows of zeros (torch's sparse unsqueeze has no grad)
            index, rows = out._indices(), []
            kept = iter(range(index.shape[0]))
            for d in range(ndim):
                rows.append(torch.zeros_like(index[0]) if d in axes else index[next(kept)])
            shape = [1 if d in axes else coo.shape[d] for d in range(ndim)]
            out = torch.sparse_coo_tensor(torch.stack(rows), values_of(out), shape, is_coalesced=True)
    if layout is torch.sparse_csr:
        if out.dim() not in (2, 3):
            raise ValueError("sparse.sum: a CSR sum must keep 2 or 3 dims (use keepdim=True)")
        out = out.to_sparse_csr()
    return rewrap(x, out)


def pca_lowrank(x, q=None, center=True, niter=2, name=None):
    """PCA of a sparse 2-D matrix: (U, S, V) dense, as ``paddle.linalg.pca_lowrank`` (torch's randomized
    algorithm, so draws differ from Paddle's)."""
    t = _sparse(x, "pca_lowrank")
    if t.dim() != 2:
        raise ValueError(f"sparse.pca_lowrank: x must be 2-D, got {list(t.shape)}")
    if q is None:
        q = min(6, *t.shape)
    coo = t.to_sparse_coo() if t.layout is torch.sparse_csr else t
    u, s, v = torch.pca_lowrank(coo.coalesce(), q=q, center=center, niter=niter)
    return wrap(u), wrap(s), wrap(v)



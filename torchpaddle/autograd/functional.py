"""paddle.autograd.jacobian / hessian: lazily evaluated matrices of first and second derivatives.

Rows are computed with torch.autograd.grad (create_graph=True, so a Jacobian can be differentiated
again) on the first indexing, then cached. Shapes follow Paddle: unbatched ys/xs are 0-D or 1-D and the
matrix is ``ys.shape + xs.shape``; with ``batch_axis=0`` they are [B] or [B, n] and the matrix is
``[B] + ys.shape[1:] + xs.shape[1:]``.
"""
import torch

from ..framework.tensor import Tensor, wrap

__all__ = ["jacobian", "hessian", "Jacobian", "Hessian"]


def _check_batch_axis(batch_axis):
    if batch_axis is not None and batch_axis != 0:
        raise ValueError(f"batch_axis should be None or 0, but got {batch_axis}.")
    return batch_axis is not None


def _check_ndim(name, t, is_batched):
    if not isinstance(t, Tensor):
        raise TypeError(f"{name} must be a Tensor or a list/tuple of Tensors, got {type(t).__name__}")
    allowed = (1, 2) if is_batched else (0, 1)
    if t._t.dim() not in allowed:
        raise ValueError(f"{name}.ndim should be {allowed[0]} or {allowed[1]} when is_batched={is_batched} "
                         f"but got {t._t.dim()}")


def _grad_or_zeros(out, x):
    """d(sum of out)/dx with a graph kept for higher orders; zeros where x does not reach out."""
    if out.requires_grad and x.requires_grad:
        (g,) = torch.autograd.grad(out, x, retain_graph=True, create_graph=True, allow_unused=True)
        if g is not None:
            return g
    return torch.zeros_like(x)


class Jacobian:
    """d ys / d xs; index it like a Tensor (``J[:]`` is the whole matrix)."""

    def __init__(self, ys, xs, is_batched=False):
        _check_ndim("xs", xs, is_batched)
        _check_ndim("ys", ys, is_batched)
        self._ys, self._xs, self._is_batched = ys, xs, is_batched
        self._value = None

    @property
    def shape(self):
        ys, xs = self._ys.shape, self._xs.shape
        if self._is_batched:
            return [ys[0]] + ys[1:] + xs[1:]
        return ys + xs

    def _compute(self):
        y, x = self._ys._t, self._xs._t
        if self._is_batched:
            rows = y.reshape(y.shape[0], -1)
            cols = [_grad_or_zeros(rows[:, m].sum(), x).reshape(x.shape[0], -1) for m in range(rows.shape[1])]
            full = torch.stack(cols, dim=1) if cols else x.new_zeros((x.shape[0], 0, x[0].numel()))
        else:
            rows = y.reshape(-1)
            cols = [_grad_or_zeros(rows[m], x).reshape(-1) for m in range(rows.shape[0])]
            full = torch.stack(cols) if cols else x.new_zeros((0, x.numel()))
        full = full.reshape(self.shape)
        if x.requires_grad and not full.requires_grad and torch.is_grad_enabled():
            # Paddle reports stop_gradient=False whenever xs requires grad, even for a constant Jacobian.
            full.requires_grad_(True)
        return full

    def __getitem__(self, index):
        if self._value is None:
            self._value = wrap(self._compute())
        return self._value[index]


class Hessian(Jacobian):
    """d^2 ys / d xs^2 for a scalar ys (one scalar per batch row when batched)."""

    def __init__(self, ys, xs, is_batched=False):
        _check_ndim("xs", xs, is_batched)
        super().__init__(_first_order(ys, xs), xs, is_batched)


def _check_scalar(ys, is_batched):
    if not isinstance(ys, Tensor):
        raise TypeError(f"hessian: ys must be a Tensor, got {type(ys).__name__}")
    if is_batched:
        n = ys._t[0].numel() if ys._t.dim() > 0 else 0
        if ys._t.dim() not in (1, 2) or n != 1:
            raise ValueError(f"Only support ys[0].numel()({n})==1 when batch_axis is int; ys has shape "
                             f"{ys.shape}")
    elif ys._t.numel() != 1:
        raise ValueError(f"Only support ys.numel()({ys._t.numel()})==1 when batch_axis is None.")


def _first_order(ys, x):
    return wrap(_grad_or_zeros(ys._t.sum(), x._t))


def _map(xs, fn):
    if isinstance(xs, (list, tuple)):
        return tuple(fn(x) for x in xs)
    return fn(xs)


def jacobian(ys, xs, batch_axis=None):
    """Jacobian of ys w.r.t. xs; a tuple (nested for two sequences) when ys or xs is a list/tuple."""
    is_batched = _check_batch_axis(batch_axis)
    return _map(ys, lambda y: _map(xs, lambda x: Jacobian(y, x, is_batched)))


def hessian(ys, xs, batch_axis=None):
    """Hessian of a scalar ys w.r.t. xs; for a list xs, a tuple of tuples H[i][j] = d2 ys / dxs[i] dxs[j]."""
    is_batched = _check_batch_axis(batch_axis)
    _check_scalar(ys, is_batched)
    if not isinstance(xs, (list, tuple)):
        return Hessian(ys, xs, is_batched)
    for x in xs:
        _check_ndim("xs", x, is_batched)
    firsts = [_first_order(ys, x) for x in xs]
    return tuple(tuple(Jacobian(g, x, is_batched) for x in xs) for g in firsts)

"""Distributions over vectors and matrices: MultivariateNormal and LKJCholesky."""
import math
import numbers

import torch
import torch.distributions as td
import torch.nn.functional as F

from ..framework.tensor import Tensor, wrap
from . import _util
from .distribution import Distribution

__all__ = ["MultivariateNormal", "LKJCholesky"]

_MATRICES = ("covariance_matrix", "precision_matrix", "scale_tril")


def _cholesky(matrix, api):
    try:
        return torch.linalg.cholesky(matrix)
    except RuntimeError as e:  # torch's LinAlgError
        raise ValueError(f"{api}: Cholesky decomposition failed, the matrix is not positive definite ({e})") from None


def _precision_to_scale_tril(precision):
    # the Cholesky factor of the covariance, from the flipped Cholesky factor of the precision (no inverse)
    flipped = _cholesky(torch.flip(precision, (-2, -1)), "MultivariateNormal")
    l_inv = torch.flip(flipped, (-2, -1)).mT
    eye = torch.eye(precision.shape[-1], dtype=precision.dtype, device=precision.device)
    return torch.linalg.solve_triangular(l_inv, eye, upper=False)


def _mahalanobis(scale_tril, diff):
    """|L^-1 diff|^2 over the last axis, broadcasting the batch dims of L and diff."""
    batch = torch.broadcast_shapes(scale_tril.shape[:-2], diff.shape[:-1])
    n = diff.shape[-1]
    solved = torch.linalg.solve_triangular(scale_tril.expand(batch + (n, n)), diff.expand(batch + (n,)).unsqueeze(-1),
                                           upper=False)
    return solved.squeeze(-1).pow(2).sum(-1)


def _half_log_det(scale_tril):
    return scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)


class MultivariateNormal(Distribution):
    """The multivariate normal distribution, given exactly one of ``covariance_matrix``, ``precision_matrix``
    or ``scale_tril`` (the Cholesky factor of the covariance)."""

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None):
        api = "MultivariateNormal"
        if isinstance(loc, numbers.Real) and not isinstance(loc, bool):
            loc = torch.tensor([float(loc)], dtype=_util.default_torch_dtype(), device=_util.current_torch_device())
        elif isinstance(loc, Tensor):
            loc = _util.eager(loc, api)._t
        else:
            raise _util.ValueTypeError(f"{api}: loc must be a float or a Tensor, got {type(loc).__name__}")
        self.dtype = _util.dtype_name(loc.dtype)
        if loc.dim() < 1:
            loc = loc.reshape((1,))
        given = {name: m for name, m in zip(_MATRICES, (covariance_matrix, precision_matrix, scale_tril))
                 if m is not None}
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        (name, matrix), = given.items()
        if not isinstance(matrix, Tensor):
            raise _util.ValueTypeError(f"{api}: {name} must be a Tensor, got {type(matrix).__name__}")
        matrix = _util.eager(matrix, api)._t
        if matrix.dim() < 2:
            raise ValueError(f"{api}: {name} must be at least two-dimensional, with optional leading batch "
                             f"dimensions, got shape {list(matrix.shape)}")
        matrix = matrix.to(loc.dtype)
        batch_shape = _util.broadcast_shapes(api, matrix.shape[:-2], loc.shape[:-1])
        self.covariance_matrix = self.precision_matrix = self.scale_tril = None
        setattr(self, name, wrap(_util.expand(matrix, batch_shape + matrix.shape[-2:])))
        self.loc = wrap(_util.expand(loc, batch_shape + loc.shape[-1:]))
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = wrap(matrix)
        elif name == "covariance_matrix":
            self._unbroadcasted_scale_tril = wrap(_cholesky(matrix, api))
        else:
            self._unbroadcasted_scale_tril = wrap(_precision_to_scale_tril(matrix))
        super().__init__(tuple(batch_shape), tuple(self.loc.shape[-1:]))

    @property
    def mean(self):
        return self.loc

    @property
    def variance(self):
        tril = self._unbroadcasted_scale_tril._t
        return wrap(_util.expand(tril.pow(2).sum(-1), self._batch_shape + self._event_shape))

    def sample(self, shape=()):
        with torch.no_grad():
            return self.rsample(shape)

    def rsample(self, shape=()):
        shape = self._extend_shape(_util.sample_shape(shape, "MultivariateNormal.rsample"))
        loc, tril = self.loc._t, self._unbroadcasted_scale_tril._t
        eps = torch.randn(shape, dtype=_util.default_torch_dtype(), device=loc.device).to(loc.dtype)
        return wrap(loc + torch.matmul(tril, eps.unsqueeze(-1)).squeeze(-1))

    def log_prob(self, value):
        loc, tril = self.loc._t, self._unbroadcasted_scale_tril._t
        diff = _util.value_of(value, loc.dtype, "MultivariateNormal.log_prob") - loc
        k = self._event_shape[0]
        return wrap(-0.5 * (k * math.log(2 * math.pi) + _mahalanobis(tril, diff)) - _half_log_det(tril))

    def prob(self, value):
        return wrap(self.log_prob(value)._t.exp())

    def entropy(self):
        k = self._event_shape[0]
        h = 0.5 * k * (1.0 + math.log(2 * math.pi)) + _half_log_det(self._unbroadcasted_scale_tril._t)
        return wrap(_util.expand(h, self._batch_shape) if self._batch_shape else h)

    def kl_divergence(self, other):
        if not isinstance(other, MultivariateNormal):
            raise TypeError(f"MultivariateNormal.kl_divergence: other must be a MultivariateNormal, got "
                            f"{type(other).__name__}")
        if self._batch_shape != other._batch_shape and self._event_shape != other._event_shape:
            raise ValueError("KL divergence of two Multivariate Normal distributions should share the same "
                             "`batch_shape` and `event_shape`.")
        l1, l2 = self._unbroadcasted_scale_tril._t, other._unbroadcasted_scale_tril._t
        cov1, cov2 = l1 @ l1.mT, l2 @ l2.mT
        trace = torch.linalg.solve(cov2, cov1).diagonal(dim1=-2, dim2=-1).sum(-1)
        expectation = trace + _mahalanobis(l2, self.loc._t - other.loc._t)
        return wrap(_half_log_det(l2) - _half_log_det(l1) + 0.5 * (expectation - self._event_shape[0]))


class LKJCholesky(Distribution):
    """The LKJ distribution over Cholesky factors of ``dim`` x ``dim`` correlation matrices, sampled by the
    onion or the C-vine method; log_prob is torch's."""

    def __init__(self, dim=2, concentration=1.0, sample_method="onion"):
        (self.concentration,) = _util.tensor_params("LKJCholesky", concentration)
        given = isinstance(concentration, Tensor)
        self.dtype = _util.dtype_name(self.concentration._t.dtype if given else _util.default_torch_dtype())
        if not dim >= 2:
            raise ValueError(f"LKJCholesky: expected dim greater than or equal to 2, found dim={dim}.")
        if not isinstance(dim, int) or isinstance(dim, bool):
            raise TypeError(f"LKJCholesky: expected dim to be an integer, found dim={dim}.")
        if not bool((self.concentration._t > 0).all()):
            raise ValueError("LKJCholesky: the arg of `concentration` must be positive.")
        if sample_method not in ("onion", "cvine"):
            raise ValueError(f"LKJCholesky: `sample_method` should be one of 'cvine' or 'onion', got "
                             f"{sample_method!r}")
        self.dim, self.sample_method = dim, sample_method
        self._torch = td.LKJCholesky(dim, self.concentration._t, validate_args=False)
        super().__init__(tuple(self.concentration.shape), (dim, dim))

    def _onion(self, shape):
        # NOTE: row k of the factor has squared off-diagonal norm Beta(k/2, c + (d-2)/2 - (k-1)/2) (Lewandowski et
        # al. 2009, 3.2). Paddle 3.3.1 and torch draw Beta(k - 1/2, ...) for k >= 2, which widens the correlations
        # of rows 2 onwards; this draws the right one.
        conc, d = self.concentration._t, self.dim
        k = torch.arange(d, dtype=conc.dtype, device=conc.device)
        alpha = 0.5 * k.clamp(min=1)
        beta = (conc + 0.5 * (d - 2)).unsqueeze(-1) - 0.5 * (k - 1).clamp(min=0)
        y = td.Beta(alpha, beta).sample(shape).unsqueeze(-1)
        u = torch.randn(y.shape[:-1] + (d,), dtype=conc.dtype, device=conc.device).tril(-1)
        u = u / u.norm(dim=-1, keepdim=True)
        u[..., 0, :] = 0.0  # the first row has no off-diagonal part (0/0 above)
        w = torch.sqrt(y) * u
        diag = torch.clamp(1 - (w ** 2).sum(-1), min=torch.finfo(w.dtype).tiny).sqrt()
        return w + torch.diag_embed(diag)

    def _cvine(self, shape):
        conc, d = self.concentration._t, self.dim
        rows, cols = torch.tril_indices(d, d, -1, device=conc.device)
        # the partial correlation in column j of the C-vine is a scaled Beta(c + (d - 2) / 2 - j / 2) draw
        beta_conc = (conc + 0.5 * (d - 2)).unsqueeze(-1) - 0.5 * cols.to(conc.dtype)
        partial = 2 * td.Beta(beta_conc, beta_conc).sample(shape) - 1
        tiny = torch.finfo(conc.dtype).tiny
        r = torch.zeros(partial.shape[:-1] + (d, d), dtype=conc.dtype, device=conc.device)
        r[..., rows, cols] = partial.clamp(-1 + tiny, 1 - tiny)
        shifted = F.pad(torch.cumprod(torch.sqrt(1 - r ** 2), -1)[..., :-1], (1, 0), value=1.0)
        return (r + torch.eye(d, dtype=conc.dtype, device=conc.device)) * shifted

    def sample(self, sample_shape=()):
        shape = _util.sample_shape(sample_shape, "LKJCholesky.sample")
        with torch.no_grad():
            return wrap(self._onion(shape) if self.sample_method == "onion" else self._cvine(shape))

    def log_prob(self, value):
        v = _util.value_of(value, self.concentration._t.dtype, "LKJCholesky.log_prob", cast=False)
        if v.dim() < 2:
            raise IndexError(f"LKJCholesky.log_prob: value must be at least 2-D, got shape {list(v.shape)}")
        return wrap(self._torch.log_prob(v))

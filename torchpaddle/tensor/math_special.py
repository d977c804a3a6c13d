"""Special functions (i0/i1, polygamma, incomplete gamma...) and the torch-style math Paddle 3.x added
(copysign, ldexp, logaddexp, isin, cdist, trapezoid, vander, histogramdd...)."""
from .. import ops as _ops
from ..framework.tensor import Tensor
from .math import _not_tensor

__all__ = ["angle", "baddbmm", "bincount", "cdist", "copysign", "frexp", "gammainc", "gammaincc", "gammaln", "i0",
           "i0e", "i1", "i1e", "isin", "isneginf", "isposinf", "isreal", "ldexp", "logaddexp", "multigammaln",
           "nextafter", "polygamma", "renorm", "sgn", "signbit", "sinc", "reduce_as", "trapezoid",
           "cumulative_trapezoid", "vander", "block_diag", "cartesian_prod", "combinations", "histogram_bin_edges",
           "histogramdd", "pdist"]
__methods__ = [n for n in __all__ if n not in ("cartesian_prod", "pdist")]


def _tensor_or_scalar(value, like, api, arg="y"):
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (bool, int, float)):
        from .creation import full_like
        return full_like(like, value)
    _not_tensor(value, api, arg)
    return value


def _unary(api):
    def fn(x, name=None):
        _not_tensor(x, api)
        return getattr(_ops, api)(x)
    fn.__name__ = fn.__qualname__ = api
    return fn


i0, i0e, i1, i1e, gammaln, sinc, signbit = (_unary(n) for n in ("i0", "i0e", "i1", "i1e", "gammaln", "sinc",
                                                                    "signbit"))


def angle(x, name=None):
    _not_tensor(x, "angle")
    return _ops.angle(x)


def polygamma(x, n, name=None):
    _not_tensor(x, "polygamma")
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"polygamma(): n must be a non-negative int, got {type(n).__name__}")
    return _ops.polygamma(x, n=n)


def multigammaln(x, p, name=None):
    _not_tensor(x, "multigammaln")
    if isinstance(p, bool) or not isinstance(p, int):
        raise TypeError(f"multigammaln(): p must be a positive int, got {type(p).__name__}")
    return _ops.multigammaln(x, p=p)


def _binary(api):
    def fn(x, y, name=None):
        _not_tensor(x, api)
        _not_tensor(y, api, "y")
        return getattr(_ops, api)(x, y)
    fn.__name__ = fn.__qualname__ = api
    return fn


gammainc, gammaincc, nextafter, logaddexp = (_binary(n) for n in ("gammainc", "gammaincc", "nextafter",
                                                                  "logaddexp"))


def copysign(x, y, name=None):
    _not_tensor(x, "copysign")
    return _ops.copysign(x, _tensor_or_scalar(y, x, "copysign"))


def ldexp(x, y, name=None):
    _not_tensor(x, "ldexp")
    _not_tensor(y, "ldexp", "y")
    return _ops.ldexp(x, y)


def frexp(x, name=None):
    _not_tensor(x, "frexp")
    return tuple(_ops.frexp(x))


def isneginf(x, name=None):
    from .logic import logical_and
    from .math import isinf
    _not_tensor(x, "isneginf")
    return logical_and(isinf(x), signbit(x)) if x.dtype.name not in _INTS else _false_like(x)


def isposinf(x, name=None):
    from .logic import logical_and, logical_not
    from .math import isinf
    _not_tensor(x, "isposinf")
    return logical_and(isinf(x), logical_not(signbit(x))) if x.dtype.name not in _INTS else _false_like(x)


_INTS = ("INT8", "INT16", "INT32", "INT64", "UINT8", "BOOL")


def _false_like(x):
    from .creation import zeros_like
    return zeros_like(x, dtype="bool")


def isreal(x, name=None):
    from .creation import ones_like
    from .logic import equal
    from .math import imag
    _not_tensor(x, "isreal")
    if x.is_complex():
        return equal(imag(x), 0.0)
    return ones_like(x, dtype="bool")


def sgn(x, name=None):
    from .math import sign
    _not_tensor(x, "sgn")
    if not (x.is_floating_point() or x.is_complex()):
        raise TypeError(f"sgn(): x must be a float or complex Tensor, got {x.dtype}")
    return sign(x)


def isin(x, test_x, assume_unique=False, invert=False, name=None):
    _not_tensor(x, "isin")
    _not_tensor(test_x, "isin", "test_x")
    return _ops.isin(x, test_x, assume_unique=bool(assume_unique), invert=bool(invert))


_CDIST_MODES = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist")


def cdist(x, y, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary", name=None):
    _not_tensor(x, "cdist")
    _not_tensor(y, "cdist", "y")
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"cdist(): compute_mode must be one of {list(_CDIST_MODES)}, got {compute_mode!r}")
    return _ops.cdist(x, y, p=float(p), compute_mode=_CDIST_MODES.index(compute_mode))


def bincount(x, weights=None, minlength=0, name=None):
    _not_tensor(x, "bincount")
    return _ops.bincount(x, weights, minlength=int(minlength))


def renorm(x, p, axis, max_norm):
    _not_tensor(x, "renorm")
    return _ops.renorm(x, p=float(p), axis=int(axis), max_norm=float(max_norm))


def baddbmm(input, x, y, beta=1.0, alpha=1.0, name=None):
    for arg, value in (("input", input), ("x", x), ("y", y)):
        _not_tensor(value, "baddbmm", arg)
    return _ops.baddbmm(input, x, y, Alpha=float(alpha), Beta=float(beta))


def reduce_as(x, target, name=None):
    _not_tensor(x, "reduce_as")
    _not_tensor(target, "reduce_as", "target")
    return _ops.reduce_as(x, target)


def _trapezoid_call(api, y, x, dx, axis):
    _not_tensor(y, api, "y")
    if x is not None and dx is not None:
        raise ValueError(f"{api}(): give x or dx, not both")
    if x is not None:
        _not_tensor(x, api)
    return getattr(_ops, api)(y, x, dx=None if dx is None else float(dx), axis=int(axis))


def trapezoid(y, x=None, dx=None, axis=-1, name=None):
    return _trapezoid_call("trapezoid", y, x, dx, axis)


def cumulative_trapezoid(y, x=None, dx=None, axis=-1, name=None):
    return _trapezoid_call("cumulative_trapezoid", y, x, dx, axis)


def vander(x, n=None, increasing=False, name=None):
    _not_tensor(x, "vander")
    return _ops.vander(x, n=None if n is None else int(n), increasing=bool(increasing))


def _tensor_list(values, api, arg):
    if isinstance(values, Tensor) or not isinstance(values, (list, tuple)):
        raise TypeError(f"{api}(): {arg} must be a list or tuple of Tensors, got {type(values).__name__}")
    if not values:
        raise ValueError(f"{api}(): {arg} must not be empty")
    for i, v in enumerate(values):
        _not_tensor(v, api, f"{arg}[{i}]")
    return list(values)


def block_diag(inputs, name=None):
    if isinstance(inputs, Tensor):   # NOTE: Paddle iterates a Tensor: its rows are the blocks
        from .manipulation import unbind
        inputs = unbind(inputs, 0)
    return _ops.block_diag(_tensor_list(inputs, "block_diag", "inputs"))


def cartesian_prod(x, name=None):
    x = _tensor_list(x, "cartesian_prod", "x")
    if len(x) == 1:   # NOTE: torch and Paddle return the single input itself, still 1-D
        return x[0]
    return _ops.cartesian_prod(x)


def combinations(x, r=2, with_replacement=False, name=None):
    _not_tensor(x, "combinations")
    return _ops.combinations(x, r=int(r), with_replacement=bool(with_replacement))


def histogram_bin_edges(input, bins=100, min=0.0, max=0.0, name=None):
    _not_tensor(input, "histogram_bin_edges", "input")
    return _ops.histogram_bin_edges(input, bins=int(bins), min=float(min), max=float(max))


def histogramdd(x, bins=10, ranges=None, density=False, weights=None, name=None):
    _not_tensor(x, "histogramdd")
    if isinstance(bins, Tensor):
        bins = [int(b) for b in bins.tolist()]
    hist, edges = _ops.histogramdd(x, weights, bins=bins, ranges=None if ranges is None else list(ranges),
                                   density=bool(density))
    return hist, list(edges)


def pdist(x, p=2.0, name=None):
    _not_tensor(x, "pdist")
    return _ops.pdist(x, p=float(p))

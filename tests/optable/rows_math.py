"""Rows for unary math (exp, sqrt, round, clip, scale...) and the small binary math functions (atan2, lerp, gcd,
isclose, kron, addmm, trace...)."""
import math

import numpy as np

from .core import ALL, FLOATS, INTS, NUMERIC, Err, OpCase, Sample, T, binary, data, fixed, unary

COMPLEX = ("complex64", "complex128")
_erf = np.vectorize(math.erf)
_lgamma = np.vectorize(math.lgamma)


def _erfinv(y):
    y = np.asarray(y, dtype=np.float64)
    x = np.zeros_like(y)
    for _ in range(60):   # Newton on erf(x) = y
        x = x - (_erf(x) - y) / (2 / math.sqrt(math.pi) * np.exp(-x * x))
    return x


def _digamma(x):
    x = np.asarray(x, dtype=np.float64).copy()
    result = np.zeros_like(x)
    while np.any(x < 6):   # recurrence psi(x) = psi(x + 1) - 1/x, then the asymptotic series
        small = x < 6
        result[small] -= 1 / x[small]
        x[small] += 1
    inv2 = 1 / (x * x)
    return result + np.log(x) - 0.5 / x - inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 / 240)))


def _float_ref(fn):
    """Paddle computes float-only math of integer tensors in float32."""
    def ref(x):
        return fn(x.astype(np.float32)) if x.dtype.kind in "iu" else fn(x)
    return ref


_NOT_TENSOR = Err(([1.0, 2.0],), exc=ValueError, note="a list is not a Tensor")
_NUMPY_ARG = Err((np.ones(3),), exc=ValueError, note="an ndarray is not a Tensor")
_BOOL = Err((T(np.array([True, False])),), exc=RuntimeError, note="no bool kernel")
_COMPLEX_IN = Err((T(np.array([1 + 1j, 2 - 1j]), dtype="complex64"),), exc=RuntimeError, note="no complex kernel")
_UNARY_ERRORS = (_NOT_TENSOR, _NUMPY_ARG, _BOOL)
_POSITIVE = dict(low=0.5, high=3.0)
_UNIT = dict(low=-0.9, high=0.9)

# (api, NumPy reference, data range, complex kernel in Paddle)
_FLOAT_UNARY = [
    ("exp", np.exp, {}, True), ("expm1", np.expm1, {}, True), ("sin", np.sin, {}, True),
    ("cos", np.cos, {}, True), ("tan", np.tan, dict(low=-1.2, high=1.2), True), ("sinh", np.sinh, {}, True),
    ("cosh", np.cosh, {}, True), ("tanh", np.tanh, {}, True), ("asin", np.arcsin, _UNIT, True),
    ("acos", np.arccos, _UNIT, True), ("atan", np.arctan, {}, True), ("asinh", np.arcsinh, {}, True),
    ("acosh", np.arccosh, dict(low=1.1, high=3.0), True), ("atanh", np.arctanh, _UNIT, True),
    ("log", np.log, _POSITIVE, True), ("log2", np.log2, _POSITIVE, True), ("log10", np.log10, _POSITIVE, True),
    ("log1p", np.log1p, _POSITIVE, True), ("sqrt", np.sqrt, _POSITIVE, True),
    ("rsqrt", lambda x: 1 / np.sqrt(x), _POSITIVE, False), ("reciprocal", np.reciprocal, _POSITIVE, True),
    ("erf", _erf, {}, False), ("erfinv", _erfinv, _UNIT, False), ("lgamma", _lgamma, dict(low=1.0, high=3.0), False),
    ("digamma", _digamma, dict(low=1.0, high=3.0), False), ("deg2rad", np.deg2rad, {}, True),
    ("rad2deg", np.rad2deg, {}, True),
]
# (api, NumPy reference): integer inputs keep their dtype.
_KEEP_UNARY = [("abs", np.abs), ("sign", np.sign), ("square", np.square), ("ceil", np.ceil), ("floor", np.floor),
               ("trunc", np.trunc), ("neg", np.negative), ("frac", lambda x: x - np.trunc(x))]

_COMPLEX_DATA = fixed(Sample((T(np.array([1 + 2j, -0.5 + 1j, 0.3 - 0.7j])),)),
                      Sample((T(np.array([[0.2 + 0.1j, -1.5j], [2.0 + 0j, -0.4 - 0.4j]])),)))
_SPECIAL = fixed(Sample((T(np.array([np.nan, np.inf, -np.inf, 1.0, -2.5, 0.0])),)))
_X = T(np.arange(6.0).reshape(2, 3))


def _round(x, decimals=0):
    return np.round(x, decimals) if x.dtype.kind == "f" else x


def _scale(x, scale=1.0, bias=0.0, bias_after_scale=True):
    scale = np.asarray(scale).reshape(())
    if x.dtype.kind in "iu":
        scale, bias = scale.astype(x.dtype), int(bias)   # Paddle truncates scale and bias for integers
    out = x * scale + bias if bias_after_scale else (x + bias) * scale
    return out.astype(x.dtype)


def _clip(x, min=None, max=None):
    lo = -np.inf if min is None else np.asarray(min)
    hi = np.inf if max is None else np.asarray(max)
    return np.clip(x, lo, hi).astype(x.dtype if not isinstance(min, float) and not isinstance(max, float)
                                      else np.result_type(x.dtype, np.float32))


def _nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    return np.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)


def _logit(x, eps=None):
    if eps is not None:
        x = np.clip(x, eps, 1 - eps)
    return np.log(x / (1 - x))


def _increment(x, value=1.0):
    return x + (int(value) if x.dtype.kind in "iu" else value)


def _lerp(x, y, weight):
    return x + weight * (y - x)


def _isclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False):
    return np.isclose(x, y, rtol, atol, equal_nan)


def _allclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False):
    return np.asarray(np.allclose(x, y, rtol, atol, equal_nan))


def _equal_all(x, y):
    return np.asarray(x.shape == y.shape and bool(np.all(x == y)))


def _addmm(input, x, y, beta=1.0, alpha=1.0):
    return beta * input + alpha * (x @ y)


def _close_pairs(rng, dtype):
    a = data(rng, (3, 4), dtype)
    b = a + rng.choice([0.0, 1e-7, 1e-3], size=a.shape)
    with_nan = np.array([1.0, np.nan, 3.0])
    return [Sample((T(a), T(b))), Sample((T(a), T(b)), {"rtol": 1e-2}), Sample((T(a), T(a.copy()))),
            Sample((T(with_nan), T(with_nan)), {"equal_nan": True}), Sample((T(with_nan), T(with_nan)))]


def _shapes(*pairs, **kwargs):
    def make(rng, dtype):
        return [Sample(tuple(T(data(rng, s, dtype)) for s in shapes), dict(kwargs)) for shapes in pairs]
    return make


_ROUND = fixed(Sample((T(np.array([0.5, 1.5, 2.5, -0.5, -1.5, 1.25, 0.125, -2.675])),)),
               Sample((T(np.array([0.5, 1.5, 2.5, -0.5, -1.5, 1.25, 0.125, -2.675])),), {"decimals": 1}),
               Sample((T(np.array([0.5, 1.5, 2.5, -0.5, -1.5, 1.25, 0.126, -2.675])),), {"decimals": 2}),
               Sample((T(np.array([[15.0, 25.0, 149.0], [-35.0, 0.0, 7.0]])),), {"decimals": -1}),
               Sample((T(np.array([[1.7, -3.2], [4.0, 0.4]])),)))
_SCALE = fixed(Sample((_X,), {"scale": 2.0, "bias": 1.0}),
               Sample((_X,), {"scale": 2.5, "bias": 1.0, "bias_after_scale": False}),
               Sample((_X,), {"scale": -2.5}),
               Sample((_X,), {"scale": T(np.array(3.0)), "bias": 1.0}),
               Sample((_X,), {"scale": T(np.array([0.5])), "bias": -1.0}))
_CLIP_DATA = np.arange(-3.0, 5.0) + 0.25
_CLIP = fixed(Sample((T(_CLIP_DATA),), {"min": -1, "max": 2}), Sample((T(_CLIP_DATA),), {"min": 0}),
              Sample((T(_CLIP_DATA),), {"max": 1}), Sample((T(_CLIP_DATA),)),
              Sample((T(_CLIP_DATA.reshape(2, 4)),), {"min": T(np.array(0.0)), "max": T(np.array([2.0]))}))
_CLIP_FLOAT_BOUNDS = fixed(Sample((T(np.array([1, 5, 9])),), {"min": 2.5, "max": 7.5}),
                           Sample((T(np.array([1, 5, 9])),), {"min": 2.0, "max": 7.0}),
                           Sample((T(np.array([1, 5, 9])),), {"max": 3.5}))
_INCREMENT = fixed(Sample((T(np.array([1.0])),)), Sample((T(np.array(2.0)),), {"value": 2.5}),
                   Sample((T(np.array([3.0])),), {"value": -2.7}))
_TRACE = fixed(Sample((T(np.arange(12.0).reshape(3, 4)),)), Sample((T(np.arange(12.0).reshape(3, 4)),), {"offset": 1}),
               Sample((T(np.arange(12.0).reshape(3, 4)),), {"offset": -2}),
               Sample((T(np.arange(24.0).reshape(2, 3, 4)),), {"offset": 1, "axis1": 1, "axis2": 2}),
               Sample((T(np.arange(24.0).reshape(2, 3, 4)),), {"axis1": -1, "axis2": 0}),
               Sample((T(np.arange(4.0).reshape(2, 2)),), {"offset": 5}))
_ADDMM = fixed(Sample((T(np.ones((2, 4))), T(np.arange(6.0).reshape(2, 3)), T(np.arange(12.0).reshape(3, 4) / 7))),
               Sample((T(np.arange(4.0)), T(np.arange(6.0).reshape(2, 3)), T(np.arange(12.0).reshape(3, 4) / 7)),
                      {"beta": 0.5, "alpha": 2.0}),
               Sample((T(np.array([[1.5]])), T(np.arange(4.0).reshape(2, 2)), T(np.arange(4.0).reshape(2, 2)))))
_LERP = fixed(Sample((T(np.arange(6.0).reshape(2, 3)), T(np.ones((2, 3))), 0.3)),
              Sample((T(np.arange(6.0).reshape(2, 3)), T(np.ones(3)), T(np.array([0.5, 0.2, 0.9])))),
              Sample((T(np.arange(3.0)), T(np.ones((2, 3))), T(np.full((2, 3), 0.25)))))
_GCD = fixed(Sample((T(np.array([12, 0, -9, 7, 0])), T(np.array([8, 5, 6, -21, 0])))),
             Sample((T(np.array([[12], [18]])), T(np.array([4, 6, 27])))))
_GCD_FLOAT = fixed(Sample((T(np.array([4.5, 12.0, -9.0, 0.0, 2.5])), T(np.array([3.0, 8.0, 6.0, 0.0, -0.5])))))


def _float_euclid(x, y):
    """(gcd, lcm) of float arrays by Euclid's algorithm (Paddle accepts float gcd/lcm; NumPy does not)."""
    a, b = np.abs(x), np.abs(y)
    while np.any(b != 0):
        nonzero = b != 0
        a, b = np.where(nonzero, b, a), np.where(nonzero, np.mod(a, np.where(nonzero, b, 1)), 0)
    lcm = np.where(a == 0, 0, np.abs(x * y) // np.where(a == 0, 1, a))   # floor division, as Paddle does
    return a.astype(x.dtype), lcm.astype(x.dtype)


_INT32_INT64 = Err((T(np.array([1, 2]), dtype="int32"), T(np.array([1, 2]), dtype="int64")), exc=TypeError)
_DTYPE_MISMATCH = Err((T(np.ones((2, 3)), dtype="float32"), T(np.ones((2, 3)), dtype="float64")), exc=ValueError)
_BROADCAST = Err((T(np.ones((2, 3))), T(np.ones((4, 3)))), exc=ValueError, note="shapes cannot broadcast")
_SHAPE_MISMATCH = Err((T(np.ones((2, 2))), T(np.ones((1, 2)))), exc=RuntimeError, note="isclose needs equal shapes")

OPS = [OpCase(api, api, _float_ref(ref), unary(**rng_range), NUMERIC,
              errors=_UNARY_ERRORS if api not in ("deg2rad", "rad2deg") else (_NOT_TENSOR, _NUMPY_ARG))
       for api, ref, rng_range, _ in _FLOAT_UNARY]
# NOTE: Paddle's deg2rad/rad2deg map a bool tensor to a bool tensor.
OPS += [OpCase(f"{api}_bool", api, lambda x, ref=ref: ref(x.astype(np.float64)).astype(bool),
               fixed(Sample((T(np.array([True, False, True])),))), ("bool",), grad=False)
        for api, ref in (("deg2rad", np.deg2rad), ("rad2deg", np.rad2deg))]
OPS += [OpCase(f"{api}_complex", api, ref, _COMPLEX_DATA, COMPLEX) for api, ref, _, ok in _FLOAT_UNARY
        if ok and api not in ("deg2rad", "rad2deg")]
OPS += [OpCase(f"{api}_no_complex", api, errors=(_COMPLEX_IN,), grad=False) for api, _, _, ok in _FLOAT_UNARY
        if not ok]
OPS += [OpCase(api, api, ref, unary(), NUMERIC, errors=(_NOT_TENSOR, _NUMPY_ARG)) for api, ref in _KEEP_UNARY]
OPS += [
    OpCase("abs_complex", "abs", np.abs, _COMPLEX_DATA, COMPLEX, errors=(_BOOL,)),
    OpCase("sign_complex", "sign", lambda x: x / np.abs(x), _COMPLEX_DATA, COMPLEX, errors=(_BOOL,)),
    OpCase("square_complex", "square", np.square, _COMPLEX_DATA, COMPLEX, errors=(_BOOL,)),
    OpCase("ceil_errors", "ceil", errors=(_BOOL, _COMPLEX_IN), grad=False),
    OpCase("floor_errors", "floor", errors=(_BOOL, _COMPLEX_IN), grad=False),
    OpCase("trunc_errors", "trunc", errors=(_BOOL, _COMPLEX_IN), grad=False),
    OpCase("frac_errors", "frac", errors=(Err((T(np.array([True])),), exc=TypeError),
                                          Err((T(np.array([1j]), dtype="complex64"),), exc=TypeError)), grad=False),
    OpCase("tensor_neg", "Tensor.__neg__", np.negative, unary(), NUMERIC),
    OpCase("tensor_abs", "Tensor.__abs__", np.abs, unary(), NUMERIC),
    OpCase("tensor_exp_method", "Tensor.exp", np.exp, unary(), FLOATS),
    # grad=False: the samples sit on round's jumps (x.5), where finite differences are meaningless
    OpCase("round", "round", _round, _ROUND, NUMERIC, grad=False,
           errors=(Err((_X,), {"decimals": 1.5}, exc=TypeError), _NOT_TENSOR, _BOOL)),
    OpCase("round_complex", "round", lambda x: np.round(x.real) + 1j * np.round(x.imag), _COMPLEX_DATA, COMPLEX),
    OpCase("stanh", "stanh", lambda x, scale_a=0.67, scale_b=1.7159: scale_b * np.tanh(scale_a * x),
           fixed(Sample((T(np.linspace(-2, 2, 12).reshape(3, 4)),)),
                 Sample((T(np.linspace(-2, 2, 5)),), {"scale_a": 1.0, "scale_b": 2.0})), NUMERIC,
           errors=_UNARY_ERRORS),
    OpCase("logit", "logit", _logit,
           fixed(Sample((T(np.array([0.1, 0.25, 0.5, 0.8, 0.95])),)),
                 Sample((T(np.array([0.0, 0.2, 1.0, 1.5, 0.05])),), {"eps": 0.1})), FLOATS,
           errors=(_NOT_TENSOR, _BOOL, _COMPLEX_IN)),
    OpCase("nan_to_num", "nan_to_num", _nan_to_num,
           fixed(Sample((T(np.array([np.nan, np.inf, -np.inf, 1.0, -2.5])),)),
                 Sample((T(np.array([np.nan, np.inf, -np.inf, 1.0])),), {"nan": 1.0, "posinf": 2.0, "neginf": -3.0})),
           FLOATS, grad=False,   # finite differences cannot step around inf
           errors=(Err((T(np.array([1, 2])),), exc=AssertionError), _NOT_TENSOR)),
    OpCase("isfinite", "isfinite", np.isfinite, _SPECIAL, FLOATS, grad=False, errors=_UNARY_ERRORS),
    OpCase("isinf", "isinf", np.isinf, _SPECIAL, FLOATS, grad=False, errors=_UNARY_ERRORS),
    OpCase("isnan", "isnan", np.isnan, _SPECIAL, FLOATS, grad=False, errors=_UNARY_ERRORS),
    OpCase("isfinite_int", "isfinite", np.isfinite, unary(), INTS, grad=False),
    OpCase("isnan_int", "isnan", np.isnan, unary(), INTS, grad=False),
    OpCase("conj", "conj", np.conj, _COMPLEX_DATA, COMPLEX, errors=(_NOT_TENSOR, _BOOL)),
    OpCase("conj_real", "conj", np.conj, unary(), NUMERIC),
    OpCase("real", "real", np.real, _COMPLEX_DATA, COMPLEX,
           errors=(Err((T(np.ones(2)),), exc=RuntimeError), _NOT_TENSOR)),
    OpCase("imag", "imag", np.imag, _COMPLEX_DATA, COMPLEX,
           errors=(Err((T(np.ones(2)),), exc=RuntimeError), _NOT_TENSOR)),
    OpCase("tanh_", "tanh_", np.tanh, _COMPLEX_DATA, COMPLEX,
           errors=(Err((T(np.ones(2)),), exc=ValueError, note="leaf Tensor that needs grad"), _BOOL,
                   Err((T(np.array([1, 2])),), exc=RuntimeError))),
    OpCase("scale", "scale", _scale, _SCALE, NUMERIC,
           errors=(Err((_X,), {"scale": T(np.array([1.0, 2.0]))}, exc=ValueError), _NOT_TENSOR,
                   Err((_X,), {"act": "no_such_activation"}, exc=AttributeError))),
    OpCase("clip", "clip", _clip, _CLIP, NUMERIC,
           errors=(Err((_X, 1.0, -1.0), exc=ValueError), Err((_X, T(np.array([0.0, 1.0]))), exc=ValueError),
                   _BOOL, _NOT_TENSOR)),
    OpCase("clip_int_float_bounds", "clip", _clip, _CLIP_FLOAT_BOUNDS, INTS, grad=False),
    OpCase("increment", "increment", _increment, _INCREMENT, NUMERIC, grad=False,
           errors=(Err((T(np.ones(2)),), exc=ValueError), _NOT_TENSOR)),
    OpCase("atan2", "atan2", lambda x, y: np.arctan2(x, y), binary(), NUMERIC,
           errors=(_INT32_INT64, _BROADCAST, Err((_X, 1.0), exc=ValueError))),
    OpCase("hypot", "hypot", lambda x, y: np.hypot(x.astype(np.float32), y) if x.dtype.kind in "iu" else
           np.hypot(x, y), binary(), NUMERIC,
           errors=(Err((_X, 2.0), exc=TypeError), _BROADCAST, Err(([1.0], _X), exc=ValueError))),
    OpCase("lerp", "lerp", _lerp, _LERP, FLOATS,
           errors=(Err((T(np.array([1, 2])), T(np.array([3, 4])), 0.5), exc=RuntimeError),
                   Err((T(np.ones(2), dtype="float32"), T(np.ones(2), dtype="float64"), 0.5), exc=ValueError),
                   Err((T(np.ones(2)), T(np.ones(3)), 0.5), exc=ValueError))),
    OpCase("gcd", "gcd", np.gcd, _GCD, INTS, grad=False,
           errors=(_INT32_INT64, _BROADCAST, Err((_X, [1.0]), exc=ValueError))),
    OpCase("lcm", "lcm", np.lcm, _GCD, INTS, grad=False,
           errors=(_INT32_INT64, _BROADCAST, Err(([1], _X), exc=ValueError))),
    OpCase("gcd_float", "gcd", lambda x, y: _float_euclid(x, y)[0], _GCD_FLOAT, FLOATS, grad=False),
    OpCase("lcm_float", "lcm", lambda x, y: _float_euclid(x, y)[1], _GCD_FLOAT, FLOATS, grad=False),
    OpCase("isclose", "isclose", _isclose, _close_pairs, FLOATS, grad=False,
           errors=(_SHAPE_MISMATCH, _DTYPE_MISMATCH,
                   Err((T(np.array([1, 2])), T(np.array([1, 2]))), exc=RuntimeError))),
    OpCase("allclose", "allclose", _allclose, _close_pairs, FLOATS, grad=False,
           errors=(_SHAPE_MISMATCH, _DTYPE_MISMATCH, Err(([1.0], [1.0]), exc=ValueError))),
    OpCase("allclose_int", "allclose", _allclose, _shapes(((3, 4), (3, 4))), INTS, grad=False),
    OpCase("equal_all", "equal_all", _equal_all,
           lambda rng, dtype: [Sample((T(a), T(a.copy()))) for a in [data(rng, (3, 4), dtype)]] +
           _shapes(((3, 4), (3, 4)), ((2, 3), (3,)))(rng, dtype), ALL, grad=False,
           errors=(_DTYPE_MISMATCH, Err((_X, [1.0, 2.0]), exc=ValueError), Err(([1.0], _X), exc=ValueError))),
    OpCase("inner", "inner", np.inner, _shapes(((3, 4), (5, 4)), ((4,), (4,)), ((2, 3, 4), (4,)), ((2, 3), ())),
           NUMERIC, errors=(Err((T(np.ones((2, 2))), T(np.ones(3))), exc=ValueError), _DTYPE_MISMATCH)),
    OpCase("outer", "outer", np.outer, _shapes(((3,), (4,)), ((2, 2), (3,)), ((), (2,))), NUMERIC,
           errors=(_INT32_INT64, Err(([1.0], _X), exc=ValueError))),
    OpCase("kron", "kron", np.kron, _shapes(((2, 2), (2,)), ((2, 3), (3, 2)), ((2, 1, 2), (2, 2))), NUMERIC,
           errors=(_DTYPE_MISMATCH, Err((_X, [1.0]), exc=ValueError))),
    OpCase("addmm", "addmm", _addmm, _ADDMM, FLOATS,
           errors=(Err((T(np.ones((2, 2))), T(np.ones(2)), T(np.ones(2))), exc=ValueError),
                   Err((T(np.ones((2, 2))), T(np.ones((2, 2))), T(np.ones((3, 2)))), exc=ValueError),
                   Err((T(np.ones(3)), T(np.ones((2, 2))), T(np.ones((2, 2)))), exc=ValueError),
                   Err((T(np.ones((2, 2)), dtype="int64"),) * 3, exc=RuntimeError))),
    OpCase("trace", "trace", lambda x, offset=0, axis1=0, axis2=1: np.asarray(np.trace(x, offset, axis1, axis2)),
           _TRACE, NUMERIC,
           errors=(Err((T(np.ones(3)),), exc=IndexError), Err((_X, 0, 0, 0), exc=ValueError),
                   Err((_X, 0, 0, 2), exc=IndexError))),
]

"""_C_ops: elementwise, activations, reductions, manipulation and creation."""
from .. import ops as _ops
from .. import tensor as _pt
from ._common import (_F, _axes, _device, _dtype_or_none, _ints, _op, _proto, _register, _result,
                      _Tensor, _write_out)


# -- elementwise: same positional meaning as the public function -----------------------------------------
def _same(name, fn):
    def call(*args, out=None):
        return _result(fn(*args), out, name)
    return _register(name, call)


for _name, _fn in [
        # binary (x, y)
        ("add", _pt.add), ("subtract", _pt.subtract), ("multiply", _pt.multiply), ("divide", _pt.divide),
        ("maximum", _pt.maximum), ("minimum", _pt.minimum), ("fmax", _pt.fmax), ("fmin", _pt.fmin),
        ("remainder", _pt.remainder), ("floor_divide", _pt.floor_divide), ("elementwise_pow", _pt.pow),
        ("atan2", _pt.atan2), ("heaviside", _pt.heaviside), ("kron", _pt.kron), ("dot", _pt.dot),
        ("bmm", _pt.bmm), ("mv", _pt.mv), ("equal", _pt.equal), ("not_equal", _pt.not_equal),
        ("greater_than", _pt.greater_than), ("greater_equal", _pt.greater_equal), ("less_than", _pt.less_than),
        ("less_equal", _pt.less_equal), ("logical_and", _pt.logical_and), ("logical_or", _pt.logical_or),
        ("logical_xor", _pt.logical_xor), ("bitwise_and", _pt.bitwise_and), ("bitwise_or", _pt.bitwise_or),
        ("bitwise_xor", _pt.bitwise_xor), ("masked_select", _pt.masked_select), ("gather_nd", _pt.gather_nd),
        ("index_sample", _pt.index_sample), ("scatter_nd_add", _pt.scatter_nd_add), ("lerp", _pt.lerp),
        ("where", _pt.where), ("bce_loss", _ops.bce_loss),
        # unary (x)
        ("relu", _F.relu), ("relu6", _F.relu6), ("sigmoid", _F.sigmoid), ("tanh", _pt.tanh), ("exp", _pt.exp),
        ("expm1", _pt.expm1), ("log", _pt.log), ("log2", _pt.log2), ("log10", _pt.log10), ("log1p", _pt.log1p),
        ("sqrt", _pt.sqrt), ("rsqrt", _pt.rsqrt), ("abs", _pt.abs), ("square", _pt.square),
        ("floor", _pt.floor), ("ceil", _pt.ceil), ("trunc", _pt.trunc), ("sign", _pt.sign), ("sin", _pt.sin),
        ("cos", _pt.cos), ("tan", _pt.tan), ("asin", _pt.asin), ("acos", _pt.acos), ("atan", _pt.atan),
        ("sinh", _pt.sinh), ("cosh", _pt.cosh), ("asinh", _pt.asinh), ("acosh", _pt.acosh),
        ("atanh", _pt.atanh), ("erf", _pt.erf), ("erfinv", _pt.erfinv), ("reciprocal", _pt.reciprocal),
        ("digamma", _pt.digamma), ("lgamma", _pt.lgamma), ("silu", _F.silu), ("swish", _F.swish),
        ("logsigmoid", _F.log_sigmoid), ("tanh_shrink", _F.tanhshrink), ("softsign", _F.softsign),
        ("hardswish", _F.hardswish), ("isnan", _pt.isnan), ("isinf", _pt.isinf), ("isfinite", _pt.isfinite),
        ("logical_not", _pt.logical_not), ("bitwise_not", _pt.bitwise_not), ("assign", _pt.assign),
        ("numel", _pt.numel), ("conj", _pt.conj), ("real", _pt.real), ("imag", _pt.imag),
        ("add_n", _pt.add_n), ("meshgrid", _pt.meshgrid)]:
    _same(_name, _fn)


@_op
def nonzero(x, out=None):
    return _result(_pt.nonzero(x), out, "nonzero")


@_op
def mean_all(x):
    return _pt.mean(x)


@_op
def shape(input):
    # NOTE: Paddle's shape op gives int32 (paddle.shape casts to int64 in 3.x)
    return _pt.cast(_ops.shape(input), "int32")


@_op
def matmul(x, y, transpose_x=False, transpose_y=False, out=None):
    return _result(_pt.matmul(x, y, transpose_x, transpose_y), out, "matmul")


@_op
def linear(x, weight, bias):
    return _F.linear(x, weight, bias)


@_op
def addmm(input, x, y, beta=1.0, alpha=1.0):
    return _pt.addmm(input, x, y, beta, alpha)


@_op
def cross(x, y, axis=9):
    # NOTE: axis 9 is Paddle's "first axis of size 3"
    return _pt.cross(x, y, None if axis == 9 else axis)


@_op
def einsum(x, equation):
    """-> (out, inner_cache, xshape); the two caches are Paddle's backward buffers, returned empty here."""
    return _pt.einsum(equation, *x), [], []


@_op
def isclose(x, y, rtol=1e-5, atol=1e-8, equal_nan=False):
    return _pt.isclose(x, y, rtol, atol, equal_nan)


@_op
def allclose(x, y, rtol=1e-5, atol=1e-8, equal_nan=False):
    return _pt.allclose(x, y, rtol, atol, equal_nan)


# -- activations with attributes -------------------------------------------------------------------------
@_op
def round(x, decimals=0, out=None):
    return _result(_pt.round(x, decimals), out, "round")


@_op
def gelu(x, approximate=False):
    return _F.gelu(x, approximate)


@_op
def leaky_relu(x, negative_slope=0.02):
    return _F.leaky_relu(x, negative_slope)


@_op
def elu(x, alpha=1.0):
    return _F.elu(x, alpha)


@_op
def celu(x, alpha=1.0):
    return _F.celu(x, alpha)


@_op
def selu(x, scale=1.0507009873554805, alpha=1.6732632423543772):
    return _F.selu(x, scale, alpha)


@_op
def hardsigmoid(x, slope=0.2, offset=0.5):
    return _F.hardsigmoid(x, slope, offset)


@_op
def hardtanh(x, t_min=0.0, t_max=24.0):
    return _F.hardtanh(x, t_min, t_max)


@_op
def hardshrink(x, threshold=0.5):
    return _F.hardshrink(x, threshold)


@_op
def softshrink(x, threshold=0.5):
    return _F.softshrink(x, threshold)


@_op
def softplus(x, beta=1.0, threshold=20.0):
    return _F.softplus(x, beta, threshold)


@_op
def thresholded_relu(x, threshold=1.0, value=0.0):
    return _F.thresholded_relu(x, threshold, value)


@_op
def mish(x, lambda_=20.0):
    return _ops.mish(x, threshold=float(lambda_))


@_op
def prelu(x, alpha, data_format="NCHW", mode="all"):
    return _ops.prelu(x, alpha, mode=mode, data_format=data_format)


@_op
def softmax(x, axis=-1, out=None):
    return _result(_F.softmax(x, axis), out, "softmax")


@_op
def log_softmax(x, axis=-1):
    return _F.log_softmax(x, axis)


@_op
def scale(x, scale=1.0, bias=0.0, bias_after_scale=True):
    return _pt.scale(x, scale, bias, bias_after_scale)


@_op
def pow(x, y=1.0):
    return _pt.pow(x, float(y))


@_op
def clip(x, min, max):
    return _pt.clip(x, min, max)


@_op
def cast(x, dtype):
    return _pt.cast(x, dtype)


@_op
def increment(x, value=1.0):
    return _pt.increment(x, value)


@_op
def fill(x, value=0.0):
    return _pt.full_like(x, value)


# -- reductions ------------------------------------------------------------------------------------------
@_op
def sum(x, axis=None, dtype=None, keepdim=False, out=None):
    return _result(_pt.sum(x, _axes(axis), _dtype_or_none(dtype), keepdim), out, "sum")


@_op
def mean(x, axis=None, keepdim=False, out=None):
    return _result(_pt.mean(x, _axes(axis), keepdim), out, "mean")


def _reduce(name, fn):
    def call(x, axis=None, keepdim=False, out=None):
        return _result(fn(x, _axes(axis), keepdim), out, name)
    return _register(name, call)


for _name, _fn in [("max", _pt.max), ("min", _pt.min), ("amax", _pt.amax), ("amin", _pt.amin),
                   ("all", _pt.all), ("any", _pt.any)]:
    _reduce(_name, _fn)


@_op
def prod(x, axis=None, keepdim=False, reduce_all=False, out=None):
    return _result(_pt.prod(x, None if reduce_all else _axes(axis), keepdim), out, "prod")


@_op
def logsumexp(x, axis=None, keepdim=False, reduce_all=False, out=None):
    return _result(_pt.logsumexp(x, None if reduce_all else _axes(axis), keepdim), out, "logsumexp")


@_op
def argmax(x, axis=None, keepdim=False, dtype="int64"):
    return _pt.argmax(x, axis, keepdim, dtype)


@_op
def argmin(x, axis=None, keepdim=False, dtype="int64"):
    return _pt.argmin(x, axis, keepdim, dtype)


@_op
def cumsum(x, axis=-1, flatten=False, exclusive=False, reverse=False, out=None):
    result = _ops.cumsum(x, axis=-1 if flatten else int(axis), flatten=bool(flatten), exclusive=bool(exclusive),
                         reverse=bool(reverse))
    return _result(result, out, "cumsum")


@_op
def cumprod(x, dim, exclusive=False, reverse=False):
    if exclusive or reverse:
        x = _pt.flip(x, [dim]) if reverse else x
        out = _pt.cumprod(x, dim)
        if exclusive:
            ones = _pt.ones_like(_pt.slice(out, [dim], [0], [1]))
            out = _pt.concat([ones, _pt.slice(out, [dim], [0], [out.shape[dim] - 1])], dim)
        return _pt.flip(out, [dim]) if reverse else out
    return _pt.cumprod(x, dim)


@_op
def p_norm(x, porder=2.0, axis=-1, epsilon=1e-12, keepdim=False, asvector=False):
    return _ops.p_norm(x, porder=float(porder), axis=int(axis), epsilon=float(epsilon), keepdim=bool(keepdim),
                       asvector=bool(asvector))


@_op
def frobenius_norm(x, axis, keep_dim=False, reduce_all=False):
    axis = _axes(axis)
    return _ops.frobenius_norm(x, dim=list(range(len(x.shape))) if reduce_all or axis is None else axis,
                               keep_dim=bool(keep_dim), reduce_all=bool(reduce_all or axis is None))


@_op
def var(x, axis=None, keepdim=False, unbiased=None, correction=1.0, out=None):
    if unbiased is not None:
        correction = 1.0 if unbiased else 0.0
    return _result(_pt.var(x, _axes(axis), keepdim=keepdim, correction=correction), out, "var")


@_op
def std(x, axis=None, keepdim=False, unbiased=True, correction=1.0):
    if unbiased is None:
        unbiased = correction != 0
    return _pt.std(x, _axes(axis), bool(unbiased), keepdim)


def _median_pair(x, axes, keepdim):
    """Paddle's 'avg' median index: the (lower, upper) middle positions of a stable sort, on a last dim of 2."""
    if len(axes) > 1:
        return None
    flat, axis = (_pt.reshape(x, [-1]), 0) if not axes else (x, axes[0] % len(x.shape))
    n = flat.shape[axis]
    order = _pt.argsort(flat, axis=axis, stable=True)
    pair = _pt.concat([_pt.slice(order, [axis], [k], [k + 1]) for k in ((n - 1) // 2, n // 2)], axis)
    pair = _pt.moveaxis(pair, axis, -1)
    if keepdim:
        pair = _pt.reshape(pair, [1] * len(x.shape) + [2]) if not axes else _pt.unsqueeze(pair, axis)
    return pair


@_op
def median(x, axis=None, keepdim=True, mode="avg", out=None):
    """-> (out, medians): the index of the median; in 'avg' mode the pair averaged (last dim 2)."""
    axes = _ints(axis) if axis is not None else []
    value, index = _ops.median(x, axis=axes, keepdim=bool(keepdim), mode=mode)
    pair = _median_pair(x, axes, keepdim) if mode == "avg" else None
    if pair is not None:
        index = pair
    return (value if out is None else _write_out(out, value, "median")), index


@_op
def kthvalue(x, k=1, axis=-1, keepdim=False):
    return _pt.kthvalue(x, k, axis, keepdim)


@_op
def mode(x, axis=-1, keepdim=False):
    return _pt.mode(x, axis, keepdim)


@_op
def topk(x, k=1, axis=-1, largest=True, sorted=True, out=None):
    result = tuple(_pt.topk(x, k, axis, largest, sorted))
    if out is None:
        return result
    return tuple(_write_out(o, r, "topk") for o, r in zip(out, result))


@_op
def argsort(x, axis=-1, descending=False, stable=False):
    """-> (sorted values, indices)"""
    return _ops.argsort(x, axis=int(axis), descending=bool(descending), stable=bool(stable))


# -- manipulation ----------------------------------------------------------------------------------------
@_op
def reshape(x, shape):
    return _pt.reshape(x, _ints(shape))


@_op
def transpose(x, perm):
    return _pt.transpose(x, _ints(perm))


@_op
def concat(x, axis=0):
    return _pt.concat(list(x), int(axis) if isinstance(axis, _Tensor) else axis)


@_op
def split(x, sections, axis=0):
    return _pt.split(x, _ints(sections), axis)


@_op
def split_with_num(x, num, axis=0):
    return _pt.split(x, int(num), axis)


@_op
def slice(input, axes, starts, ends, infer_flags=(), decrease_axis=()):
    return _ops.slice(input, axes=_ints(axes), starts=_ints(starts), ends=_ints(ends),
                      infer_flags=list(infer_flags), decrease_axis=list(decrease_axis))


@_op
def strided_slice(x, axes, starts, ends, strides):
    return _ops.strided_slice(x, axes=_ints(axes), starts=_ints(starts), ends=_ints(ends), strides=_ints(strides))


@_op
def gather(x, index, axis=0):
    return _pt.gather(x, index, axis)


@_op
def index_select(x, index, axis=0):
    return _pt.index_select(x, index, axis)


@_op
def squeeze(x, axis=()):
    axis = _axes(axis)
    return _pt.squeeze(x, axis)


@_op
def unsqueeze(x, axis=()):
    return _pt.unsqueeze(x, _ints(axis))


@_op
def flatten(x, start_axis=1, stop_axis=1):
    return _pt.flatten(x, start_axis, stop_axis)


@_op
def expand(x, shape=()):
    return _pt.expand(x, _ints(shape))


@_op
def expand_as(x, y=None, target_shape=()):
    return _pt.expand_as(x, y) if y is not None else _pt.expand(x, _ints(target_shape))


@_op
def stack(x, axis=0):
    return _pt.stack(list(x), axis)


@_op
def unstack(x, axis=0, num=0):
    return _pt.unstack(x, axis, num or None)


@_op
def unbind(input, axis=0):
    return _pt.unbind(input, axis)


@_op
def tile(x, repeat_times):
    return _pt.tile(x, _ints(repeat_times))


@_op
def flip(x, axis):
    return _pt.flip(x, _ints(axis))


@_op
def roll(x, shifts, axis=None):
    return _pt.roll(x, shifts, _axes(axis))


@_op
def tril(x, diagonal=0, out=None):
    return _result(_pt.tril(x, diagonal), out, "tril")


@_op
def triu(x, diagonal=0, out=None):
    return _result(_pt.triu(x, diagonal), out, "triu")


@_op
def scatter(x, index, updates, overwrite=True):
    return _pt.scatter(x, index, updates, overwrite)


@_op
def put_along_axis(arr, indices, values, axis, reduce="assign", include_self=True):
    return _pt.put_along_axis(arr, indices, values, axis, reduce, include_self, broadcast=False)


@_op
def take_along_axis(arr, indices, axis):
    return _pt.take_along_axis(arr, indices, axis, broadcast=False)


@_op
def masked_fill(x, mask, value):
    return _pt.masked_fill(x, mask, value)


@_op
def index_put(x, indices, value, accumulate=False):
    return _pt.index_put(x, tuple(indices), value, accumulate)


@_op
def pad(x, paddings, pad_value=0.0):
    return _ops.pad(x, paddings=_ints(paddings), pad_value=float(pad_value))


@_op
def pad3d(x, paddings, mode="constant", pad_value=0.0, data_format="NCDHW"):
    return _ops.pad3d(x, None, paddings=_ints(paddings), mode=mode, value=float(pad_value), data_format=data_format)


@_op
def repeat_interleave(x, repeats, axis, output_size=-1):
    return _pt.repeat_interleave(x, repeats, axis)


@_op
def one_hot(x, num_classes):
    return _F.one_hot(x, int(num_classes))


@_op
def diag(x, offset=0, padding_value=0.0):
    return _pt.diag(x, offset, padding_value)


@_op
def diagonal(x, offset=0, axis1=0, axis2=1):
    return _pt.diagonal(x, offset, axis1, axis2)


@_op
def trace(x, offset=0, axis1=0, axis2=1):
    return _pt.trace(x, offset, axis1, axis2)


@_op
def unique(x, return_index=False, return_inverse=False, return_counts=False, axis=(), dtype="int64",
           is_sorted=True):
    """-> (out, indices, inverse, counts), all four always; one not asked for is an empty float32 tensor."""
    outs = _ops.unique(x, dtype=_proto(dtype), return_index=bool(return_index),
                       return_inverse=bool(return_inverse), return_counts=bool(return_counts),
                       axis=tuple(_ints(axis)), is_sorted=bool(is_sorted))
    return tuple(_pt.empty([0], "float32") if o is None else o for o in outs)


# -- creation --------------------------------------------------------------------------------------------
@_op
def full(shape, value, dtype="float32", place=None):
    return _pt.full(_ints(shape), value, dtype, device=_device(place))


@_op
def full_like(x, value, dtype=None, place=None):
    return _pt.full_like(x, value, _dtype_or_none(dtype), device=_device(place))


@_op
def ones(shape, dtype="float32", place=None):
    return _pt.ones(_ints(shape), dtype, device=_device(place))


@_op
def zeros(shape, dtype="float32", place=None):
    return _pt.zeros(_ints(shape), dtype, device=_device(place))


@_op
def empty(shape, dtype="float32", place=None):
    return _pt.empty(_ints(shape), dtype, device=_device(place))


@_op
def eye(num_rows, num_columns, dtype="float32", place=None):
    return _pt.eye(num_rows, num_columns if num_columns not in (None, -1) else None, dtype, device=_device(place))


@_op
def arange(start, end, step, dtype, place=None):
    return _pt.arange(start, end, step, dtype, device=_device(place))


@_op
def linspace(start, stop, number, dtype, place=None):
    return _pt.linspace(start, stop, number, dtype, device=_device(place))


@_op
def uniform(shape, dtype, min, max, seed, place=None):
    return _pt.uniform(_ints(shape), dtype, min, max, seed, device=_device(place))


@_op
def gaussian(shape, mean, std, seed, dtype, place=None):
    return _ops.gaussian_random(shape=_ints(shape), mean=float(mean), std=float(std), seed=int(seed),
                                dtype=_proto(dtype))


@_op
def randint(low, high, shape, dtype="int64", place=None):
    return _pt.randint(low, high, _ints(shape), dtype)


@_op
def tril_indices(rows, cols, offset, dtype, place=None):
    return _pt.tril_indices(rows, cols, offset, dtype)


@_op
def triu_indices(row, col, offset, dtype, place=None):
    return _pt.triu_indices(row, col, offset, dtype)


del _name, _fn

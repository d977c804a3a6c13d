"""Rows for nn.functional resampling and layout functions: interpolate / upsample, pad, pixel_shuffle /
pixel_unshuffle / channel_shuffle, grid_sample, affine_grid, temporal_shift, unfold / fold, gather_tree.
The interpolation reference follows Paddle's rules: ratio (in-1)/(out-1) with align_corners, else 1/scale or
in/out, and 0 for a size-one output; align_mode=1 maps dst -> ratio*dst; sizes from scales in float32."""
import numpy as np

from .core import NUMERIC, Err, OpCase, Sample, T
from .rows_nn_conv import windows

_LAYOUT = {3: "NCW", 4: "NCHW", 5: "NCDHW"}


# -- interpolate ----------------------------------------------------------------------------------------------

def _cubic(t):
    a = -0.75
    near = lambda d: ((a + 2) * d - (a + 3)) * d * d + 1  # noqa: E731
    far = lambda d: ((a * d - 5 * a) * d + 8 * a) * d - 4 * a  # noqa: E731
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _resample(x, axis, n_out, ratio, method, align_corners, align_mode):
    n_in = x.shape[axis]
    k = np.arange(n_out, dtype=np.float32)
    ratio = np.float32(ratio)
    shape = [1] * x.ndim
    shape[axis] = -1
    if method == "nearest":
        return np.take(x, np.minimum((ratio * k).astype(np.int64), n_in - 1), axis=axis)
    if method == "bicubic":
        src = ratio * k if align_corners else ratio * (k + np.float32(0.5)) - np.float32(0.5)
        base = np.floor(src)
        ws = _cubic(src - base)
        out = 0
        for j, w in enumerate(ws):
            idx = np.clip(base.astype(np.int64) - 1 + j, 0, n_in - 1)
            out = out + np.take(x, idx, axis=axis) * w.reshape(shape)
        return out
    if align_mode == 0 and not align_corners:
        src = np.maximum(ratio * (k + np.float32(0.5)) - np.float32(0.5), 0)
    else:
        src = ratio * k
    lo = np.minimum(src.astype(np.int64), n_in - 1)
    hi = np.minimum(lo + 1, n_in - 1)
    lam = (src - lo).reshape(shape).astype(np.float64)
    return np.take(x, lo, axis=axis) * (1 - lam) + np.take(x, hi, axis=axis) * lam


def ref_interpolate(x, size=None, scale_factor=None, mode="nearest", align_corners=False, align_mode=0,
                    data_format=None):
    nd = x.ndim - 2
    last = data_format is not None and data_format.endswith("C")
    if last:
        x = np.moveaxis(x, -1, 1)
    in_sizes = x.shape[2:]
    if mode == "area":
        from .rows_nn_pool import np_adaptive
        sizes = [size] * nd if np.ndim(size) == 0 else list(size)
        out = np_adaptive(x, "avg", sizes)[0]
        return np.moveaxis(out, 1, -1) if last else out
    if size is not None:
        sizes, scales = list(size), [0.0] * nd
    else:
        scales = [float(scale_factor)] * nd if np.ndim(scale_factor) == 0 else [float(s) for s in scale_factor]
        sizes = [int(np.float32(n) * np.float32(s)) for n, s in zip(in_sizes, scales)]
    out = x.astype(np.float64)
    if list(sizes) == list(in_sizes):
        return np.moveaxis(out, 1, -1) if last else out
    for i in range(nd):
        n_in, n_out, s = in_sizes[i], sizes[i], scales[i]
        if n_out <= 1 and (align_corners or mode in ("bilinear", "bicubic", "nearest")):
            ratio = 0.0
        elif align_corners:
            ratio = np.float32(n_in - 1) / np.float32(n_out - 1)
        else:
            ratio = np.float32(1.0 / s) if s > 0 else np.float32(n_in) / np.float32(n_out)
        out = _resample(out, 2 + i, n_out, ratio, mode, align_corners, align_mode)
    return np.moveaxis(out, 1, -1) if last else out


def _interp_samples(rng, dtype):
    r = lambda *s: T(rng.uniform(-1, 1, size=s))  # noqa: E731
    return [
        Sample((r(1, 2, 3, 4),), dict(size=[5, 7])),
        Sample((r(1, 2, 4, 5),), dict(scale_factor=2)),
        Sample((r(1, 2, 10, 5),), dict(scale_factor=[0.7, 1.5])),
        Sample((r(1, 2, 3, 4),), dict(size=[5, 7], mode="bilinear")),
        Sample((r(1, 2, 3, 4),), dict(size=[5, 7], mode="bilinear", align_corners=True)),
        Sample((r(1, 2, 3, 4),), dict(size=[5, 7], mode="bilinear", align_mode=1)),
        Sample((r(1, 2, 6, 7),), dict(scale_factor=0.6, mode="bilinear", align_mode=1)),
        Sample((r(1, 2, 6, 7),), dict(scale_factor=[1.7, 0.5], mode="bilinear")),
        Sample((r(1, 2, 5, 4),), dict(size=[1, 3], mode="bilinear")),
        Sample((r(1, 4, 3, 2),), dict(size=[6, 5], mode="bilinear", data_format="NHWC")),
        Sample((r(1, 2, 4, 5),), dict(size=[7, 3], mode="bicubic")),
        Sample((r(1, 2, 4, 5),), dict(size=[7, 3], mode="bicubic", align_corners=True)),
        Sample((r(1, 2, 4, 5),), dict(scale_factor=1.6, mode="bicubic")),
        Sample((r(1, 2, 4, 5),), dict(size=[1, 1], mode="bicubic")),
        Sample((r(2, 3, 5),), dict(size=[8], mode="linear")),
        Sample((r(2, 3, 5),), dict(scale_factor=1.5, mode="linear", align_mode=1)),
        Sample((r(2, 5, 3),), dict(size=[7], mode="linear", align_corners=True, data_format="NWC")),
        Sample((r(1, 2, 2, 3, 4),), dict(size=[3, 4, 6], mode="trilinear")),
        Sample((r(1, 2, 2, 3, 4),), dict(scale_factor=[2, 1.5, 0.5], mode="trilinear", align_mode=1)),
        Sample((r(1, 2, 2, 3, 4),), dict(size=[4, 5, 3], mode="trilinear", align_corners=True)),
        Sample((r(1, 2, 2, 3, 4),), dict(size=[3, 6, 5])),
        Sample((r(1, 3, 4, 2, 2),), dict(scale_factor=2, data_format="NDHWC")),
        Sample((r(1, 2, 7, 5),), dict(size=[3, 2], mode="area")),
        Sample((r(1, 2, 7),), dict(size=3, mode="area")),
        Sample((r(1, 3, 4, 2),), dict(scale_factor=[1.5, 0.8], mode="bilinear", align_mode=1, data_format="NHWC")),
        Sample((r(1, 2, 5, 3),), dict(size=[6, 1], mode="bilinear", align_corners=True)),
        Sample((r(1, 2, 2, 3, 4),), dict(scale_factor=[1.5, 2, 0.5])),
        Sample((r(1, 2, 4),), dict(size=[1], mode="linear")),
        Sample((r(1, 2, 2, 2, 4),), dict(size=[1, 1, 3], mode="trilinear")),
        Sample((r(1, 2, 1, 2),), dict(scale_factor=1.3, mode="bicubic")),
        Sample((r(1, 2, 3, 4),), dict(scale_factor=[1.2, 1.1], mode="bilinear", align_mode=1)),
    ]


def _interp_antialias(rng, dtype):
    r = lambda *s: T(rng.uniform(-1, 1, size=s))  # noqa: E731
    return [
        Sample((r(1, 2, 9, 8),), dict(size=[4, 3], mode="bilinear", antialias=True)),
        Sample((r(1, 2, 9, 8),), dict(scale_factor=0.4, mode="bicubic", antialias=True)),
        Sample((r(1, 2, 9, 8),), dict(size=[4, 5], mode="bilinear", antialias=True, align_corners=True)),
        Sample((r(1, 2, 3, 4),), dict(size=[5, 7], mode="bicubic", antialias=True)),
    ]


def _interp_tensor_args(rng, dtype):
    r = lambda *s: T(rng.uniform(-1, 1, size=s))  # noqa: E731
    return [
        Sample((r(1, 2, 3, 4),), dict(size=T(np.array([5, 6]), dtype="int32"), mode="bilinear")),
        Sample((r(1, 2, 3, 4),), dict(size=[T(np.array(5), dtype="int64"), 6], mode="nearest")),
        Sample((r(1, 2, 3, 4),), dict(scale_factor=T(np.array(2.0), dtype="float32", grad=False), mode="bicubic")),
        Sample((r(1, 2, 3, 4),), dict(scale_factor=1.5, mode="bilinear", recompute_scale_factor=True)),
    ]


def _upsample_samples(rng, dtype):
    r = lambda *s: T(rng.uniform(-1, 1, size=s))  # noqa: E731
    return [
        Sample((r(1, 2, 3, 4), [6, 8])),
        Sample((r(1, 2, 3, 4), None, 1.5, "bilinear")),
        Sample((r(1, 2, 3, 4), [5, 5], None, "bilinear", True)),
        Sample((r(1, 2, 3, 4), [5, 5], None, "bilinear", False, 1)),
        Sample((r(1, 2, 4, 5),), dict(size=[2, 3], mode="bicubic")),
    ]


_X4 = T(np.ones((1, 2, 3, 4)))
_INTERP_ERRORS = (
    Err((_X4,), dict(size=[4, 4], mode="cubic"), note="unknown mode"),
    Err((_X4,), note="neither size nor scale_factor"),
    Err((_X4,), dict(size=[4, 4], scale_factor=2), note="both size and scale_factor"),
    Err((_X4,), dict(size=[4, 4, 4]), note="3 sizes for a 4-D input"),
    Err((_X4,), dict(size=[4, 4], mode="linear"), note="linear on a 4-D input"),
    Err((_X4,), dict(size=[4, 4], mode="trilinear"), note="trilinear on a 4-D input"),
    Err((_X4,), dict(size=[4, 4], mode="nearest", align_corners=True), note="nearest with align_corners"),
    Err((_X4,), dict(size=[4, 4], mode="bilinear", align_mode=2), note="align_mode 2"),
    Err((_X4,), dict(scale_factor=-1.0, mode="bilinear"), note="negative scale"),
    Err((_X4,), dict(scale_factor=[2, 2, 2]), note="3 scales for a 4-D input"),
    Err((_X4,), dict(size=[4, 4], data_format="NCDHW"), note="5-D format for a 4-D input"),
    Err((_X4,), dict(size=[4, 4], mode="bilinear", align_corners=1), exc=TypeError,
        note="align_corners not a bool"),
    Err((_X4,), dict(size=[4, 4], recompute_scale_factor=True), note="recompute with an explicit size"),
    Err((T(np.ones((1, 2, 3))),), dict(size=[4], mode="nearest"), note="nearest on a 3-D input"),
    Err((_X4,), dict(size=[4, 0]), exc=AssertionError, note="a zero output size"),
    Err((_X4,), dict(scale_factor="2"), exc=TypeError, note="string scale"),
)


# -- pad ------------------------------------------------------------------------------------------------------

_NP_MODE = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def ref_pad(x, pad, mode="constant", value=0.0, data_format=None, pad_from_left_axis=True):
    rank = x.ndim
    pad = list(pad)
    if mode == "constant" and len(pad) != 2 * (rank - 2):
        full = pad + [0] * (2 * rank - len(pad))
        if len(pad) == 2 * rank and pad_from_left_axis:
            widths = [(full[2 * i], full[2 * i + 1]) for i in range(rank)]
        else:
            widths = [(full[2 * i], full[2 * i + 1]) for i in range(rank)][::-1]
        return np.pad(x, widths, constant_values=value)
    last = data_format is not None and data_format.endswith("C")
    spatial = [(pad[2 * i], pad[2 * i + 1]) for i in range(rank - 2)][::-1]
    widths = [(0, 0)] + spatial + [(0, 0)] if last else [(0, 0), (0, 0)] + spatial
    if mode == "constant":
        return np.pad(x, widths, constant_values=value)
    return np.pad(x, widths, mode=_NP_MODE[mode])


def _pad_samples(rng, dtype):
    def r(*s):
        return T(rng.uniform(-2, 2, size=s) if dtype.startswith("float") else rng.integers(-5, 5, size=s))
    out = [
        Sample((r(1, 2, 3, 4), [1, 2, 0, 1])),
        Sample((r(1, 2, 3, 4), [1, 2, 0, 1]), dict(value=1.5)),
        Sample((r(1, 2, 3, 4), [1, 2])),
        Sample((r(2, 3), [1, 0, 0, 2])),
        Sample((r(2, 3), [1, 0, 0, 2]), dict(pad_from_left_axis=False)),
        Sample((r(1, 1, 3), [1, 0, 0, 1, 0, 0])),
        Sample((r(1, 1, 3), [1, 0, 0, 1, 0, 0]), dict(pad_from_left_axis=False)),
        Sample((r(2, 3, 4), [2, 1], ), dict(value=-1)),
        Sample((r(1, 2, 3, 2, 2), [1, 0, 0, 1, 1, 1])),
        Sample((r(1, 3, 4, 2), [1, 1, 2, 0]), dict(data_format="NHWC")),
        Sample((r(1, 2, 3, 4, 1, 2), [1, 1])),
    ]
    if dtype.startswith("float"):
        out += [
            Sample((r(1, 2, 3, 4), [1, 2, 2, 0]), dict(mode="reflect")),
            Sample((r(1, 2, 3, 4), [3, 2, 1, 2]), dict(mode="replicate")),
            Sample((r(1, 2, 3, 4), [5, 2, 1, 3]), dict(mode="circular")),
            Sample((r(1, 2, 5), [2, 3]), dict(mode="reflect")),
            Sample((r(1, 5, 2), [2, 3]), dict(mode="replicate", data_format="NLC")),
            Sample((r(1, 2, 3, 3, 4), [1, 2, 0, 1, 2, 1]), dict(mode="circular")),
            Sample((r(1, 3, 3, 4, 2), [1, 2, 0, 1, 2, 1]), dict(mode="reflect", data_format="NDHWC")),
        ]
    return out


_PAD_ERRORS = (
    Err((_X4, [1, 0, 0, 0]), dict(mode="edge"), exc=AssertionError, note="unknown mode"),
    Err((_X4, [4, 0, 0, 0]), dict(mode="reflect"), note="reflect padding as wide as the input"),
    Err((T(np.ones((3, 4))), [1, 0, 0, 0]), dict(mode="reflect"), exc=AssertionError, note="2-D reflect"),
    Err((T(np.ones((1, 2, 4))), [1, 0, 1, 1]), dict(mode="reflect"), note="4 paddings for one spatial dim"),
    Err((_X4, [-1, 0, 0, 0, 0, 0, 0, 0]), note="negative padding"),
    Err((_X4, [1, 0, 0, 0]), dict(data_format="NCL"), exc=AssertionError, note="1-D format for a 4-D input"),
    Err((T(np.ones((1, 1, 3, 3)), dtype="bool"), [1, 0, 1, 1]), exc=RuntimeError, note="bool input"),
)


# -- shuffles -------------------------------------------------------------------------------------------------

def _cf(x, data_format):
    return np.moveaxis(x, -1, 1) if data_format == "NHWC" else x


def _cl(x, data_format):
    return np.moveaxis(x, 1, -1) if data_format == "NHWC" else x


def ref_pixel_shuffle(x, upscale_factor, data_format="NCHW"):
    x, r = _cf(x, data_format), upscale_factor
    n, c, h, w = x.shape
    out = x.reshape(n, c // (r * r), r, r, h, w).transpose(0, 1, 4, 2, 5, 3).reshape(n, c // (r * r), h * r, w * r)
    return _cl(out, data_format)


def ref_pixel_unshuffle(x, downscale_factor, data_format="NCHW"):
    x, r = _cf(x, data_format), downscale_factor
    n, c, h, w = x.shape
    out = x.reshape(n, c, h // r, r, w // r, r).transpose(0, 1, 3, 5, 2, 4).reshape(n, c * r * r, h // r, w // r)
    return _cl(out, data_format)


def ref_channel_shuffle(x, groups, data_format="NCHW"):
    x = _cf(x, data_format)
    n, c, h, w = x.shape
    return _cl(x.reshape(n, groups, c // groups, h, w).transpose(0, 2, 1, 3, 4).reshape(n, c, h, w), data_format)


def _shuffle_samples(kind):
    def make(rng, dtype):
        r = lambda *s: T(rng.uniform(-1, 1, size=s))  # noqa: E731
        if kind == "pixel_shuffle":
            return [Sample((r(2, 8, 2, 3), 2)), Sample((r(1, 9, 2, 2), 3)),
                    Sample((r(1, 2, 3, 8), 2), dict(data_format="NHWC"))]
        if kind == "pixel_unshuffle":
            return [Sample((r(2, 2, 4, 6), 2)), Sample((r(1, 1, 6, 3), 3)),
                    Sample((r(1, 4, 2, 3), 2), dict(data_format="NHWC"))]
        return [Sample((r(2, 6, 2, 3), 3)), Sample((r(1, 8, 2, 2), 2)),
                Sample((r(1, 2, 3, 6), 2), dict(data_format="NHWC"))]
    return make


_PS_ERRORS = (
    Err((T(np.ones((1, 6, 2, 2))), 2), note="channels not divisible by factor^2"),
    Err((T(np.ones((6, 2, 2))), 2), note="3-D input"),
    Err((T(np.ones((1, 8, 2, 2))), 2, "NCL"), note="bad data_format"),
    Err((T(np.ones((1, 8, 2, 2))), 0), note="zero factor"),
    Err((T(np.ones((1, 8, 2, 2))), 2.0), exc=TypeError, note="float factor"),
)
_PU_ERRORS = (
    Err((T(np.ones((1, 1, 3, 4))), 2), note="height not divisible"),
    Err((T(np.ones((1, 3, 4))), 2), note="3-D input"),
    Err((T(np.ones((1, 1, 4, 4))), 0), note="zero factor"),
    Err((T(np.ones((1, 1, 4, 4))), 2.0), exc=TypeError, note="float factor"),
    Err((T(np.ones((1, 1, 4, 4))), 2, "NCDHW"), note="bad data_format"),
)
_CS_ERRORS = (
    Err((T(np.ones((1, 6, 3, 4))), 4), note="channels not divisible by groups"),
    Err((T(np.ones((1, 6, 3, 4))), 0), note="zero groups"),
    Err((T(np.ones((6, 3, 4))), 2), note="3-D input"),
    Err((T(np.ones((1, 6, 3, 4))), 2.0), exc=TypeError, note="float groups"),
)


# -- grid_sample / affine_grid ------------------------------------------------------------------------------

def _unnormalize(coord, size, align_corners):
    return (coord + 1) / 2 * (size - 1) if align_corners else ((coord + 1) * size - 1) / 2


def _reflect(coord, twice_low, twice_high):
    """Reflect coord into [twice_low / 2, twice_high / 2]."""
    if twice_low == twice_high:
        return np.zeros_like(coord)
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    coord = np.abs(coord - low)
    extra = np.fmod(coord, span)
    flips = np.floor(coord / span)
    return np.where(flips % 2 == 0, extra + low, span - extra + low)


def _source(coord, size, padding_mode, align_corners):
    c = _unnormalize(coord, size, align_corners)
    if padding_mode == "border":
        c = np.clip(c, 0, size - 1)
    elif padding_mode == "reflection":
        c = _reflect(c, 0, 2 * (size - 1)) if align_corners else _reflect(c, -1, 2 * size - 1)
        c = np.clip(c, 0, size - 1)
    return c


def ref_grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=True):
    n, c, h, w = x.shape
    gx = _source(grid[..., 0], w, padding_mode, align_corners)
    gy = _source(grid[..., 1], h, padding_mode, align_corners)
    out = np.zeros((n, c) + grid.shape[1:3])

    def pick(b, yy, xx):
        valid = (yy >= 0) & (yy < h) & (xx >= 0) & (xx < w)
        vals = x[b][:, np.clip(yy, 0, h - 1), np.clip(xx, 0, w - 1)]
        return vals * valid
    for b in range(n):
        if mode == "nearest":
            out[b] = pick(b, np.round(gy[b]).astype(np.int64), np.round(gx[b]).astype(np.int64))
            continue
        x0, y0 = np.floor(gx[b]).astype(np.int64), np.floor(gy[b]).astype(np.int64)
        dx, dy = gx[b] - x0, gy[b] - y0
        out[b] = (pick(b, y0, x0) * (1 - dx) * (1 - dy) + pick(b, y0, x0 + 1) * dx * (1 - dy)
                  + pick(b, y0 + 1, x0) * (1 - dx) * dy + pick(b, y0 + 1, x0 + 1) * dx * dy)
    return out


def _grid_samples(rng, dtype):
    x = lambda *s: T(rng.uniform(-1, 1, size=s))  # noqa: E731
    g = lambda *s: T(rng.uniform(-1.3, 1.3, size=s))  # noqa: E731
    out = []
    for mode in ("bilinear", "nearest"):
        for pm in ("zeros", "border", "reflection"):
            for ac in (True, False):
                out.append(Sample((x(2, 2, 4, 5), g(2, 3, 2, 2)), dict(mode=mode, padding_mode=pm, align_corners=ac)))
    out.append(Sample((x(1, 2, 3, 4), g(1, 2, 3, 2))))
    return out


def _grid3d_samples(rng, dtype):
    x = lambda *s: T(rng.uniform(-1, 1, size=s))  # noqa: E731
    g = lambda *s: T(rng.uniform(-1.2, 1.2, size=s))  # noqa: E731
    return [Sample((x(1, 2, 3, 4, 3), g(1, 2, 2, 3, 3))),
            Sample((x(1, 2, 3, 4, 3), g(1, 2, 2, 3, 3)), dict(padding_mode="border", align_corners=False)),
            Sample((x(1, 2, 3, 4, 3), g(1, 2, 2, 3, 3)), dict(mode="nearest", padding_mode="reflection"))]


_GS_ERRORS = (
    Err((T(np.ones((1, 2, 3, 4))), T(np.zeros((1, 2, 2, 3)))), note="grid last dim 3 for 2-D sampling"),
    Err((T(np.ones((1, 2, 3, 4))), T(np.zeros((2, 2, 2, 2)))), note="batch mismatch"),
    Err((T(np.ones((1, 2, 3, 4))), T(np.zeros((1, 2, 2, 2)))), dict(mode="bicubic"), note="unknown mode"),
    Err((T(np.ones((1, 2, 3, 4))), T(np.zeros((1, 2, 2, 2)))), dict(padding_mode="wrap"),
        note="unknown padding_mode"),
    Err((T(np.ones((2, 3, 4))), T(np.zeros((2, 2, 2)))), note="3-D input"),
)


def _base_coords(n, align_corners):
    if align_corners:
        return np.linspace(-1, 1, n) if n > 1 else np.zeros(1)
    return (np.arange(n) * 2 + 1) / n - 1


def ref_affine_grid(theta, out_shape, align_corners=True):
    if len(out_shape) == 4:
        _, _, h, w = out_shape
        ys, xs = np.meshgrid(_base_coords(h, align_corners), _base_coords(w, align_corners), indexing="ij")
        base = np.stack([xs, ys, np.ones_like(xs)], -1)                      # H, W, 3
        return np.einsum("hwk,nck->nhwc", base, theta)
    _, _, d, h, w = out_shape
    zs, ys, xs = np.meshgrid(_base_coords(d, align_corners), _base_coords(h, align_corners),
                             _base_coords(w, align_corners), indexing="ij")
    base = np.stack([xs, ys, zs, np.ones_like(xs)], -1)
    return np.einsum("dhwk,nck->ndhwc", base, theta)


def _affine_samples(rng, dtype):
    t = lambda *s: T(rng.uniform(-1, 1, size=s))  # noqa: E731
    return [Sample((t(2, 2, 3), [2, 3, 4, 5])), Sample((t(1, 2, 3), [1, 1, 3, 2]), dict(align_corners=False)),
            Sample((t(1, 2, 3), (1, 2, 1, 4)), dict(align_corners=False)), Sample((t(2, 3, 4), [2, 1, 2, 3, 4])),
            Sample((t(1, 3, 4), [1, 1, 3, 2, 2]), dict(align_corners=False))]


def _affine_unit_samples(rng, dtype):
    # Paddle's grid along a size-1 dim with align_corners=True is NaN (0/0); ours is 0, as torch's.
    t = lambda *s: T(rng.uniform(-1, 1, size=s))  # noqa: E731
    return [Sample((t(1, 2, 3), (1, 2, 1, 4))), Sample((t(1, 3, 4), [1, 1, 1, 2, 3]))]


_AG_ERRORS = (
    Err((T(np.ones((1, 2, 3))), [1, 2, 3]), note="3-entry out_shape"),
    Err((T(np.ones((1, 2, 3))), 5), exc=TypeError, note="int out_shape"),
    Err((T(np.ones((1, 2, 3)), dtype="int32"), [1, 2, 3, 3]), exc=RuntimeError, note="integer theta"),
)
# Paddle does not check theta against out_shape: it returns grids read from past theta's end, or fails in
# a memory check (RuntimeError). We raise ValueError, so these skip the conformance tier.
_AG_UNCHECKED = (
    Err((T(np.ones((1, 3, 3))), [1, 2, 3, 3]), note="theta rows mismatch"),
    Err((T(np.ones((2, 2, 3))), [1, 2, 3, 3]), note="theta batch mismatch"),
    Err((T(np.ones((1, 2, 3))), [1, 2, 3, 3, 3]), note="2-D theta with a 5-entry out_shape"),
)


# -- temporal_shift, unfold, fold, gather_tree ------------------------------------------------------------------

def ref_temporal_shift(x, seg_num, shift_ratio=0.25, data_format="NCHW"):
    x = _cf(x, data_format)
    nt, c, h, w = x.shape
    v = x.reshape(nt // seg_num, seg_num, c, h, w)
    out = np.zeros_like(v)
    c1, c2 = int(c * shift_ratio), int(c * 2 * shift_ratio)
    out[:, 1:, :c1] = v[:, :-1, :c1]
    out[:, :-1, c1:c2] = v[:, 1:, c1:c2]
    out[:, :, c2:] = v[:, :, c2:]
    return _cl(out.reshape(nt, c, h, w), data_format)


def _ts_samples(rng, dtype):
    r = lambda *s: T(rng.uniform(-1, 1, size=s))  # noqa: E731
    return [Sample((r(6, 4, 2, 2), 3)), Sample((r(4, 8, 1, 2), 2, 0.2)), Sample((r(4, 2, 2, 7), 2, 0.3),
            dict(data_format="NHWC")), Sample((r(3, 5, 1, 1), 3), dict(shift_ratio=0.45))]


_TS_ERRORS = (
    Err((T(np.ones((5, 4, 3, 3))), 2), note="batch not divisible by seg_num"),
    Err((T(np.ones((4, 4, 3, 3))), 2, 0.6), note="shift_ratio >= 0.5"),
    Err((T(np.ones((4, 3, 3))), 2), note="3-D input"),
    Err((T(np.ones((4, 4, 3, 3))), 2), dict(data_format="NCL"), note="bad data_format"),
)


def _pairs2(v):
    return [int(v)] * 2 if np.ndim(v) == 0 else [int(a) for a in v]


def _pad4(p):
    if np.ndim(p) == 0:
        return [int(p)] * 4
    p = list(p)
    return p * 2 if len(p) == 2 else p


def ref_unfold(x, kernel_sizes, strides=1, paddings=0, dilations=1):
    k, s, d, p = _pairs2(kernel_sizes), _pairs2(strides), _pairs2(dilations), _pad4(paddings)
    xp = np.pad(x, [(0, 0), (0, 0), (p[0], p[2]), (p[1], p[3])])
    win = windows(xp, k, s, d)                                # N, C, oh, ow, kh, kw
    n, c, oh, ow = win.shape[:4]
    return win.transpose(0, 1, 4, 5, 2, 3).reshape(n, c * k[0] * k[1], oh * ow)


def ref_fold(x, output_sizes, kernel_sizes, strides=1, paddings=0, dilations=1):
    o, k, s, d, p = _pairs2(output_sizes), _pairs2(kernel_sizes), _pairs2(strides), _pairs2(dilations), \
        _pad4(paddings)
    n, ckk, _ = x.shape
    c = ckk // (k[0] * k[1])
    ph, pw = o[0] + p[0] + p[2], o[1] + p[1] + p[3]
    oh, ow = (ph - (d[0] * (k[0] - 1) + 1)) // s[0] + 1, (pw - (d[1] * (k[1] - 1) + 1)) // s[1] + 1
    cols = x.reshape(n, c, k[0], k[1], oh, ow)
    out = np.zeros((n, c, ph, pw))
    for i in range(k[0]):
        for j in range(k[1]):
            out[:, :, i * d[0]:i * d[0] + (oh - 1) * s[0] + 1:s[0], j * d[1]:j * d[1] + (ow - 1) * s[1] + 1:s[1]] \
                += cols[:, :, i, j]
    return out[:, :, p[0]:p[0] + o[0], p[1]:p[1] + o[1]]


def _unfold_samples(rng, dtype):
    r = lambda *s: T(rng.uniform(-1, 1, size=s))  # noqa: E731
    return [Sample((r(2, 2, 4, 5), 2)), Sample((r(1, 2, 5, 5), [2, 3]), dict(strides=2, paddings=1)),
            Sample((r(1, 1, 4, 4), 2), dict(paddings=[1, 0, 0, 0])),
            Sample((r(1, 1, 4, 4), 2), dict(paddings=[0, 1, 0, 0])),
            Sample((r(1, 2, 6, 5), 2), dict(dilations=2, paddings=[1, 2], strides=[1, 2])),
            Sample((r(1, 1, 5, 5), [3, 2]), dict(paddings=[1, 0, 2, 1], strides=2))]


def _fold_samples(rng, dtype):
    r = lambda *s: T(rng.uniform(-1, 1, size=s))  # noqa: E731
    return [Sample((r(1, 8, 4), [3, 3], 2)), Sample((r(2, 4, 9), 4, 2, 2, 1)),
            Sample((r(1, 4, 20), [3, 4], 2), dict(paddings=[1, 1, 1, 1])),
            Sample((r(1, 6, 4), [4, 5], [3, 2]), dict(strides=2, paddings=[1, 0], dilations=[1, 2]))]


_UNFOLD_ERRORS = (
    Err((T(np.ones((1, 1, 3, 3))), 4), note="kernel larger than the input"),
    Err((T(np.ones((1, 3, 3))), 2), exc=AssertionError, note="3-D input"),
    Err((T(np.ones((1, 1, 3, 3))), 2), dict(paddings=[1, 1, 1]), note="3 paddings"),
    Err((T(np.ones((1, 1, 3, 3))), [2, 2, 2]), exc=TypeError, note="3 kernel sizes"),
)
_FOLD_ERRORS = (
    Err((T(np.ones((1, 5, 4))), [3, 3], 2), note="channels not divisible by the kernel area"),
    Err((T(np.ones((1, 4, 5))), [3, 3], 2), note="block count mismatch"),
    Err((T(np.ones((1, 4, 4, 1))), [3, 3], 2), exc=AssertionError, note="4-D input"),
    Err((T(np.ones((1, 4, 4))), [3, 3, 3], 2), exc=AssertionError, note="3 output sizes"),
    Err((T(np.ones((1, 4, 4))), [3, 3], 2), dict(paddings=[1, 1, 1]), note="3 paddings"),
    Err((T(np.ones((1, 4, 12))), [3, 4], 2), dict(paddings=[1, 0, 0, 0]), note="asymmetric padding"),
)


def ref_gather_tree(ids, parents):
    steps = ids.shape[0]
    out = np.zeros_like(ids)
    if steps == 0:
        return out
    out[-1] = ids[-1]
    parent = parents[-1]
    for t in range(steps - 2, -1, -1):
        out[t] = np.take_along_axis(ids[t], parent, -1)
        parent = np.take_along_axis(parents[t], parent, -1)
    return out


def _gather_tree_samples(rng, dtype):
    out = []
    for shape in ((4, 2, 3), (1, 3, 2), (5, 1, 4)):
        ids = rng.integers(0, 10, size=shape)
        parents = rng.integers(0, shape[2], size=shape)
        out.append(Sample((T(ids), T(parents))))
    return out


_GT_ERRORS = (
    Err((T(np.array([[[1, 2]]])), T(np.array([[[0, 1, 1]]]))), note="parents shape differs"),
    Err((T(np.array([[[1, 2]], [[3, 4]]])), T(np.array([[[0, 1]], [[5, 1]]]))), note="parent out of range"),
    Err((T(np.array([[1, 2]])), T(np.array([[0, 1]]))), note="2-D ids"),
    Err((T(np.array([[[1.0, 2.0]]])), T(np.array([[[0.0, 1.0]]]))), exc=RuntimeError, note="float ids"),
)

OPS = [
    OpCase("F_interpolate", "nn.functional.interpolate", ref_interpolate, _interp_samples, errors=_INTERP_ERRORS,
           rtol=1e-4, atol=1e-5),
    OpCase("F_interpolate_tensor_args", "nn.functional.interpolate", None, _interp_tensor_args, rtol=1e-4,
           atol=1e-5),
    OpCase("F_interpolate_antialias", "nn.functional.interpolate", None, _interp_antialias, rtol=1e-4, atol=1e-5),
    OpCase("F_upsample", "nn.functional.upsample", ref_interpolate, _upsample_samples, rtol=1e-4, atol=1e-5,
           errors=_INTERP_ERRORS[:4]),
    OpCase("F_pad", "nn.functional.pad", ref_pad, _pad_samples, NUMERIC, errors=_PAD_ERRORS),
    OpCase("F_pixel_shuffle", "nn.functional.pixel_shuffle", ref_pixel_shuffle, _shuffle_samples("pixel_shuffle"),
           errors=_PS_ERRORS),
    OpCase("F_pixel_unshuffle", "nn.functional.pixel_unshuffle", ref_pixel_unshuffle,
           _shuffle_samples("pixel_unshuffle"), errors=_PU_ERRORS),
    OpCase("F_channel_shuffle", "nn.functional.channel_shuffle", ref_channel_shuffle,
           _shuffle_samples("channel_shuffle"), errors=_CS_ERRORS),
    OpCase("F_grid_sample", "nn.functional.grid_sample", ref_grid_sample, _grid_samples, errors=_GS_ERRORS,
           rtol=1e-4, atol=1e-5),
    OpCase("F_grid_sample_3d", "nn.functional.grid_sample", None, _grid3d_samples, rtol=1e-4, atol=1e-5),
    OpCase("F_affine_grid", "nn.functional.affine_grid", ref_affine_grid, _affine_samples, errors=_AG_ERRORS),
    OpCase("F_affine_grid_unit", "nn.functional.affine_grid", ref_affine_grid, _affine_unit_samples,
           conformance=False, errors=_AG_UNCHECKED),
    OpCase("F_temporal_shift", "nn.functional.temporal_shift", ref_temporal_shift, _ts_samples, errors=_TS_ERRORS),
    OpCase("F_unfold", "nn.functional.unfold", ref_unfold, _unfold_samples, errors=_UNFOLD_ERRORS),
    OpCase("F_fold", "nn.functional.fold", ref_fold, _fold_samples, errors=_FOLD_ERRORS),
    OpCase("F_gather_tree", "nn.functional.gather_tree", ref_gather_tree, _gather_tree_samples, ("int64", "int32"),
           grad=False, errors=_GT_ERRORS),
]

"""Resampling and layout ops for vision: the *_interp_v2 family, pad / pad3d, pixel_shuffle / pixel_unshuffle /
channel_shuffle, grid_sampler, affine_grid, temporal_shift, unfold / fold and gather_tree.

Interpolation follows Paddle's coordinate rules (computed in float32 as Paddle's kernels do): the ratio is
(in-1)/(out-1) with align_corners, else 1/scale when a scale is given, else in/out -- and 0 for an output of size
one; bilinear-family align_mode=1 maps dst -> ratio*dst (no half-pixel shift). torch's upsample kernels run
wherever their rule is the same; the separable index/lerp path below covers the rest.
"""
import warnings

import numpy as np
import torch
import torch.nn.functional as F

from ...framework.dtype import from_torch_dtype
from ..registry import REQUIRED, op
from .conv import KernelDtypeError, check_float, from_channel_first, to_channel_first, torch_pad
from .manipulation import shape_values

# -- interpolation ------------------------------------------------------------------------------------------

_INTERP_RANKS = {"nearest": (3, 4, 5), "linear": (3,), "bilinear": (4,), "bicubic": (4,), "trilinear": (5,)}
_ATEN = {("nearest", 1): torch.ops.aten.upsample_nearest1d, ("nearest", 2): torch.ops.aten.upsample_nearest2d,
         ("nearest", 3): torch.ops.aten.upsample_nearest3d, ("linear", 1): torch.ops.aten.upsample_linear1d,
         ("bilinear", 2): torch.ops.aten.upsample_bilinear2d, ("bicubic", 2): torch.ops.aten.upsample_bicubic2d,
         ("trilinear", 3): torch.ops.aten.upsample_trilinear3d}


def _f32(v):
    return float(np.float32(v))


def _ratio(method, n_in, n_out, scale, align_corners):
    # NOTE: Paddle's bilinear, bicubic and nearest kernels use ratio 0 for a size-one output; its linear and
    # trilinear kernels keep in/out (or 1/scale) there unless align_corners.
    if n_out <= 1 and (align_corners or method in ("bilinear", "bicubic", "nearest")):
        return 0.0
    if align_corners:
        return _f32(np.float32(n_in - 1) / np.float32(n_out - 1))
    return _f32(1.0 / scale) if scale > 0 else _f32(np.float32(n_in) / np.float32(n_out))


def _along(t, dim, ndim):
    shape = [1] * ndim
    shape[dim] = -1
    return t.reshape(shape)


def _cubic_weights(t):
    a = -0.75
    def near(d):
        return ((a + 2) * d - (a + 3)) * d * d + 1
    def far(d):
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _resample_dim(x, dim, n_out, ratio, method, align_corners, align_mode):
    """Paddle's 1-D resampling along ``dim`` (index gathers + weights, so autograd follows)."""
    n_in = x.shape[dim]
    k = torch.arange(n_out, dtype=torch.float32, device=x.device)
    if method == "nearest":
        src = ratio * k + 0.5 if align_corners else ratio * k
        return x.index_select(dim, src.long().clamp(max=n_in - 1))
    if method == "bicubic":
        src = ratio * k if align_corners else ratio * (k + 0.5) - 0.5
        base = torch.floor(src)
        weights = _cubic_weights(src - base)
        base = base.long()
        out = 0
        for j, w in enumerate(weights):
            idx = (base - 1 + j).clamp(0, n_in - 1)
            out = out + x.index_select(dim, idx) * _along(w.to(x.dtype), dim, x.dim())
        return out
    half_pixel = align_mode == 0 and not align_corners
    src = (ratio * (k + 0.5) - 0.5).clamp(min=0) if half_pixel else ratio * k
    lo = src.long().clamp(max=n_in - 1)
    hi = (lo + 1).clamp(max=n_in - 1)
    lam = _along((src - lo).to(x.dtype), dim, x.dim())
    return x.index_select(dim, lo) * (1 - lam) + x.index_select(dim, hi) * lam


def _interp(op_type, method, X, OutSize, Scale, data_layout, sizes, scale, align_corners, align_mode,
            antialias=False):
    if X.dim() not in _INTERP_RANKS[method]:
        ranks = " or ".join(f"{r}-D" for r in _INTERP_RANKS[method])
        raise ValueError(f"{op_type}: input X must be {ranks} for '{method}' interpolation, got shape "
                         f"{list(X.shape)}")
    check_float(op_type, "X", X)
    nd = X.dim() - 2
    x = to_channel_first(X, "NHWC" if data_layout == "NHWC" else "NCHW")
    in_sizes = list(x.shape[2:])
    if 0 in in_sizes:
        raise ValueError(f"{op_type}: cannot resample the empty spatial dims of X {list(X.shape)}")
    if Scale is not None:
        scale = [float(v) for v in Scale.reshape(-1).tolist()]
    scale = list(scale or [])
    if len(scale) == 1:
        scale = scale * nd
    if scale and len(scale) != nd:
        raise ValueError(f"{op_type}: scale must hold {nd} values for a {X.dim()}-D input, got {scale}")
    if scale and any(s <= 0 for s in scale):
        raise ValueError(f"{op_type}: scale must be greater than 0, got {scale}")
    if OutSize is not None:
        sizes = [int(v) for v in OutSize.reshape(-1).tolist()]
    elif scale:
        # NOTE: Paddle multiplies in float32 and truncates: 10 * 0.7f gives 6, not 7.
        sizes = [int(np.float32(n) * np.float32(s)) for n, s in zip(in_sizes, scale)]
    if len(sizes) != nd or any(s <= 0 for s in sizes):
        raise ValueError(f"{op_type}: the output size {list(sizes)} must hold {nd} positive ints for input "
                         f"{list(X.shape)}")
    if not scale:
        scale = [0.0] * nd
    if antialias:
        aa = torch.ops.aten._upsample_bilinear2d_aa if method == "bilinear" else torch.ops.aten._upsample_bicubic2d_aa
        out = aa(x, sizes, align_corners, *[s if s > 0 else None for s in scale])
        return from_channel_first(out, "NHWC" if data_layout == "NHWC" else "NCHW")
    if sizes == in_sizes:
        return X.clone()          # Paddle copies when no size changes, whatever the scale or alignment
    ratios = [_ratio(method, n, o, s, align_corners) for n, o, s in zip(in_sizes, sizes, scale)]
    native = align_corners or method in ("linear", "trilinear") or all(o > 1 for o in sizes)
    if method == "nearest":
        native = native and not align_corners and not any(s > 0 for s in scale)
    elif method != "bicubic":
        native = native and (align_corners or align_mode == 0)
    if native:
        scales = [s if s > 0 else None for s in scale]
        if method == "nearest":
            out = _ATEN[method, nd](x, sizes, *scales)
        else:
            out = _ATEN[method, nd](x, sizes, align_corners, *scales)
    else:
        out = x
        for i in range(nd):
            out = _resample_dim(out, 2 + i, sizes[i], ratios[i], method, align_corners, align_mode)
    return from_channel_first(out, "NHWC" if data_layout == "NHWC" else "NCHW")


# Paddle's defaults (the same for every method; an out_* of 0 or less is unset)
_INTERP_ATTRS = {"data_layout": "NCHW", "out_d": 0, "out_h": 0, "out_w": 0, "scale": [],
                 "interp_method": "bilinear", "align_corners": True, "align_mode": 1}


def _interp_infer(X, OutSize, Scale, SizeTensor, *, data_layout, out_d, out_h, out_w, **attrs):
    """With the output size in tensors: the spatial dims are known only where the out_* attrs give them."""
    if not SizeTensor and OutSize is None:
        return None
    shape = list(X.desc_shape)
    nd = len(shape) - 2
    if not 1 <= nd <= 3:
        return None
    sizes = [out_d, out_h, out_w][3 - nd:] if SizeTensor else [-1] * nd
    first = 1 if data_layout == "NHWC" else 2
    shape[first:first + nd] = [d if d > 0 else -1 for d in sizes]
    return shape, X.dtype


def _register_interp(method):
    op_type = f"{method}_interp_v2"

    def kernel(X, OutSize, Scale, SizeTensor, *, data_layout, out_d, out_h, out_w, scale, interp_method,
               align_corners, align_mode):
        nd = X.dim() - 2
        sizes = [out_d, out_h, out_w][3 - nd:] if 1 <= nd <= 3 else []
        if SizeTensor:
            # NOTE: as in Paddle, a SizeTensor outranks OutSize and the scale (which then plays no part)
            sizes, OutSize, Scale, scale = shape_values(op_type, "SizeTensor", SizeTensor), None, None, []
        return _interp(op_type, method, X, OutSize, Scale, data_layout, sizes, scale, align_corners, align_mode)
    kernel.__doc__ = f"{op_type}: {method} resampling to (out_d, out_h, out_w), OutSize, SizeTensor or by scale."
    # SizeTensor comes last here (Paddle lists it before Scale) so that positional calls keep their meaning
    fn = op(op_type, inputs=["X", "OutSize?", "Scale?", "SizeTensor[]?"], outputs=["Out"], attrs=_INTERP_ATTRS)(kernel)
    fn.infer(_interp_infer)


for _method in ("nearest", "linear", "bilinear", "bicubic", "trilinear"):
    _register_interp(_method)


_ANTIALIAS_ATTRS = {("data_format" if k == "data_layout" else k): v for k, v in _INTERP_ATTRS.items()}


@op("interp_antialias", inputs=["x", "out_size?", "size_tensor[]?", "scale_tensor?"], outputs=["output"],
    attrs=_ANTIALIAS_ATTRS)
def interp_antialias(x, out_size, size_tensor, scale_tensor, *, data_format, out_d, out_h, out_w, scale,
                     interp_method, align_corners, align_mode):
    """Anti-aliased bilinear / bicubic downsampling (a widened filter support), on torch's _aa kernels."""
    if interp_method not in ("bilinear", "bicubic"):
        raise ValueError(f"interp_antialias: interp_method must be bilinear or bicubic, got {interp_method!r}")
    sizes = [out_h, out_w]
    if size_tensor:
        sizes, out_size, scale_tensor, scale = shape_values("interp_antialias", "size_tensor", size_tensor), None, \
            None, []
    return _interp("interp_antialias", interp_method, x, out_size, scale_tensor, data_format, sizes, scale,
                   align_corners, align_mode, antialias=True)


# -- padding ------------------------------------------------------------------------------------------------

def _circular(x, pairs):
    """Circular padding by modular indexing (any width, like Paddle; torch's caps it at the input size)."""
    for i, (lo, hi) in enumerate(pairs):
        n = x.shape[2 + i]
        if lo or hi:
            idx = torch.arange(-lo, n + hi, device=x.device) % n
            x = x.index_select(2 + i, idx)
    return x


@op("pad3d", inputs=["X", "Paddings?"], outputs=["Out"],
    attrs={"paddings": REQUIRED, "mode": "constant", "value": 0.0, "data_format": "NCDHW"})
def pad3d(X, Paddings, *, paddings, mode, value, data_format):
    """Pads the D, H, W dims of a 5-D tensor; paddings [left, right, top, bottom, front, back]."""
    if Paddings is not None:
        paddings = [int(v) for v in Paddings.reshape(-1).tolist()]
    if X.dim() != 5:
        raise ValueError(f"pad3d: input X must be 5-D, got shape {list(X.shape)}")
    if len(paddings) != 6:
        raise ValueError(f"pad3d: size of paddings should be equal to 6, but received {len(paddings)}")
    if X.dtype is torch.bool:
        raise KernelDtypeError("pad3d: input X of dtype bool is not supported")
    if data_format not in ("NCDHW", "NDHWC"):
        raise ValueError(f"pad3d: data_format must be NCDHW or NDHWC, got {data_format!r}")
    x = to_channel_first(X, data_format)
    pairs = [(paddings[4], paddings[5]), (paddings[2], paddings[3]), (paddings[0], paddings[1])]
    if mode == "constant":
        if not (X.is_floating_point() or X.is_complex()):
            value = int(value)
        out = F.pad(x, paddings, value=value)
    elif mode in ("reflect", "replicate", "circular"):
        names = ("depth", "height", "width")
        for (lo, hi), n, name in zip(pairs, x.shape[2:], names):
            if lo < 0 or hi < 0:
                raise ValueError(f"pad3d: paddings must be non-negative in {mode} mode, got {list(paddings)}")
            if mode == "reflect" and (lo >= n or hi >= n):
                raise ValueError(f"pad3d: in reflect mode the {name} of X ({n}) must be greater than its "
                                 f"paddings {[lo, hi]}")
            if n == 0 and (lo or hi):
                raise ValueError(f"pad3d: cannot {mode}-pad the empty {name} of X {list(X.shape)}")
        out = _circular(x, pairs) if mode == "circular" else F.pad(x, paddings, mode=mode)
    else:
        raise ValueError(f"pad3d: mode must be constant, reflect, replicate or circular, got {mode!r}")
    return from_channel_first(out, data_format)


@op("pad", inputs=["X"], outputs=["Out"], attrs={"paddings": REQUIRED, "pad_value": 0.0})
def pad(X, *, paddings, pad_value):
    """Constant padding of every dim; paddings [before0, after0, before1, after1, ...] in dim order."""
    if len(paddings) != 2 * X.dim():
        raise ValueError(f"pad: paddings must hold 2 * rank = {2 * X.dim()} ints for X {list(X.shape)}, "
                         f"got {list(paddings)}")
    for i, p in enumerate(paddings):
        if p < 0:
            raise ValueError(f"pad: the element of paddings should be >= 0, but received {p} for index {i}")
    if X.dtype is torch.bool:
        raise KernelDtypeError("pad: input X of dtype bool is not supported")
    if not (X.is_floating_point() or X.is_complex()):
        pad_value = int(pad_value)
    pairs = [(paddings[2 * i], paddings[2 * i + 1]) for i in range(X.dim())]
    return F.pad(X, [v for lo, hi in reversed(pairs) for v in (lo, hi)], value=pad_value)


# -- channel / space rearrangements ---------------------------------------------------------------------------

def _check_4d(op_type, X, data_format):
    if X.dim() != 4:
        raise ValueError(f"{op_type}: input X must be a 4-D tensor in [N, C, H, W] or [N, H, W, C], got shape "
                         f"{list(X.shape)}")
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"{op_type}: data_format must be NCHW or NHWC, got {data_format!r}")
    return to_channel_first(X, data_format)


@op("pixel_shuffle", inputs=["X"], outputs=["Out"], attrs={"upscale_factor": 1, "data_format": "NCHW"})
def pixel_shuffle(X, *, upscale_factor, data_format):
    x = _check_4d("pixel_shuffle", X, data_format)
    if upscale_factor <= 0:
        raise ValueError(f"pixel_shuffle: upscale_factor must be positive, got {upscale_factor}")
    if x.shape[1] % (upscale_factor * upscale_factor):
        raise ValueError(f"pixel_shuffle: the square of upscale_factor ({upscale_factor}) must divide the number "
                         f"of channels ({x.shape[1]}) of X {list(X.shape)}")
    return from_channel_first(F.pixel_shuffle(x, upscale_factor), data_format)


@op("pixel_unshuffle", inputs=["X"], outputs=["Out"], attrs={"downscale_factor": 1, "data_format": "NCHW"})
def pixel_unshuffle(X, *, downscale_factor, data_format):
    x = _check_4d("pixel_unshuffle", X, data_format)
    if downscale_factor <= 0:
        raise ValueError(f"pixel_unshuffle: downscale_factor must be positive, got {downscale_factor}")
    if x.shape[2] % downscale_factor or x.shape[3] % downscale_factor:
        raise ValueError(f"pixel_unshuffle: downscale_factor ({downscale_factor}) must divide both height "
                         f"({x.shape[2]}) and width ({x.shape[3]}) of X {list(X.shape)}")
    return from_channel_first(F.pixel_unshuffle(x, downscale_factor), data_format)


@op("channel_shuffle", inputs=["X"], outputs=["Out"], attrs={"groups": REQUIRED, "data_format": "NCHW"})
def channel_shuffle(X, *, groups, data_format):
    x = _check_4d("channel_shuffle", X, data_format)
    n, c, h, w = x.shape
    if groups <= 0 or c % groups:
        raise ValueError(f"channel_shuffle: groups ({groups}) must be positive and divide the number of channels "
                         f"({c}) of X {list(X.shape)}")
    out = x.reshape(n, groups, c // groups, h, w).transpose(1, 2).reshape(n, c, h, w)
    return from_channel_first(out, data_format)


# -- sampling grids -------------------------------------------------------------------------------------------

@op("grid_sampler", inputs=["X", "Grid"], outputs=["Output"],
    attrs={"align_corners": True, "padding_mode": "zeros", "mode": "bilinear"})
def grid_sampler(X, Grid, *, align_corners, padding_mode, mode):
    """Samples X [N, C, (D,) H, W] at Grid [N, (Do,) Ho, Wo, 2 or 3] (x, y(, z) in [-1, 1])."""
    if X.dim() not in (4, 5):
        raise ValueError(f"grid_sampler: input X must be 4-D or 5-D, got shape {list(X.shape)}")
    check_float("grid_sampler", "X", X)
    if Grid.dim() != X.dim() or Grid.shape[-1] != X.dim() - 2 or Grid.shape[0] != X.shape[0]:
        raise ValueError(f"grid_sampler: Grid must be [N, {'Do, ' if X.dim() == 5 else ''}Ho, Wo, {X.dim() - 2}] "
                         f"with the batch of X {list(X.shape)}, got {list(Grid.shape)}")
    if Grid.dtype is not X.dtype:
        raise ValueError(f"grid_sampler: Grid has dtype {from_torch_dtype(Grid.dtype).name} but X has "
                         f"{from_torch_dtype(X.dtype).name}; they must match")
    if 0 in X.shape[2:]:
        raise ValueError(f"grid_sampler: cannot sample the empty spatial dims of X {list(X.shape)}")
    if mode not in ("bilinear", "nearest"):
        raise ValueError(f"grid_sampler: mode must be 'bilinear' or 'nearest', got {mode!r}")
    if padding_mode not in ("zeros", "reflection", "border"):
        raise ValueError(f"grid_sampler: padding_mode must be 'zeros', 'reflection' or 'border', got "
                         f"{padding_mode!r}")
    return F.grid_sample(X, Grid, mode=mode, padding_mode=padding_mode, align_corners=align_corners)


@op("affine_grid", inputs=["Theta", "OutputShape?"], outputs=["Output"],
    attrs={"output_shape": [], "align_corners": True})
def affine_grid(Theta, OutputShape, *, output_shape, align_corners):
    """Sampling grid [N, H, W, 2] (or [N, D, H, W, 3]) of the affine maps Theta [N, 2, 3] (or [N, 3, 4])."""
    if OutputShape is not None:
        output_shape = [int(v) for v in OutputShape.reshape(-1).tolist()]
    output_shape = list(output_shape)
    check_float("affine_grid", "Theta", Theta)
    if len(output_shape) not in (4, 5):
        raise ValueError(f"affine_grid: output_shape must hold 4 or 5 ints, got {output_shape}")
    rows = len(output_shape) - 2
    if Theta.dim() != 3 or list(Theta.shape[1:]) != [rows, rows + 1] or Theta.shape[0] != output_shape[0]:
        raise ValueError(f"affine_grid: Theta must be [N, {rows}, {rows + 1}] with N = output_shape[0] for "
                         f"output_shape {output_shape}, got {list(Theta.shape)}")
    if any(s <= 0 for s in output_shape):
        raise ValueError(f"affine_grid: output_shape must be positive, got {output_shape}")
    if align_corners and min(output_shape[2:]) == 1:
        # NOTE: Paddle's grid for a size-1 dim with align_corners is 0/0 = NaN; torch's (used here) is 0.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return F.affine_grid(Theta, output_shape, align_corners=align_corners)
    return F.affine_grid(Theta, output_shape, align_corners=align_corners)


# -- temporal shift -------------------------------------------------------------------------------------------

@op("temporal_shift", inputs=["X"], outputs=["Out"], attrs={"seg_num": REQUIRED, "shift_ratio": 0.25,
                                                             "data_format": "NCHW"})
def temporal_shift(X, *, seg_num, shift_ratio, data_format):
    """X [N*T, C, H, W]: the first C*r channels take frame t-1, the next C*r take t+1 (zeros past the ends)."""
    if X.dim() != 4:
        raise ValueError(f"temporal_shift: input X must be 4-D [N*T, C, H, W], got shape {list(X.shape)}")
    if seg_num <= 0 or X.shape[0] % seg_num:
        raise ValueError(f"temporal_shift: dim 0 of X {list(X.shape)} must be divisible by seg_num={seg_num}")
    if not 0 <= shift_ratio < 0.5:
        raise ValueError(f"temporal_shift: shift_ratio must be in [0, 0.5), got {shift_ratio}")
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"temporal_shift: data_format must be NCHW or NHWC, got {data_format!r}")
    x = to_channel_first(X, data_format)
    nt, c, h, w = x.shape
    x = x.reshape(nt // seg_num, seg_num, c, h, w)
    c1, c2 = int(c * shift_ratio), int(c * 2 * shift_ratio)
    back = F.pad(x[:, :-1, :c1], [0, 0, 0, 0, 0, 0, 1, 0])
    forward = F.pad(x[:, 1:, c1:c2], [0, 0, 0, 0, 0, 0, 0, 1])
    out = torch.cat([back, forward, x[:, :, c2:]], dim=2).reshape(nt, c, h, w)
    return from_channel_first(out, data_format)


# -- im2col / col2im ------------------------------------------------------------------------------------------

def _blocks(op_type, sizes, kernel_sizes, strides, paddings, dilations):
    """paddings [top, left, bottom, right] -> number of sliding blocks along H and W."""
    for name, values in (("kernel_sizes", kernel_sizes), ("strides", strides), ("dilations", dilations)):
        if len(values) != 2 or any(v <= 0 for v in values):
            raise ValueError(f"{op_type}: {name} must hold 2 positive ints, got {list(values)}")
    if len(paddings) != 4 or any(p < 0 for p in paddings):
        raise ValueError(f"{op_type}: paddings must hold 4 non-negative ints, got {list(paddings)}")
    pads = [(paddings[0], paddings[2]), (paddings[1], paddings[3])]
    out = [(n + lo + hi - (d * (k - 1) + 1)) // s + 1
           for n, (lo, hi), k, s, d in zip(sizes, pads, kernel_sizes, strides, dilations)]
    if any(o <= 0 for o in out):
        raise ValueError(f"{op_type}: the sliding blocks of input size {list(sizes)} with kernel_sizes "
                         f"{list(kernel_sizes)}, strides {list(strides)}, paddings {list(paddings)}, dilations "
                         f"{list(dilations)} number {out}; they must be positive")
    return pads, out


@op("unfold", inputs=["X"], outputs=["Y"],
    attrs={"kernel_sizes": REQUIRED, "strides": REQUIRED, "paddings": REQUIRED, "dilations": REQUIRED})
def unfold(X, *, kernel_sizes, strides, paddings, dilations):
    """im2col: X [N, C, H, W] -> [N, C*kh*kw, L]; paddings [top, left, bottom, right]."""
    if X.dim() != 4:
        raise ValueError(f"unfold: input X must be 4-D [N, C, H, W], got shape {list(X.shape)}")
    check_float("unfold", "X", X)
    pads, _ = _blocks("unfold", list(X.shape[2:]), kernel_sizes, strides, paddings, dilations)
    if pads[0][0] == pads[0][1] and pads[1][0] == pads[1][1]:
        return F.unfold(X, kernel_sizes, dilations, [pads[0][0], pads[1][0]], strides)
    return F.unfold(F.pad(X, torch_pad(pads)), kernel_sizes, dilations, 0, strides)


@op("fold", inputs=["X"], outputs=["Y"], attrs={"output_sizes": REQUIRED, "kernel_sizes": REQUIRED,
                                                 "strides": REQUIRED, "paddings": REQUIRED, "dilations": REQUIRED})
def fold(X, *, output_sizes, kernel_sizes, strides, paddings, dilations):
    """col2im: X [N, C*kh*kw, L] -> [N, C, H, W], summing overlaps; paddings [top, left, bottom, right]."""
    if X.dim() != 3:
        raise ValueError(f"fold: input X must be 3-D [N, C*kh*kw, L], got shape {list(X.shape)}")
    check_float("fold", "X", X)
    if len(output_sizes) != 2 or any(v <= 0 for v in output_sizes):
        raise ValueError(f"fold: output_sizes must hold 2 positive ints, got {list(output_sizes)}")
    if len(paddings) == 4 and (paddings[0] != paddings[2] or paddings[1] != paddings[3]):
        # NOTE: Paddle's fold counts blocks with top/left twice and then rejects any asymmetric padding.
        raise ValueError(f"fold: paddings {list(paddings)} must be symmetric (top == bottom, left == right)")
    pads, blocks = _blocks("fold", list(output_sizes), kernel_sizes, strides, paddings, dilations)
    if X.shape[1] % (kernel_sizes[0] * kernel_sizes[1]):
        raise ValueError(f"fold: dim 1 of X {list(X.shape)} must be divisible by the kernel size product "
                         f"{kernel_sizes[0] * kernel_sizes[1]}")
    if X.shape[2] != blocks[0] * blocks[1]:
        raise ValueError(f"fold: dim 2 of X {list(X.shape)} must equal the number of sliding blocks "
                         f"{blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}")
    return F.fold(X, list(output_sizes), kernel_sizes, dilations, [pads[0][0], pads[1][0]], strides)


# -- beam search --------------------------------------------------------------------------------------------

@op("gather_tree", inputs=["Ids", "Parents"], outputs=["Out"], differentiable=False)
def gather_tree(Ids, Parents):
    """Backtracks beam-search parents: Ids, Parents [max_time, batch, beam] -> the full id sequences."""
    if Ids.dim() != 3:
        raise ValueError(f"gather_tree: Ids must be 3-D [max_time, batch, beam], got shape {list(Ids.shape)}")
    if Parents.shape != Ids.shape:
        raise ValueError(f"gather_tree: Parents {list(Parents.shape)} must have the shape of Ids {list(Ids.shape)}")
    for name, t in (("Ids", Ids), ("Parents", Parents)):
        if t.dtype not in (torch.int32, torch.int64):
            raise KernelDtypeError(f"gather_tree: {name} must be int32 or int64, got "
                                   f"{from_torch_dtype(t.dtype).name}")
    beam = Ids.shape[2]
    if Parents.numel() and Parents.device.type != "meta":
        lo, hi = torch.aminmax(Parents)
        if int(lo) < 0 or int(hi) >= beam:
            bad = int(lo) if int(lo) < 0 else int(hi)
            raise ValueError(f"gather_tree: Parents holds {bad}, out of range [0, {beam}) for beam size {beam}")
    steps = Ids.shape[0]
    if steps == 0:
        return Ids.clone()
    out = [Ids[steps - 1]]
    parent = Parents[steps - 1].long()
    for t in range(steps - 2, -1, -1):
        out.append(Ids[t].gather(-1, parent))
        parent = Parents[t].gather(-1, parent).long()
    out.reverse()
    return torch.stack(out).to(Ids.dtype)

"""Resampling, padding and layout functions: interpolate / upsample, pad, pixel_shuffle / pixel_unshuffle /
channel_shuffle, grid_sample, affine_grid, temporal_shift, unfold / fold, gather_tree."""
import numpy as np

from ... import ops as _ops
from ...tensor.dynamic_dims import size_tensors
from ...framework.mode import STATE as _MODE
from ...framework.program import Variable
from ...framework.tensor import PaddleAssertionError, Tensor
from ...ops.defs.manipulation import ArgTypeError
from .pooling import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d

__all__ = ["interpolate", "upsample", "pad", "zeropad2d", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "grid_sample",
           "affine_grid", "temporal_shift", "unfold", "fold", "gather_tree"]

_METHODS = ("linear", "bilinear", "trilinear", "nearest", "bicubic", "area")
_LAYOUTS = {3: ("NCW", "NWC"), 4: ("NCHW", "NHWC"), 5: ("NCDHW", "NDHWC")}


def _is_int(v):
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def _scalar(v):
    return v.item() if isinstance(v, Tensor) else v


def interpolate(*args, **kwargs):
    """Resizes [N, C, (D, H,) W] inputs (or channel-last). Also takes torch's spelling: ``input=`` and
    ``interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor, antialias)``."""
    if "input" in kwargs:
        if "x" in kwargs:
            raise TypeError("interpolate: got multiple values for argument 'x'")
        kwargs["x"] = kwargs.pop("input")
    if len(args) >= 6 and type(args[5]) is not int:      # torch order: the 6th is recompute_scale_factor
        for key, value in zip(("recompute_scale_factor", "antialias"), args[5:7]):
            if key in kwargs:
                raise TypeError(f"interpolate: got multiple values for argument '{key}'")
            kwargs[key] = value
        args = args[:5]
    return _interpolate(*args, **kwargs)


def _interpolate(x, size=None, scale_factor=None, mode="nearest", align_corners=False, align_mode=0,
                 data_format=None, recompute_scale_factor=None, antialias=False, name=None):
    rank = len(x.shape)
    if data_format is None:
        if rank not in _LAYOUTS:
            raise ValueError(f"interpolate: the input must be 3-D, 4-D or 5-D, got shape {list(x.shape)}")
        data_format = _LAYOUTS[rank][0]
    data_format = data_format.upper()
    method = mode.lower()
    if method not in _METHODS:
        raise ValueError(f"interpolate: mode must be one of {', '.join(_METHODS)}, got {mode!r}")
    need = {"linear": (3,), "nearest": (4, 5), "bilinear": (4,), "bicubic": (4,), "trilinear": (5,)}
    if method in need and rank not in need[method]:
        ranks = " or ".join(f"{r}-D" for r in need[method])
        raise ValueError(f"interpolate: '{method}' mode only supports {ranks} input, got shape {list(x.shape)}")
    if size is None and scale_factor is None:
        raise ValueError("interpolate: one of size and scale_factor must not be None")
    if isinstance(size, (list, tuple)) and len(size) != rank - 2:
        raise ValueError(f"interpolate: size must hold rank(x) - 2 = {rank - 2} values, got {list(size)}")
    if isinstance(size, Tensor) and (len(size.shape) != 1 or size.shape[0] != rank - 2):
        raise ValueError(f"interpolate: a size Tensor must be 1-D with {rank - 2} values, got shape {size.shape}")
    if not isinstance(align_corners, bool):
        raise TypeError("interpolate: align_corners must be a bool")
    if not isinstance(antialias, bool):
        raise TypeError("interpolate: antialias must be a bool")
    if align_mode not in (0, 1):
        raise ValueError(f"interpolate: align_mode can only be 0 or 1, got {align_mode!r}")
    if align_corners and method == "nearest":
        raise ValueError("interpolate: align_corners can only be set with the linear, bilinear, bicubic and "
                         "trilinear modes")
    if antialias and method not in ("bilinear", "bicubic"):
        raise ValueError("interpolate: antialias is only supported for the bilinear and bicubic modes")
    if method == "area":
        if size is None:
            raise ValueError("interpolate: size can not be None in 'area' mode")
        if isinstance(size, (list, tuple)) and not size:
            raise ValueError("interpolate: size can not be empty")
        pools = {3: adaptive_avg_pool1d, 4: adaptive_avg_pool2d, 5: adaptive_avg_pool3d}
        return pools[rank](x, size)
    if data_format not in _LAYOUTS[rank]:
        raise ValueError(f"interpolate: data_format {data_format!r} is not valid for a {rank}-D input; use "
                         f"{' or '.join(_LAYOUTS[rank])}")
    layout = "NHWC" if data_format.endswith("C") else "NCHW"
    sizes = [-1, -1, -1]
    scales = []
    out_size = size_tensor = None
    if size is not None:
        if scale_factor is not None:
            raise ValueError("interpolate: only one of size or scale_factor should be defined")
        if recompute_scale_factor:
            raise ValueError("interpolate: recompute_scale_factor is not meaningful with an explicit size")
        if isinstance(size, Variable):   # static: the size is read when the program runs
            if size.dtype.name not in ("int32", "int64"):
                raise TypeError(f"interpolate: a size Tensor must be int32 or int64, got {size.dtype.name}")
            out_size, size = size, []
        elif isinstance(size, (list, tuple)) and _MODE.static:
            found = size_tensors(size, "interpolate")
            if found is not None:   # Variables, or paddle.jit's x.shape[i] of a dim known only at run time
                size_tensor, size = found
        if isinstance(size, (Tensor, np.ndarray)):
            size = size.tolist()
        if not isinstance(size, (list, tuple)):
            raise TypeError(f"interpolate: size should be a list, tuple or Tensor, got {type(size).__name__}")
        size = [int(_scalar(d)) for d in size]
        for d in size:
            if d <= 0 and not (size_tensor and d == -1):
                raise PaddleAssertionError(f"interpolate: each dimension of size must be greater than 0, got {size}")
        sizes[3 - len(size):] = size
    else:
        if isinstance(scale_factor, Tensor):
            scale_factor = scale_factor.item() if scale_factor.size == 1 and not scale_factor.shape \
                else scale_factor.tolist()
        if isinstance(scale_factor, (int, float, np.integer, np.floating)) and not isinstance(scale_factor, bool):
            scale_list = [float(scale_factor)] * (rank - 2)
        elif isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != rank - 2:
                raise ValueError(f"interpolate: scale_factor must hold {rank - 2} values for a {rank}-D input, "
                                 f"got {list(scale_factor)}")
            scale_list = [float(_scalar(s)) for s in scale_factor]
        else:
            raise TypeError(f"interpolate: scale_factor should be a float, int, list, tuple or Tensor, got "
                            f"{type(scale_factor).__name__}")
        if recompute_scale_factor:
            # NOTE: Paddle reads the input sizes from dims 2.. here whatever the data_format.
            out = [int(np.floor(float(x.shape[i + 2]) * s)) for i, s in enumerate(scale_list)]
            sizes[3 - len(out):] = out
        else:
            if any(s <= 0 for s in scale_list):
                raise ValueError(f"interpolate: scale_factor should be greater than zero, got {scale_factor}")
            scales = scale_list
    if antialias:
        if out_size is not None or size_tensor is not None:
            raise ValueError("interpolate: antialias needs a size known while the program is built")
        return _ops.interp_antialias(x, data_format=layout, out_d=sizes[0], out_h=sizes[1], out_w=sizes[2],
                                     scale=scales, interp_method=method, align_corners=align_corners,
                                     align_mode=align_mode)
    fn = getattr(_ops, f"{method}_interp_v2")
    return fn(x, out_size, None, size_tensor, data_layout=layout, out_d=sizes[0], out_h=sizes[1], out_w=sizes[2],
              scale=scales, interp_method=method, align_corners=align_corners, align_mode=align_mode)


def upsample(x, size=None, scale_factor=None, mode="nearest", align_corners=False, align_mode=0, data_format=None,
             name=None):
    """Alias of interpolate with Paddle's original argument order."""
    return _interpolate(x, size, scale_factor, mode, align_corners, align_mode, data_format)


def pad(x, pad, mode="constant", value=0.0, data_format=None, pad_from_left_axis=True, name=None):
    """Pads x. A constant pad list whose length is not 2*(rank-2) pads from the last dim backwards (or, with
    2*rank entries and pad_from_left_axis, from dim 0); otherwise the spatial dims of a 3/4/5-D input are
    padded last-first (left, right, top, bottom, front, back) in any mode."""
    if mode not in ("reflect", "replicate", "constant", "circular"):
        raise PaddleAssertionError(f"pad: mode should be one of constant, reflect, replicate, circular, but got "
                                   f"{mode}")
    rank = len(x.shape)
    if isinstance(pad, Tensor):
        if pad.size == 0:
            return _ops.assign(x)
        pad = [int(v) for v in pad.tolist()]
        spatial_only = True
    else:
        pad = [int(_scalar(v)) for v in pad]
        spatial_only = False
    if mode == "constant" and not spatial_only and len(pad) != 2 * (rank - 2):
        full = pad + [0] * max(2 * rank - len(pad), 0)
        if not (len(pad) == 2 * rank and pad_from_left_axis):
            # the list names the last dim first; the op wants dim 0 first
            full = [full[i - 1] if i % 2 else full[i + 1] for i in range(2 * rank - 1, -1, -1)]
        return _ops.pad(x, paddings=full, pad_value=float(value))
    if rank not in (3, 4, 5):
        raise PaddleAssertionError(f"pad: input tensor dimension must be in [3, 4, 5] but got {rank}")
    if data_format is None:
        data_format = _LAYOUTS[rank][0].replace("NCW", "NCL")
    data_format = data_format.upper()
    allowed = {3: ("NCL", "NLC"), 4: ("NCHW", "NHWC"), 5: ("NCDHW", "NDHWC")}
    if data_format not in allowed[rank]:
        raise PaddleAssertionError(f"pad: a {rank}-D input's data format should be in {list(allowed[rank])} but "
                                   f"got {data_format}")
    channel_last = data_format.endswith("C")
    fmt = "NDHWC" if channel_last else "NCDHW"
    unsqueezed = []
    if rank == 3:
        pad = [0, 0, 0, 0] + pad
        unsqueezed = [2, 3] if channel_last else [3, 4]
    elif rank == 4:
        pad = pad + [0, 0]
        unsqueezed = [1] if channel_last else [2]
    if unsqueezed:
        x = _ops.unsqueeze2(x, axes=unsqueezed)
    out = _ops.pad3d(x, None, paddings=pad, mode=mode, value=float(value), data_format=fmt)
    return _ops.squeeze2(out, axes=unsqueezed) if unsqueezed else out


def zeropad2d(x, padding, data_format="NCHW", name=None):
    """Zero-pads the H, W dims of a 4-D input; padding [left, right, top, bottom]."""
    return pad(x, pad=padding, mode="constant", value=0.0, data_format=data_format)


def _check_layout(data_format, api):
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"{api}: Attr(data_format) should be 'NCHW' or 'NHWC', but received {data_format!r}")


def pixel_shuffle(x, upscale_factor, data_format="NCHW", name=None):
    """[N, C*r*r, H, W] -> [N, C, H*r, W*r] (or NHWC)."""
    if not _is_int(upscale_factor):
        raise TypeError(f"pixel_shuffle: upscale_factor must be an int, got {type(upscale_factor).__name__}")
    _check_layout(data_format, "pixel_shuffle")
    return _ops.pixel_shuffle(x, upscale_factor=int(upscale_factor), data_format=data_format)


def pixel_unshuffle(x, downscale_factor, data_format="NCHW", name=None):
    """[N, C, H*r, W*r] -> [N, C*r*r, H, W] (or NHWC)."""
    if len(x.shape) != 4:
        raise ValueError(f"pixel_unshuffle: input x should be a 4-D tensor, got shape {list(x.shape)}")
    if not _is_int(downscale_factor):
        raise TypeError(f"pixel_unshuffle: downscale_factor must be an int, got {type(downscale_factor).__name__}")
    if downscale_factor <= 0:
        raise ValueError(f"pixel_unshuffle: downscale_factor must be positive, got {downscale_factor}")
    _check_layout(data_format, "pixel_unshuffle")
    return _ops.pixel_unshuffle(x, downscale_factor=int(downscale_factor), data_format=data_format)


def channel_shuffle(x, groups, data_format="NCHW", name=None):
    """Interleaves the channels of ``groups`` groups: [N, g*k, H, W] viewed as [N, g, k] -> [N, k, g]."""
    if len(x.shape) != 4:
        raise ValueError(f"channel_shuffle: input x should be a 4-D tensor, got shape {list(x.shape)}")
    if not _is_int(groups):
        raise TypeError(f"channel_shuffle: groups must be an int, got {type(groups).__name__}")
    if groups <= 0:
        raise ValueError(f"channel_shuffle: groups must be positive, got {groups}")
    _check_layout(data_format, "channel_shuffle")
    return _ops.channel_shuffle(x, groups=int(groups), data_format=data_format)


def grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=True, name=None):
    """Samples x [N, C, (D,) H, W] at the normalised coordinates of grid [N, (Do,) Ho, Wo, 2 or 3]."""
    if mode not in ("bilinear", "nearest"):
        raise ValueError(f"grid_sample: mode must be 'bilinear' or 'nearest', got {mode!r}")
    if padding_mode not in ("zeros", "reflection", "border"):
        raise ValueError(f"grid_sample: padding_mode must be 'zeros', 'reflection' or 'border', got "
                         f"{padding_mode!r}")
    if not isinstance(align_corners, bool):
        raise ValueError(f"grid_sample: align_corners must be a bool, got {type(align_corners).__name__}")
    return _ops.grid_sampler(x, grid, align_corners=align_corners, padding_mode=padding_mode, mode=mode)


def affine_grid(theta, out_shape, align_corners=True, name=None):
    """Sampling grid of affine maps theta [N, 2, 3] for out_shape [N, C, H, W] (or [N, 3, 4] and 5 dims)."""
    if isinstance(out_shape, Tensor):
        if out_shape.size == 0:
            raise ValueError("affine_grid: out_shape cannot be empty")
        out_shape = out_shape.tolist()
    if not isinstance(out_shape, (list, tuple)):
        raise ArgTypeError(f"affine_grid: out_shape must be a list, tuple or Tensor, got {type(out_shape).__name__}")
    return _ops.affine_grid(theta, None, output_shape=[int(_scalar(v)) for v in out_shape],
                            align_corners=align_corners)


def temporal_shift(x, seg_num, shift_ratio=0.25, name=None, data_format="NCHW"):
    """Shifts part of the channels of [N*T, C, H, W] one step back and forward along T (TSM)."""
    _check_layout(data_format, "temporal_shift")
    return _ops.temporal_shift(x, seg_num=seg_num, shift_ratio=shift_ratio, data_format=data_format)


class NotSupportedTensorArgumentError(TypeError):
    """An argument of a form unfold cannot take (Paddle's name for this TypeError)."""


def _pair(value, name, api):
    if _is_int(value):
        return [int(value)] * 2
    if isinstance(value, (list, tuple)) and len(value) == 2 and all(_is_int(v) for v in value):
        return [int(v) for v in value]
    raise NotSupportedTensorArgumentError(f"{api}: {name} should either be an integer or a list/tuple of two integers, got {value!r}")


def _paddings(paddings, api):
    if _is_int(paddings):
        return [int(paddings)] * 4
    if isinstance(paddings, (list, tuple)):
        if len(paddings) == 2:
            return [int(v) for v in paddings] * 2
        if len(paddings) == 4:
            return [int(v) for v in paddings]
        raise ValueError(f"{api}: paddings should either be an integer or a list/tuple of 2 or 4 integers, got "
                         f"{list(paddings)}")
    raise TypeError(f"{api}: paddings should be an integer or a list/tuple of 2 or 4 integers, got {paddings!r}")


def unfold(x, kernel_sizes, strides=1, paddings=0, dilations=1, name=None):
    """im2col: [N, C, H, W] -> [N, C*kh*kw, L]; paddings int, [h, w] or [top, left, bottom, right]."""
    if len(x.shape) != 4:
        raise PaddleAssertionError(f"unfold: input should be the format of [N, C, H, W], got shape {list(x.shape)}")
    return _ops.unfold(x, kernel_sizes=_pair(kernel_sizes, "kernel_sizes", "unfold"),
                       strides=_pair(strides, "strides", "unfold"), paddings=_paddings(paddings, "unfold"),
                       dilations=_pair(dilations, "dilations", "unfold"))


def _assert_pair(value, name):
    if _is_int(value):
        return [int(value)] * 2
    if isinstance(value, (list, tuple)) and len(value) == 2:
        return [int(v) for v in value]
    raise PaddleAssertionError(f"fold: {name} should either be an integer or a list/tuple of two integers, got "
                               f"{value!r}")


def fold(x, output_sizes, kernel_sizes, strides=1, paddings=0, dilations=1, name=None):
    """col2im: [N, C*kh*kw, L] -> [N, C, H, W], summing overlapping blocks."""
    if len(x.shape) != 3:
        raise PaddleAssertionError(f"fold: input should be the format of [N, C, L], got shape {list(x.shape)}")
    paddings = _paddings(paddings, "fold")
    return _ops.fold(x, output_sizes=_assert_pair(output_sizes, "output_sizes"),
                     kernel_sizes=_assert_pair(kernel_sizes, "kernel_sizes"),
                     strides=_assert_pair(strides, "strides"), paddings=paddings,
                     dilations=_assert_pair(dilations, "dilations"))


def gather_tree(ids, parents):
    """Full beam-search sequences from per-step ids and parent beams, both [max_time, batch, beam]."""
    if len(ids.shape) != 3:
        raise ValueError(f"gather_tree: ids must be a 3-D tensor [length, batch_size, beam_size], got shape "
                         f"{list(ids.shape)}")
    if len(parents.shape) != 3:
        raise ValueError(f"gather_tree: parents must have the rank of ids, got shapes {list(parents.shape)} and "
                         f"{list(ids.shape)}")
    return _ops.gather_tree(ids, parents)

"""Image transforms on Tensors (CHW, or HWC where a ``data_format`` says so), computed with torch.

Paddle composes these from its own ops; here each is written directly in torch, reproducing Paddle's
arithmetic (its interpolation kernels' index and weight rules, its sampling grids) so pixel values match.
Unlike Paddle, uint8 tensors work everywhere (Paddle lacks uint8 kernels for flip, pad, lerp, grid_sample...):
the maths runs in float32 and the result is cast back by truncation, as Paddle's ``astype`` does.
"""
import math
import numbers

import numpy as np
import torch
import torch.nn.functional as TF

from ...framework.tensor import PaddleAssertionError, Tensor, wrap

__all__ = []


def _assert_image_tensor(img, data_format, api="transforms"):
    if not isinstance(img, Tensor) or img.ndim < 3 or img.ndim > 4 or data_format.lower() not in ("chw", "hwc"):
        ndim = img.ndim if isinstance(img, Tensor) else None
        raise RuntimeError(f"{api}: expected an image Tensor of 3 or 4 dims in CHW/HWC layout, got "
                           f"[type={type(img).__name__}, ndim={ndim}, data_format={data_format}]")


def _h_axis(data_format):
    return -2 if data_format.lower() == "chw" else -3


def _w_axis(data_format):
    return -1 if data_format.lower() == "chw" else -2


def _c_axis(data_format):
    return -3 if data_format.lower() == "chw" else -1


def _image_size(t, data_format):
    """(width, height) of a torch image."""
    return t.shape[_w_axis(data_format)], t.shape[_h_axis(data_format)]


def _to_nchw(t, data_format):
    """3-D or 4-D image -> 4-D NCHW torch tensor."""
    if t.dim() == 3:
        t = t.unsqueeze(0)
    return t if data_format.lower() == "chw" else t.permute(0, 3, 1, 2)


def _from_nchw(t, data_format, ndim):
    if data_format.lower() != "chw":
        t = t.permute(0, 2, 3, 1)
    return t.squeeze(0) if ndim == 3 else t


def _work_dtype(t):
    return t.dtype if t.is_floating_point() else torch.float32


def _cast_back(out, dtype):
    # float -> integer casts truncate, as Paddle's astype does
    return out if out.dtype == dtype else out.to(dtype)


def _blend(img1, img2, ratio):
    """img2 + ratio * (img1 - img2), clipped to the image's value range (Paddle's lerp-based blend)."""
    dtype = img1.dtype
    top = 1.0 if dtype.is_floating_point else 255.0
    work = _work_dtype(img1)
    a, b = img1.to(work), img2.to(work)
    out = (b + float(ratio) * (a - b)).clamp(0, top)
    return _cast_back(out, dtype)


# -- geometry --------------------------------------------------------------------------------------------
def hflip(img, data_format="CHW"):
    _assert_image_tensor(img, data_format, "hflip")
    return wrap(torch.flip(img._t, [_w_axis(data_format)]))


def vflip(img, data_format="CHW"):
    _assert_image_tensor(img, data_format, "vflip")
    return wrap(torch.flip(img._t, [_h_axis(data_format)]))


def crop(img, top, left, height, width, data_format="CHW"):
    _assert_image_tensor(img, data_format, "crop")
    t = img._t
    if data_format.lower() == "chw":
        return wrap(t[..., top:top + height, left:left + width])
    return wrap(t[..., top:top + height, left:left + width, :])


def center_crop(img, output_size, data_format="CHW"):
    _assert_image_tensor(img, data_format, "center_crop")
    if isinstance(output_size, numbers.Number):
        output_size = (int(output_size), int(output_size))
    width, height = _image_size(img._t, data_format)
    crop_height, crop_width = output_size
    top = int(round((height - crop_height) / 2.0))
    left = int(round((width - crop_width) / 2.0))
    return crop(img, top, left, crop_height, crop_width, data_format=data_format)


def _parse_padding(padding, fill, padding_mode, api):
    if not isinstance(padding, (numbers.Number, list, tuple)):
        raise TypeError(f"{api}: padding must be an int or a list/tuple of 2 or 4 ints, got {type(padding).__name__}")
    if not isinstance(fill, (numbers.Number, str, list, tuple)):
        raise TypeError(f"{api}: fill must be a number, str or tuple, got {type(fill).__name__}")
    if not isinstance(padding_mode, str):
        raise TypeError(f"{api}: padding_mode must be a str, got {type(padding_mode).__name__}")
    if isinstance(padding, (list, tuple)) and len(padding) not in (2, 4):
        raise ValueError(f"{api}: padding must be an int or a 2 or 4 element tuple, not a {len(padding)} element "
                         f"tuple")
    if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
        raise PaddleAssertionError(f"{api}: padding_mode must be 'constant', 'edge', 'reflect' or "
                                   f"'symmetric', got {padding_mode!r}")
    if isinstance(padding, numbers.Number):
        return padding, padding, padding, padding
    if len(padding) == 2:
        return padding[0], padding[1], padding[0], padding[1]
    return tuple(padding)


def pad(img, padding, fill=0, padding_mode="constant", data_format="CHW"):
    _assert_image_tensor(img, data_format, "pad")
    left, top, right, bottom = _parse_padding(padding, fill, padding_mode, "pad")
    if padding_mode == "symmetric":
        raise ValueError("pad: padding_mode='symmetric' is not supported for Tensor images")
    if isinstance(fill, (list, tuple, str)):
        raise TypeError(f"pad: fill for Tensor images must be a number, got {fill!r}")
    t = img._t
    x = _to_nchw(t, data_format)
    dtype = x.dtype
    if not dtype.is_floating_point:
        x = x.to(torch.float32)
    mode = {"constant": "constant", "edge": "replicate", "reflect": "reflect"}[padding_mode]
    if mode == "reflect" and (max(left, right) >= x.shape[-1] or max(top, bottom) >= x.shape[-2]):
        raise ValueError(f"pad: reflect padding {[left, top, right, bottom]} must be smaller than the image size "
                         f"(h={x.shape[-2]}, w={x.shape[-1]})")
    pads = [int(left), int(right), int(top), int(bottom)]
    out = TF.pad(x, pads, mode=mode, value=float(fill)) if mode == "constant" else TF.pad(x, pads, mode=mode)
    return wrap(_from_nchw(_cast_back(out, dtype), data_format, t.dim()))


# -- resize: Paddle's CPU interpolation kernels (half-pixel centres, align_mode=0) ---------------------------
def _ratio(in_size, out_size):
    return np.float32(np.float32(in_size) / np.float32(out_size)) if out_size > 1 else np.float32(0)


def _linear_taps(in_size, out_size):
    ratio = _ratio(in_size, out_size)
    src = np.float64(ratio) * (np.arange(out_size) + 0.5) - 0.5
    lo = np.maximum(np.trunc(src).astype(np.int64), 0)
    hi = np.minimum(lo + 1, in_size - 1)
    frac = np.maximum(src.astype(np.float32), np.float32(0)) - lo.astype(np.float32)
    return lo, hi, frac, np.float32(1) - frac


def _nearest_taps(in_size, out_size):
    return (_ratio(in_size, out_size) * np.arange(out_size).astype(np.float32)).astype(np.int64)


def _cubic_weights(t, dtype):
    A = dtype.type(-0.75)
    one = dtype.type(1)

    def conv1(x):
        return ((A + 2) * x - (A + 3)) * x * x + one

    def conv2(x):
        return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A

    x2 = (1.0 - t.astype(np.float64)).astype(dtype)
    return [conv2((t.astype(np.float64) + 1.0).astype(dtype)), conv1(t), conv1(x2),
            conv2((x2.astype(np.float64) + 1.0).astype(dtype))]


def _cubic_taps(in_size, out_size, dtype):
    src = (np.float64(_ratio(in_size, out_size)) * (np.arange(out_size) + 0.5) - 0.5).astype(dtype)
    base = np.floor(src)
    frac = (src - base).astype(dtype)
    base = base.astype(np.int64)
    idx = [np.clip(base - 1 + k, 0, in_size - 1) for k in range(4)]
    return idx, _cubic_weights(frac, dtype)


def _interpolate(x, oh, ow, mode):
    """x: NCHW torch tensor -> resized NCHW, reproducing Paddle's CPU kernels."""
    ih, iw = x.shape[-2:]
    if (ih, iw) == (oh, ow):
        return x.clone()
    dtype = x.dtype

    def from_numpy(a):  # the taps are computed on the host; the weights must sit with the image
        return torch.from_numpy(a).to(x.device)

    if mode == "nearest":
        return x[..., from_numpy(_nearest_taps(ih, oh)), :][..., from_numpy(_nearest_taps(iw, ow))]
    work = torch.float64 if dtype == torch.float64 else torch.float32
    if mode == "bilinear":
        yn, ys, dn, ds = (from_numpy(a) for a in _linear_taps(ih, oh))
        xw, xe, dw, de = (from_numpy(a) for a in _linear_taps(iw, ow))
        dn, ds = dn.to(work)[:, None], ds.to(work)[:, None]
        dw, de = dw.to(work), de.to(work)
        rows_n, rows_s = x[..., yn, :].to(work), x[..., ys, :].to(work)
        out = (rows_n[..., xw] * ds * de + rows_s[..., xw] * dn * de
               + rows_n[..., xe] * ds * dw + rows_s[..., xe] * dn * dw)
        return _cast_back(out, dtype)
    if mode == "bicubic":
        np_dtype = np.dtype("float64") if work == torch.float64 else np.dtype("float32")
        yi, yc = _cubic_taps(ih, oh, np_dtype)
        xi, xc = _cubic_taps(iw, ow, np_dtype)
        xw = x.to(work)
        rows = []
        for k in range(4):
            r = xw[..., from_numpy(yi[k]), :]
            acc = None
            for j in range(4):
                term = r[..., from_numpy(xi[j])] * from_numpy(xc[j])
                acc = term if acc is None else acc + term
            rows.append(acc)
        out = None
        for k in range(4):
            term = rows[k] * from_numpy(yc[k])[:, None]
            out = term if out is None else out + term
        return _cast_back(out, dtype)
    if mode == "area":
        return _cast_back(TF.adaptive_avg_pool2d(x.to(work), (oh, ow)), dtype)
    raise ValueError(f"resize: interpolation for Tensor images must be one of 'nearest', 'bilinear', 'bicubic', "
                     f"'area', got {mode!r}")


def resize(img, size, interpolation="bilinear", data_format="CHW"):
    _assert_image_tensor(img, data_format, "resize")
    if not (isinstance(size, int) or (isinstance(size, (tuple, list)) and len(size) == 2)):
        raise TypeError(f"resize: size must be an int or a (h, w) pair, got {size!r}")
    t = img._t
    if isinstance(size, int):
        w, h = _image_size(t, data_format)
        if w <= 0 or h <= 0:
            raise NotImplementedError(f"resize: empty image (w={w}, h={h}) cannot be resized")
        if (w <= h and w == size) or (h <= w and h == size):
            return img
        if w < h:
            ow, oh = size, int(size * h / w)
        else:
            oh, ow = size, int(size * w / h)
    else:
        oh, ow = size
    if oh <= 0 or ow <= 0:
        raise ValueError(f"resize: output size must be positive, got (h={oh}, w={ow})")
    if t.dim() != 3:
        raise RuntimeError(f"resize: a Tensor image must be 3-D (CHW), got shape {list(t.shape)}")
    x = _to_nchw(t, data_format)
    out = _interpolate(x, oh, ow, interpolation.lower())
    return wrap(_from_nchw(out, data_format, 3))


# -- affine warps through a sampling grid, as Paddle builds it ---------------------------------------------
def _affine_grid(theta, w, h, ow, oh):
    """theta: (1, 2, 3) float32 torch; returns the (1, oh, ow, 2) grid in normalised coordinates."""
    base = torch.ones((1, oh, ow, 3), dtype=theta.dtype)
    base[..., 0] = torch.linspace(-ow * 0.5 + 0.5, ow * 0.5 + 0.5 - 1, ow)
    base[..., 1] = torch.linspace(-oh * 0.5 + 0.5, oh * 0.5 + 0.5 - 1, oh).unsqueeze(-1)
    scaled = theta.transpose(1, 2) / torch.tensor([0.5 * w, 0.5 * h], dtype=torch.float32)
    return base.reshape(1, oh * ow, 3).bmm(scaled).reshape(1, oh, ow, 2)


def _grid_transform(x, grid, mode, fill):
    """Sample NCHW ``x`` at ``grid``; pixels coming from outside the image get ``fill`` (None: zeros)."""
    if mode not in ("bilinear", "nearest"):
        raise ValueError(f"interpolation for Tensor images must be 'bilinear' or 'nearest', got {mode!r}")
    dtype = x.dtype
    x = x.to(_work_dtype(x))
    grid = grid.to(device=x.device, dtype=x.dtype)   # built on the host, in Paddle's float32 order
    if x.shape[0] > 1:
        grid = grid.expand(x.shape[0], *grid.shape[1:])
    if fill is not None:
        x = torch.cat([x, torch.ones_like(x[:, :1])], dim=1)
    out = TF.grid_sample(x, grid, mode=mode, padding_mode="zeros", align_corners=False)
    if fill is not None:
        mask, out = out[:, -1:], out[:, :-1]
        values = [float(v) for v in fill] if isinstance(fill, (tuple, list)) else [float(fill)]
        if len(values) not in (1, out.shape[1]):
            if len(set(values)) != 1:
                raise ValueError(f"fill {fill!r} has {len(values)} values for a {out.shape[1]}-channel image")
            values = values[:1]
        fill_img = torch.tensor(values, dtype=out.dtype, device=out.device).reshape(1, -1, 1, 1)
        if mode == "nearest":
            mask = (mask < 0.5).to(out.dtype)
            out = out * (1.0 - mask) + mask * fill_img
        else:
            out = out * mask + (1.0 - mask) * fill_img
    return _cast_back(out, dtype)


def affine(img, matrix, interpolation="nearest", fill=None, data_format="CHW"):
    _assert_image_tensor(img, data_format, "affine")
    t = img._t
    x = _to_nchw(t, data_format)
    theta = torch.tensor(matrix, dtype=torch.float32).reshape(1, 2, 3)
    h, w = x.shape[-2:]
    grid = _affine_grid(theta, w, h, w, h)
    if isinstance(fill, int):
        fill = (fill,) * 3
    return wrap(_from_nchw(_grid_transform(x, grid, interpolation, fill), data_format, t.dim()))


def rotate(img, angle, interpolation="nearest", expand=False, center=None, fill=None, data_format="CHW"):
    _assert_image_tensor(img, data_format, "rotate")
    t = img._t
    angle = -angle % 360
    w, h = _image_size(t, data_format)
    x = _to_nchw(t, data_format)
    rc = [0.0, 0.0] if center is None else [p - s * 0.5 for p, s in zip(center, [w, h])]
    rad = math.radians(angle)
    m = torch.tensor([math.cos(rad), math.sin(rad), 0.0, -math.sin(rad), math.cos(rad), 0.0], dtype=torch.float32)
    # float32 scalar arithmetic, in Paddle's order, so the grid (and nearest-neighbour picks) agree bit for bit
    m[2] += m[0] * (-rc[0]) + m[1] * (-rc[1]) + rc[0]
    m[5] += m[3] * (-rc[0]) + m[4] * (-rc[1]) + rc[1]
    theta = m.reshape(1, 2, 3)
    if expand:
        corners = torch.tensor([[-0.5 * w, -0.5 * h, 1.0], [-0.5 * w, 0.5 * h, 1.0], [0.5 * w, 0.5 * h, 1.0],
                                [0.5 * w, -0.5 * h, 1.0]], dtype=torch.float32)
        pos = corners.reshape(1, -1, 3).bmm(theta.transpose(1, 2)).reshape(1, -1, 2)
        size = pos.max(dim=-2).values.ceil() - pos.min(dim=-2).values.floor()
        ow, oh = int(size[0][0]), int(size[0][1])
    else:
        ow, oh = w, h
    grid = _affine_grid(theta, w, h, ow, oh)
    return wrap(_from_nchw(_grid_transform(x, grid, interpolation, fill), data_format, t.dim()))


def _perspective_grid(coeffs, ow, oh, dtype):
    theta1 = coeffs[:6].reshape(1, 2, 3)
    tmp = coeffs[6:].reshape(1, 2).repeat(2, 1)
    theta2 = torch.cat([tmp, torch.ones((2, 1), dtype=dtype)], dim=1).unsqueeze(0)
    base = torch.ones((1, oh, ow, 3), dtype=dtype)
    base[..., 0] = torch.linspace(0.5, ow * 1.0 + 0.5 - 1.0, ow)
    base[..., 1] = torch.linspace(0.5, oh * 1.0 + 0.5 - 1.0, oh).unsqueeze(-1)
    scaled1 = theta1.transpose(1, 2) / torch.tensor([0.5 * ow, 0.5 * oh], dtype=torch.float32)
    flat = base.reshape(1, oh * ow, 3)
    grid = flat.bmm(scaled1) / flat.bmm(theta2.transpose(1, 2)) - 1.0
    return grid.reshape(1, oh, ow, 2)


def perspective(img, coeffs, interpolation="nearest", fill=None, data_format="CHW"):
    _assert_image_tensor(img, data_format, "perspective")
    t = img._t
    x = _to_nchw(t, data_format)
    oh, ow = x.shape[-2:]
    dtype = _work_dtype(x)
    # Paddle turns the float64 coefficients into a float32 tensor first
    coeffs = torch.tensor([float(c) for c in coeffs], dtype=torch.float32).to(dtype)
    grid = _perspective_grid(coeffs, ow, oh, dtype)
    return wrap(_from_nchw(_grid_transform(x, grid, interpolation, fill), data_format, t.dim()))


def erase(img, i, j, h, w, v, inplace=False):
    _assert_image_tensor(img, "CHW", "erase")
    out = img if inplace else img.clone()
    out[..., i:i + h, j:j + w] = v
    return out


# -- colour ------------------------------------------------------------------------------------------------
def _num_channels(t, data_format="CHW"):
    return t.shape[_c_axis(data_format)]


def normalize(img, mean, std, data_format="CHW"):
    _assert_image_tensor(img, data_format, "normalize")
    from ...tensor.creation import to_tensor
    mean, std = to_tensor(mean), to_tensor(std)
    if data_format.lower() == "chw":
        mean, std = mean.reshape([-1, 1, 1]), std.reshape([-1, 1, 1])
    return (img - mean) / std


def _gray(t, data_format="CHW"):
    """The weighted channel sum (1 channel), in the image's float type (float32 for integer images)."""
    weights = torch.tensor([0.2989, 0.587, 0.114], dtype=torch.float32).to(device=t.device, dtype=_work_dtype(t))
    if data_format.lower() == "chw":
        weights = weights.reshape(-1, 1, 1)
    return (t.to(_work_dtype(t)) * weights).sum(dim=_c_axis(data_format), keepdim=True)


def to_grayscale(img, num_output_channels=1, data_format="CHW"):
    _assert_image_tensor(img, data_format, "to_grayscale")
    if num_output_channels not in (1, 3):
        raise ValueError(f"to_grayscale: num_output_channels should be either 1 or 3, got {num_output_channels}")
    t = img._t
    gray = _cast_back(_gray(t, data_format), t.dtype)
    shape = list(gray.shape)
    shape[_c_axis(data_format)] = num_output_channels
    return wrap(gray.expand(shape).contiguous())


def _check_factor(value, name, api, non_negative=True):
    if not isinstance(value, numbers.Number):
        raise TypeError(f"{api}: {name} must be a number, got {type(value).__name__}")
    if non_negative and value < 0:
        raise PaddleAssertionError(f"{api}: {name} should be non-negative, got {value}")


def adjust_brightness(img, brightness_factor):
    _assert_image_tensor(img, "CHW", "adjust_brightness")
    _check_factor(brightness_factor, "brightness_factor", "adjust_brightness")
    t = img._t
    if _num_channels(t) not in (1, 3):
        raise PaddleAssertionError(f"adjust_brightness: the image must have 1 or 3 channels, got shape "
                                   f"{list(t.shape)}")
    return wrap(_blend(t, torch.zeros_like(t), brightness_factor))


def adjust_contrast(img, contrast_factor):
    _assert_image_tensor(img, "CHW", "adjust_contrast")
    _check_factor(contrast_factor, "contrast_factor", "adjust_contrast")
    t = img._t
    channels = _num_channels(t)
    if channels == 1:
        mean = t.to(_work_dtype(t)).mean(dim=(-3, -2, -1), keepdim=True)
    elif channels == 3:
        mean = _gray(t).mean(dim=(-3, -2, -1), keepdim=True)
    else:
        raise ValueError(f"adjust_contrast: the image must have 1 or 3 channels, got shape {list(t.shape)}")
    return wrap(_blend(t, mean, contrast_factor))


def adjust_saturation(img, saturation_factor):
    _assert_image_tensor(img, "CHW", "adjust_saturation")
    _check_factor(saturation_factor, "saturation_factor", "adjust_saturation")
    t = img._t
    channels = _num_channels(t)
    if channels == 1:
        return img
    if channels != 3:
        raise ValueError(f"adjust_saturation: the image must have 1 or 3 channels, got shape {list(t.shape)}")
    return wrap(_blend(t, _gray(t), saturation_factor))


def _rgb_to_hsv(x):
    maxc = x.max(dim=-3).values
    minc = x.min(dim=-3).values
    equal = maxc == minc
    one = torch.ones_like(maxc)
    delta = maxc - minc
    s = delta / torch.where(equal, one, maxc)
    r, g, b = x.unbind(dim=-3)
    div = torch.where(equal, one, delta)
    rc, gc, bc = (maxc - r) / div, (maxc - g) / div, (maxc - b) / div
    hr = (maxc == r).to(x.dtype) * (bc - gc)
    hg = ((maxc == g) & (maxc != r)).to(x.dtype) * (rc - bc + 2.0)
    hb = ((maxc != r) & (maxc != g)).to(x.dtype) * (gc - rc + 4.0)
    h = (hr + hg + hb) / 6.0 + 1.0
    h = h - h.trunc()
    return h, s, maxc


def _hsv_to_rgb(h, s, v):
    f = h * 6.0
    i = torch.floor(f)
    f = f - i
    i = i.to(torch.int32) % 6
    p = (v * (1.0 - s)).clamp(0.0, 1.0)
    q = (v * (1.0 - s * f)).clamp(0.0, 1.0)
    t = (v * (1.0 - s * (1.0 - f))).clamp(0.0, 1.0)
    mask = (i.unsqueeze(-3) == torch.arange(6, dtype=i.dtype, device=i.device).reshape(-1, 1, 1)).to(h.dtype)
    matrix = torch.stack([torch.stack([v, q, p, p, t, v], dim=-3), torch.stack([t, v, v, q, p, p], dim=-3),
                          torch.stack([p, p, t, v, v, q], dim=-3)], dim=-4)
    return torch.einsum("...ijk,...xijk->...xjk", mask, matrix)


def adjust_hue(img, hue_factor):
    _assert_image_tensor(img, "CHW", "adjust_hue")
    _check_factor(hue_factor, "hue_factor", "adjust_hue", non_negative=False)
    if not -0.5 <= hue_factor <= 0.5:
        raise PaddleAssertionError(f"adjust_hue: hue_factor should be in [-0.5, 0.5], got {hue_factor}")
    t = img._t
    channels = _num_channels(t)
    if channels == 1:
        return img
    if channels != 3:
        raise ValueError(f"adjust_hue: the image must have 1 or 3 channels, got shape {list(t.shape)}")
    dtype = t.dtype
    x = t.to(torch.float32) / 255.0 if dtype == torch.uint8 else t.to(_work_dtype(t))
    h, s, v = _rgb_to_hsv(x)
    h = h + hue_factor
    h = h - h.floor()
    out = _hsv_to_rgb(h, s, v)
    if dtype == torch.uint8:
        out = out * 255.0
    return wrap(_cast_back(out, dtype))

"""Image transforms on PIL images (Pillow does the pixel work, so results match Paddle's exactly)."""
import numbers
from collections.abc import Iterable

import numpy as np
import torch
from PIL import Image, ImageEnhance, ImageOps

from ...framework.tensor import wrap
from .functional_tensor import _parse_padding

__all__ = []

_Resampling = getattr(Image, "Resampling", Image)
_INTERPOLATION = {"nearest": _Resampling.NEAREST, "bilinear": _Resampling.BILINEAR,
                  "bicubic": _Resampling.BICUBIC, "box": _Resampling.BOX, "lanczos": _Resampling.LANCZOS,
                  "hamming": _Resampling.HAMMING}


class InterpolationError(KeyError, ValueError):
    """An unknown interpolation name (Paddle raises KeyError from its lookup table; ValueError fits better)."""

    def __str__(self):
        return str(self.args[0]) if self.args else ""


def _resample(interpolation, api):
    try:
        return _INTERPOLATION[interpolation]
    except (KeyError, TypeError):
        raise InterpolationError(f"{api}: interpolation for PIL images must be one of {sorted(_INTERPOLATION)}, "
                         f"got {interpolation!r}") from None


def _check_data_format(data_format):
    if data_format not in ("CHW", "HWC"):
        raise ValueError(f"to_tensor: data_format should be 'CHW' or 'HWC', got {data_format!r}")


def to_tensor(pic, data_format="CHW"):
    _check_data_format(data_format)
    if pic.mode in ("I", "I;16"):
        array = np.asarray(pic, np.int32)
    elif pic.mode == "F":
        array = np.asarray(pic, np.float32)
    elif pic.mode == "1":
        array = np.asarray(pic, np.uint8) * np.uint8(255)
    else:
        array = np.asarray(pic)
    channels = 3 if pic.mode == "YCbCr" else 1 if pic.mode == "I;16" else len(pic.mode)
    t = torch.from_numpy(np.array(array, copy=True))
    if t.dtype == torch.uint8:
        t = t.to(torch.float32) / 255.0
    t = t.reshape(pic.size[1], pic.size[0], channels)
    if data_format == "CHW":
        t = t.permute(2, 0, 1).contiguous()
    return wrap(t)


def resize(img, size, interpolation="bilinear"):
    if not (isinstance(size, int) or (isinstance(size, Iterable) and len(size) == 2)):
        raise TypeError(f"resize: size must be an int or a (h, w) pair, got {size!r}")
    resample = _resample(interpolation, "resize")
    if isinstance(size, int):
        w, h = img.size
        if (w <= h and w == size) or (h <= w and h == size):
            return img
        if w < h:
            return img.resize((size, int(size * h / w)), resample)
        return img.resize((int(size * w / h), size), resample)
    return img.resize(tuple(size)[::-1], resample)


def pad(img, padding, fill=0, padding_mode="constant"):
    left, top, right, bottom = _parse_padding(padding, fill, padding_mode, "pad")
    if isinstance(padding, list):
        padding = tuple(padding)
    palette = img.getpalette() if img.mode == "P" else None
    if padding_mode == "constant":
        out = ImageOps.expand(img, border=padding, fill=fill)
    else:
        array = np.asarray(img)
        widths = ((top, bottom), (left, right)) + (((0, 0),) if array.ndim == 3 else ())
        out = Image.fromarray(np.pad(array, widths, padding_mode))
    if palette is not None:
        out.putpalette(palette)
    return out


def crop(img, top, left, height, width):
    return img.crop((left, top, left + width, top + height))


def center_crop(img, output_size):
    if isinstance(output_size, numbers.Number):
        output_size = (int(output_size), int(output_size))
    width, height = img.size
    crop_height, crop_width = output_size
    top = int(round((height - crop_height) / 2.0))
    left = int(round((width - crop_width) / 2.0))
    return crop(img, top, left, crop_height, crop_width)


def hflip(img):
    return img.transpose(Image.FLIP_LEFT_RIGHT)


def vflip(img):
    return img.transpose(Image.FLIP_TOP_BOTTOM)


def adjust_brightness(img, brightness_factor):
    return ImageEnhance.Brightness(img).enhance(brightness_factor)


def adjust_contrast(img, contrast_factor):
    return ImageEnhance.Contrast(img).enhance(contrast_factor)


def adjust_saturation(img, saturation_factor):
    return ImageEnhance.Color(img).enhance(saturation_factor)


def adjust_hue(img, hue_factor):
    if not -0.5 <= hue_factor <= 0.5:
        raise ValueError(f"adjust_hue: hue_factor should be in [-0.5, 0.5], got {hue_factor}")
    mode = img.mode
    if mode in {"L", "1", "I", "F"}:
        return img
    h, s, v = img.convert("HSV").split()
    shifted = (np.array(h, dtype=np.uint8).astype(np.int16) + int(hue_factor * 255)) % 256
    h = Image.fromarray(shifted.astype(np.uint8), "L")
    return Image.merge("HSV", (h, s, v)).convert(mode)


def _fill(fill):
    return (fill,) * 3 if isinstance(fill, int) else fill


def affine(img, matrix, interpolation="nearest", fill=0):
    return img.transform(img.size, Image.AFFINE, matrix, _resample(interpolation, "affine"), _fill(fill))


def rotate(img, angle, interpolation="nearest", expand=False, center=None, fill=0):
    return img.rotate(angle, _resample(interpolation, "rotate"), expand, center, fillcolor=_fill(fill))


def perspective(img, coeffs, interpolation="nearest", fill=0):
    return img.transform(img.size, Image.PERSPECTIVE, coeffs, _resample(interpolation, "perspective"), _fill(fill))


def to_grayscale(img, num_output_channels=1):
    if num_output_channels == 1:
        return img.convert("L")
    if num_output_channels == 3:
        gray = np.array(img.convert("L"), dtype=np.uint8)
        return Image.fromarray(np.dstack([gray, gray, gray]), "RGB")
    raise ValueError(f"to_grayscale: num_output_channels should be either 1 or 3, got {num_output_channels}")


def erase(img, i, j, h, w, v, inplace=False):
    array = np.array(img, dtype=np.uint8)
    array[i:i + h, j:j + w, ...] = v
    return Image.fromarray(array, "RGB")

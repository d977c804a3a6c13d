"""Image transforms on NumPy HWC arrays. As in Paddle, most of them need OpenCV (``cv2``), imported lazily:
without it they raise ImportError, as Paddle does; crop, center_crop, normalize, erase and to_tensor are
plain NumPy. OpenCV is not a dependency of torchpaddle."""
import math
import numbers
from collections.abc import Iterable

import numpy as np
import torch

from ...framework.tensor import wrap
from .functional_pil import InterpolationError
from .functional_tensor import _parse_padding

__all__ = []


def _cv2(api):
    try:
        import cv2
    except ImportError as e:
        raise ImportError(f"{api}: transforming NumPy images needs OpenCV, which is not installed (pip install "
                          f"opencv-python-headless), or pass a PIL image or a Tensor instead") from e
    return cv2


def _interpolation(cv2, interpolation, api):
    table = {"nearest": cv2.INTER_NEAREST, "bilinear": cv2.INTER_LINEAR, "area": cv2.INTER_AREA,
             "bicubic": cv2.INTER_CUBIC, "lanczos": cv2.INTER_LANCZOS4}
    try:
        return table[interpolation]
    except (KeyError, TypeError):
        raise InterpolationError(f"{api}: interpolation for NumPy images must be one of {sorted(table)}, "
                         f"got {interpolation!r}") from None


def _keep_channel_axis(img, out):
    """OpenCV drops a trailing channel axis of size 1; Paddle puts it back."""
    return out[:, :, np.newaxis] if img.ndim == 3 and img.shape[2] == 1 else out


def to_tensor(pic, data_format="CHW"):
    if data_format not in ("CHW", "HWC"):
        raise ValueError(f"to_tensor: data_format should be 'CHW' or 'HWC', got {data_format!r}")
    if pic.ndim == 2:
        pic = pic[:, :, None]
    if data_format == "CHW":
        pic = pic.transpose((2, 0, 1))
    from ...framework.convert import _as_torch
    t = _as_torch(np.ascontiguousarray(pic))
    if t.dtype == torch.uint8:
        t = t.to(torch.float32) / 255.0
    return wrap(t)


def resize(img, size, interpolation="bilinear"):
    cv2 = _cv2("resize")
    flag = _interpolation(cv2, interpolation, "resize")
    if not (isinstance(size, int) or (isinstance(size, Iterable) and len(size) == 2)):
        raise TypeError(f"resize: size must be an int or a (h, w) pair, got {size!r}")
    h, w = img.shape[:2]
    if isinstance(size, int):
        if (w <= h and w == size) or (h <= w and h == size):
            return img
        dsize = (size, int(size * h / w)) if w < h else (int(size * w / h), size)
    else:
        dsize = (size[1], size[0])
    return _keep_channel_axis(img, cv2.resize(img, dsize=dsize, interpolation=flag))


def pad(img, padding, fill=0, padding_mode="constant"):
    cv2 = _cv2("pad")
    left, top, right, bottom = _parse_padding(padding, fill, padding_mode, "pad")
    border = {"constant": cv2.BORDER_CONSTANT, "edge": cv2.BORDER_REPLICATE, "reflect": cv2.BORDER_REFLECT_101,
              "symmetric": cv2.BORDER_REFLECT}[padding_mode]
    out = cv2.copyMakeBorder(img, top=top, bottom=bottom, left=left, right=right, borderType=border, value=fill)
    return _keep_channel_axis(img, out)


def crop(img, top, left, height, width):
    return img[top:top + height, left:left + width, :]


def center_crop(img, output_size):
    if isinstance(output_size, numbers.Number):
        output_size = (int(output_size), int(output_size))
    h, w = img.shape[0:2]
    th, tw = output_size
    return crop(img, int(round((h - th) / 2.0)), int(round((w - tw) / 2.0)), th, tw)


def hflip(img):
    # NOTE: Paddle does not restore a size-1 channel axis here (vflip does)
    return _cv2("hflip").flip(img, 1)


def vflip(img):
    return _keep_channel_axis(img, _cv2("vflip").flip(img, 0))


def _lut(img, table, api):
    return _keep_channel_axis(img, _cv2(api).LUT(img, table))


def adjust_brightness(img, brightness_factor):
    table = np.array([i * brightness_factor for i in range(256)]).clip(0, 255).astype("uint8")
    return _lut(img, table, "adjust_brightness")


def adjust_contrast(img, contrast_factor):
    # Paddle's NumPy path pivots on the fixed value 74, not the image mean
    table = np.array([(i - 74) * contrast_factor + 74 for i in range(256)]).clip(0, 255).astype("uint8")
    return _lut(img, table, "adjust_contrast")


def adjust_saturation(img, saturation_factor):
    # NOTE: as in Paddle, the factor is itself randomised here (np.random), unlike the PIL and Tensor paths
    cv2 = _cv2("adjust_saturation")
    dtype = img.dtype
    img = img.astype(np.float32)
    alpha = np.random.uniform(max(0, 1 - saturation_factor), 1 + saturation_factor)
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)[..., np.newaxis]
    return (img * alpha + gray * (1 - alpha)).clip(0, 255).astype(dtype)


def adjust_hue(img, hue_factor):
    cv2 = _cv2("adjust_hue")
    if not -0.5 <= hue_factor <= 0.5:
        raise ValueError(f"adjust_hue: hue_factor should be in [-0.5, 0.5], got {hue_factor}")
    dtype = img.dtype
    hsv = cv2.cvtColor(img.astype(np.uint8), cv2.COLOR_BGR2HSV_FULL)
    h, s, v = cv2.split(hsv)
    h = ((h.astype(np.int32) + int(hue_factor * 255)) % 256).astype(np.uint8)
    return cv2.cvtColor(cv2.merge([h, s, v]), cv2.COLOR_HSV2BGR_FULL).astype(dtype)


def affine(img, angle, translate, scale, shear, interpolation="nearest", fill=0, center=None):
    cv2 = _cv2("affine")
    flag = _interpolation(cv2, interpolation, "affine")
    h, w = img.shape[0:2]
    if isinstance(fill, int):
        fill = (fill,) * 3
    if center is None:
        center = (w / 2.0, h / 2.0)
    rot = cv2.getRotationMatrix2D(angle=angle, center=center, scale=scale)
    sx = math.tan(shear[0] * math.pi / 180)
    sy = math.tan(shear[1] * math.pi / 180)
    m = np.ones([2, 3])
    m[0] = rot[0] + sy * rot[1]
    m[1] = rot[1] + sx * rot[0]
    # NOTE: Paddle's NumPy path replaces (not adds to) the rotation's offset with the translation
    m[0, 2], m[1, 2] = translate
    return _keep_channel_axis(img, cv2.warpAffine(img, m, dsize=(w, h), flags=flag, borderValue=fill))


def _expanded_size(w, h, center, angle):
    """Bounding box of the image rotated by ``angle`` degrees about ``center`` (PIL's rule)."""
    rad = -math.radians(angle)
    a, b = round(math.cos(rad), 15), round(math.sin(rad), 15)
    m = [a, b, 0.0, -b, a, 0.0]
    m[2] = m[0] * -center[0] + m[1] * -center[1] + center[0]
    m[5] = m[3] * -center[0] + m[4] * -center[1] + center[1]
    xs, ys = [], []
    for x, y in ((0, 0), (w, 0), (w, h), (0, h)):
        xs.append(m[0] * x + m[1] * y + m[2])
        ys.append(m[3] * x + m[4] * y + m[5])
    return math.ceil(max(xs)) - math.floor(min(xs)), math.ceil(max(ys)) - math.floor(min(ys))


def rotate(img, angle, interpolation="nearest", expand=False, center=None, fill=0):
    cv2 = _cv2("rotate")
    flag = _interpolation(cv2, interpolation, "rotate")
    h, w = img.shape[0:2]
    if center is None:
        center = (w / 2.0, h / 2.0)
    m = cv2.getRotationMatrix2D(center, angle, 1)
    if expand:
        nw, nh = _expanded_size(w, h, center, angle)
        m[0, 2] += (nw - w) * 0.5
        m[1, 2] += (nh - h) * 0.5
        w, h = int(nw), int(nh)
    return _keep_channel_axis(img, cv2.warpAffine(img, m, (w, h), flags=flag, borderValue=fill))


def perspective(img, startpoints, endpoints, interpolation="nearest", fill=0):
    cv2 = _cv2("perspective")
    flag = _interpolation(cv2, interpolation, "perspective")
    h, w = img.shape[0:2]
    matrix = cv2.getPerspectiveTransform(np.array(startpoints, dtype="float32"),
                                         np.array(endpoints, dtype="float32"))
    return _keep_channel_axis(img, cv2.warpPerspective(img, matrix, dsize=(w, h), flags=flag, borderValue=fill))


def to_grayscale(img, num_output_channels=1):
    cv2 = _cv2("to_grayscale")
    if num_output_channels not in (1, 3):
        raise ValueError(f"to_grayscale: num_output_channels should be either 1 or 3, got {num_output_channels}")
    gray = cv2.cvtColor(img, cv2.COLOR_RGB2GRAY)[:, :, np.newaxis]
    return gray if num_output_channels == 1 else np.broadcast_to(gray, img.shape)


def normalize(img, mean, std, data_format="CHW", to_rgb=False):
    shape = (-1, 1, 1) if data_format == "CHW" else (1, 1, -1)
    mean = np.float32(np.array(mean).reshape(shape))
    std = np.float32(np.array(std).reshape(shape))
    if to_rgb:
        img = img[..., ::-1]
    return (img - mean) / std


def erase(img, i, j, h, w, v, inplace=False):
    if not inplace:
        img = img.copy()
    img[i:i + h, j:j + w, ...] = v
    return img

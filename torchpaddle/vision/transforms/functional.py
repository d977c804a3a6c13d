"""paddle.vision.transforms functional API: each function dispatches on the image kind (PIL image, NumPy HWC
array, or CHW Tensor) to functional_pil, functional_cv2 or functional_tensor."""
import math
import numbers

import numpy as np
from PIL import Image

from ...framework.tensor import Tensor
from . import functional_cv2 as F_cv2
from . import functional_pil as F_pil
from . import functional_tensor as F_t

__all__ = []


def _is_pil_image(img):
    return isinstance(img, Image.Image)


def _is_tensor_image(img):
    return isinstance(img, Tensor)


def _is_numpy_image(img):
    return isinstance(img, np.ndarray) and img.ndim in {2, 3}


def _backend(img, api):
    """The functional module for ``img``'s kind."""
    if isinstance(img, Image.Image):
        return F_pil
    if isinstance(img, Tensor):
        return F_t
    if isinstance(img, np.ndarray) and img.ndim in (2, 3):
        return F_cv2
    detail = f" of shape {img.shape}" if isinstance(img, np.ndarray) else ""
    raise TypeError(f"{api}: img should be a PIL Image, a Tensor image or an ndarray with 2 or 3 dims, "
                    f"got {type(img).__name__}{detail}")


def to_tensor(pic, data_format="CHW"):
    """PIL image or HWC ndarray -> Tensor (uint8 scaled to float32 in [0, 1]); a Tensor passes through."""
    backend = _backend(pic, "to_tensor")
    if backend is F_t:
        return pic if data_format.lower() == "chw" else pic.transpose((1, 2, 0))
    return backend.to_tensor(pic, data_format)


def resize(img, size, interpolation="bilinear"):
    """Resize to ``size`` (h, w); an int resizes the shorter side to it, keeping the aspect ratio."""
    return _backend(img, "resize").resize(img, size, interpolation)


def pad(img, padding, fill=0, padding_mode="constant"):
    return _backend(img, "pad").pad(img, padding, fill, padding_mode)


def crop(img, top, left, height, width):
    return _backend(img, "crop").crop(img, top, left, height, width)


def center_crop(img, output_size):
    return _backend(img, "center_crop").center_crop(img, output_size)


def hflip(img):
    return _backend(img, "hflip").hflip(img)


def vflip(img):
    return _backend(img, "vflip").vflip(img)


def adjust_brightness(img, brightness_factor):
    backend = _backend(img, "adjust_brightness")
    if backend is F_cv2:
        img = img.astype(np.uint8)
    return backend.adjust_brightness(img, brightness_factor)


def adjust_contrast(img, contrast_factor):
    return _backend(img, "adjust_contrast").adjust_contrast(img, contrast_factor)


def adjust_saturation(img, saturation_factor):
    return _backend(img, "adjust_saturation").adjust_saturation(img, saturation_factor)


def adjust_hue(img, hue_factor):
    return _backend(img, "adjust_hue").adjust_hue(img, hue_factor)


def _get_affine_matrix(center, angle, translate, scale, shear):
    """Inverse affine matrix (output -> input coordinates) of rotate-scale-shear about ``center``, then
    translate."""
    rot = math.radians(angle)
    sx, sy = math.radians(shear[0]), math.radians(shear[1])
    a = math.cos(rot - sy) / math.cos(sy)
    b = -math.cos(rot - sy) * math.tan(sx) / math.cos(sy) - math.sin(rot)
    c = math.sin(rot - sy) / math.cos(sy)
    d = -math.sin(rot - sy) * math.tan(sx) / math.cos(sy) + math.cos(rot)
    cx, cy = center
    tx, ty = translate
    m = [x / scale for x in [d, -b, 0.0, -c, a, 0.0]]
    m[2] += m[0] * (-cx - tx) + m[1] * (-cy - ty)
    m[5] += m[3] * (-cx - tx) + m[4] * (-cy - ty)
    m[2] += cx
    m[5] += cy
    return m


def affine(img, angle, translate, scale, shear, interpolation="nearest", fill=0, center=None):
    backend = _backend(img, "affine")
    if not isinstance(angle, (int, float)):
        raise TypeError(f"affine: angle should be int or float, got {type(angle).__name__}")
    if not isinstance(translate, (list, tuple)):
        raise TypeError(f"affine: translate should be a sequence, got {type(translate).__name__}")
    if len(translate) != 2:
        raise ValueError(f"affine: translate should be a sequence of length 2, got {translate!r}")
    if scale <= 0.0:
        raise ValueError(f"affine: scale should be positive, got {scale}")
    if not isinstance(shear, (numbers.Number, list, tuple)):
        raise TypeError(f"affine: shear should be a number or a sequence of two numbers, got {shear!r}")
    if not isinstance(interpolation, str):
        raise TypeError(f"affine: interpolation should be a string, got {type(interpolation).__name__}")
    angle = float(angle)
    translate = list(translate)
    if isinstance(shear, numbers.Number):
        shear = [shear, 0.0]
    shear = list(shear)
    if len(shear) == 1:
        shear = [shear[0], shear[0]]
    if len(shear) != 2:
        raise ValueError(f"affine: shear should be a sequence of two values, got {shear}")
    if center is not None and not isinstance(center, (list, tuple)):
        raise TypeError(f"affine: center should be a sequence, got {type(center).__name__}")
    if backend is F_pil:
        width, height = img.size
        if center is None:
            center = [width * 0.5, height * 0.5]
        return F_pil.affine(img, _get_affine_matrix(center, angle, translate, scale, shear), interpolation, fill)
    if backend is F_cv2:
        # NOTE: Paddle takes (width, height) from shape[0:2] here, i.e. swapped
        width, height = img.shape[0:2]
        if center is None:
            center = (width * 0.5, height * 0.5)
        return F_cv2.affine(img, angle, translate, scale, shear, interpolation, fill, center)
    center_f = [0.0, 0.0]
    if center is not None:
        # NOTE: Paddle reads (height, width) as (shape[-1], shape[-2]) here, i.e. swapped; kept for equal results
        height, width = img.shape[-1], img.shape[-2]
        center_f = [1.0 * (c - s * 0.5) for c, s in zip(center, [width, height])]
    matrix = _get_affine_matrix(center_f, angle, [1.0 * t for t in translate], scale, shear)
    return F_t.affine(img, matrix, interpolation, fill)


def rotate(img, angle, interpolation="nearest", expand=False, center=None, fill=0):
    """Rotate counter-clockwise by ``angle`` degrees about ``center`` (default: the image centre)."""
    backend = _backend(img, "rotate")
    if isinstance(center, list):
        center = tuple(center)
    if isinstance(fill, list):
        fill = tuple(fill)
    return backend.rotate(img, angle, interpolation, expand, center, fill)


def _get_perspective_coeffs(startpoints, endpoints):
    a = np.zeros((2 * len(startpoints), 8))
    for i, (p1, p2) in enumerate(zip(endpoints, startpoints)):
        a[2 * i, :] = [p1[0], p1[1], 1, 0, 0, 0, -p2[0] * p1[0], -p2[0] * p1[1]]
        a[2 * i + 1, :] = [0, 0, 0, p1[0], p1[1], 1, -p2[1] * p1[0], -p2[1] * p1[1]]
    b = np.array(startpoints).reshape([8])
    return list(np.linalg.lstsq(a, b, rcond=None)[0])


def perspective(img, startpoints, endpoints, interpolation="nearest", fill=0):
    backend = _backend(img, "perspective")
    if backend is F_cv2:
        return F_cv2.perspective(img, startpoints, endpoints, interpolation, fill)
    return backend.perspective(img, _get_perspective_coeffs(startpoints, endpoints), interpolation, fill)


def to_grayscale(img, num_output_channels=1):
    return _backend(img, "to_grayscale").to_grayscale(img, num_output_channels)


def normalize(img, mean, std, data_format="CHW", to_rgb=False):
    """(img - mean) / std per channel; PIL images and ndarrays give a float32 ndarray, Tensors a Tensor."""
    if _is_tensor_image(img):
        return F_t.normalize(img, mean, std, data_format)
    if _is_pil_image(img):
        img = np.array(img).astype(np.float32)
    return F_cv2.normalize(img, mean, std, data_format, to_rgb)


def erase(img, i, j, h, w, v, inplace=False):
    """Set the box (top i, left j, height h, width w) to ``v``."""
    if _is_tensor_image(img):
        return F_t.erase(img, i, j, h, w, v, inplace=inplace)
    if _is_pil_image(img):
        return F_pil.erase(img, i, j, h, w, v, inplace=inplace)
    return F_cv2.erase(img, i, j, h, w, v, inplace=inplace)

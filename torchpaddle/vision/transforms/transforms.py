"""paddle.vision.transforms classes. Random choices use Python's ``random`` and ``np.random``, as Paddle's do,
so seeding those (``random.seed``, ``np.random.seed``) reproduces Paddle's crops, flips and jitters exactly.
Only the dynamic-graph behaviour is provided (Paddle's static-graph branches build control-flow ops)."""
import math
import numbers
import random
from collections.abc import Iterable, Sequence

import numpy as np

from ...framework.tensor import PaddleAssertionError
from . import functional as F

__all__ = []


def _require(condition, message):
    if not condition:
        raise PaddleAssertionError(message)


def _get_image_size(img):
    """(width, height) of a PIL image, HWC ndarray or CHW/NCHW Tensor."""
    if F._is_pil_image(img):
        return img.size
    if F._is_numpy_image(img):
        return img.shape[:2][::-1]
    if F._is_tensor_image(img):
        if img.ndim in (3, 4):
            return tuple(img.shape[-2:][::-1])
        raise ValueError(f"The dim for input Tensor should be 3-D or 4-D, but received {img.ndim}")
    raise TypeError(f"Unexpected type {type(img).__name__} for an image")


def _check_input(value, name, center=1, bound=(0, float("inf")), clip_first_on_zero=True):
    if isinstance(value, numbers.Number):
        if value < 0:
            raise ValueError(f"If {name} is a single number, it must be non negative, got {value}")
        value = [center - value, center + value]
        if clip_first_on_zero:
            value[0] = max(value[0], 0)
    elif isinstance(value, (tuple, list)) and len(value) == 2:
        if not bound[0] <= value[0] <= value[1] <= bound[1]:
            raise ValueError(f"{name} values should be between {bound}, got {value}")
    else:
        raise TypeError(f"{name} should be a single number or a list/tuple with length 2, got {value!r}")
    if value[0] == value[1] == center:
        value = None
    return value


class Compose:
    """Apply ``transforms`` one after another."""

    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, data):
        for f in self.transforms:
            data = f(data)
        return data

    def __repr__(self):
        body = "".join(f"\n    {t}" for t in self.transforms)
        return f"{self.__class__.__name__}({body}\n)"


class BaseTransform:
    """Base of the transforms: ``keys`` names what each element of a tuple input is ('image', 'coords',
    'boxes', 'mask'); elements past ``keys`` pass through unchanged."""

    def __init__(self, keys=None):
        if keys is None:
            keys = ("image",)
        elif not isinstance(keys, Sequence):
            raise ValueError(f"keys should be a sequence, but got keys={keys}")
        for k in keys:
            if self._get_apply(k) is None:
                raise NotImplementedError(f"{k} is unsupported data structure")
        self.keys = keys
        self.params = None

    def _get_params(self, inputs):
        pass

    def __call__(self, inputs):
        if not isinstance(inputs, tuple):
            inputs = (inputs,)
        self.params = self._get_params(inputs)
        outputs = []
        for i in range(min(len(inputs), len(self.keys))):
            apply = self._get_apply(self.keys[i])
            outputs.append(inputs[i] if apply is None else apply(inputs[i]))
        outputs.extend(inputs[len(self.keys):])
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def _get_apply(self, key):
        return getattr(self, f"_apply_{key}", None)

    def _apply_image(self, image):
        raise NotImplementedError

    def _apply_boxes(self, boxes):
        raise NotImplementedError

    def _apply_mask(self, mask):
        raise NotImplementedError

    def _apply_coords(self, coords):
        raise NotImplementedError


class ToTensor(BaseTransform):
    def __init__(self, data_format="CHW", keys=None):
        super().__init__(keys)
        self.data_format = data_format

    def _apply_image(self, img):
        return F.to_tensor(img, self.data_format)


class Resize(BaseTransform):
    def __init__(self, size, interpolation="bilinear", keys=None):
        super().__init__(keys)
        _require(isinstance(size, int) or (isinstance(size, Iterable) and len(size) == 2),
                 f"Resize: size must be an int or a (h, w) pair, got {size!r}")
        self.size = size
        self.interpolation = interpolation

    def _apply_image(self, img):
        return F.resize(img, self.size, self.interpolation)


class RandomResizedCrop(BaseTransform):
    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4, 4.0 / 3), interpolation="bilinear", keys=None):
        super().__init__(keys)
        self.size = (size, size) if isinstance(size, int) else size
        _require(scale[0] <= scale[1], f"RandomResizedCrop: scale should be of kind (min, max), got {scale}")
        _require(ratio[0] <= ratio[1], f"RandomResizedCrop: ratio should be of kind (min, max), got {ratio}")
        self.scale = scale
        self.ratio = ratio
        self.interpolation = interpolation

    def _dynamic_get_param(self, image, attempts=10):
        width, height = _get_image_size(image)
        area = height * width
        for _ in range(attempts):
            target_area = np.random.uniform(*self.scale) * area
            log_ratio = tuple(math.log(x) for x in self.ratio)
            aspect_ratio = math.exp(np.random.uniform(*log_ratio))
            w = int(round(math.sqrt(target_area * aspect_ratio)))
            h = int(round(math.sqrt(target_area / aspect_ratio)))
            if 0 < w <= width and 0 < h <= height:
                return random.randint(0, height - h), random.randint(0, width - w), h, w
        in_ratio = float(width) / float(height)
        if in_ratio < min(self.ratio):
            w, h = width, int(round(width / min(self.ratio)))
        elif in_ratio > max(self.ratio):
            w, h = int(round(height * max(self.ratio))), height
        else:
            w, h = width, height
        return (height - h) // 2, (width - w) // 2, h, w

    def _apply_image(self, img):
        i, j, h, w = self._dynamic_get_param(img)
        return F.resize(F.crop(img, i, j, h, w), self.size, self.interpolation)


class CenterCrop(BaseTransform):
    def __init__(self, size, keys=None):
        super().__init__(keys)
        self.size = (int(size), int(size)) if isinstance(size, numbers.Number) else size

    def _apply_image(self, img):
        return F.center_crop(img, self.size)


class _RandomFlip(BaseTransform):
    _flip = None

    def __init__(self, prob=0.5, keys=None):
        super().__init__(keys)
        _require(0 <= prob <= 1, f"{type(self).__name__}: probability must be between 0 and 1, got {prob}")
        self.prob = prob

    def _apply_image(self, img):
        if random.random() < self.prob:
            return type(self)._flip(img)
        return img


class RandomHorizontalFlip(_RandomFlip):
    _flip = staticmethod(F.hflip)


class RandomVerticalFlip(_RandomFlip):
    _flip = staticmethod(F.vflip)


class Normalize(BaseTransform):
    def __init__(self, mean=0.0, std=1.0, data_format="CHW", to_rgb=False, keys=None):
        super().__init__(keys)
        if isinstance(mean, numbers.Number):
            mean = [mean, mean, mean]
        if isinstance(std, numbers.Number):
            std = [std, std, std]
        self.mean = mean
        self.std = std
        self.data_format = data_format
        self.to_rgb = to_rgb

    def _apply_image(self, img):
        return F.normalize(img, self.mean, self.std, self.data_format, self.to_rgb)


class Transpose(BaseTransform):
    """Permute the axes of an image (default HWC -> CHW); PIL images become ndarrays."""

    def __init__(self, order=(2, 0, 1), keys=None):
        super().__init__(keys)
        self.order = order

    def _apply_image(self, img):
        if F._is_tensor_image(img):
            return img.transpose(self.order)
        if F._is_pil_image(img):
            img = np.asarray(img)
        if len(img.shape) == 2:
            img = img[..., np.newaxis]
        return img.transpose(self.order)


class _ColorTransform(BaseTransform):
    """Draws a factor uniformly in ``value`` and applies ``_adjust`` with it."""
    _name, _center, _bound, _clip = None, 1, (0, float("inf")), True

    def __init__(self, value, keys=None):
        super().__init__(keys)
        self.value = _check_input(value, self._name, self._center, self._bound, self._clip)

    def _apply_image(self, img):
        if self.value is None:
            return img
        return self._adjust(img, random.uniform(self.value[0], self.value[1]))


class BrightnessTransform(_ColorTransform):
    _name = "brightness"
    _adjust = staticmethod(F.adjust_brightness)


class ContrastTransform(_ColorTransform):
    _name = "contrast"
    _adjust = staticmethod(F.adjust_contrast)

    def __init__(self, value, keys=None):
        if isinstance(value, numbers.Number) and value < 0:
            raise ValueError(f"contrast value should be non-negative, got {value}")
        super().__init__(value, keys)


class SaturationTransform(_ColorTransform):
    _name = "saturation"
    _adjust = staticmethod(F.adjust_saturation)


class HueTransform(_ColorTransform):
    _name, _center, _bound, _clip = "hue", 0, (-0.5, 0.5), False
    _adjust = staticmethod(F.adjust_hue)


class ColorJitter(BaseTransform):
    """Brightness, contrast, saturation and hue jitter, applied in a random order."""

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0, keys=None):
        super().__init__(keys)
        self.brightness = brightness
        self.contrast = contrast
        self.saturation = saturation
        self.hue = hue

    def _get_param(self, brightness, contrast, saturation, hue):
        transforms = []
        for value, cls in ((brightness, BrightnessTransform), (contrast, ContrastTransform),
                           (saturation, SaturationTransform), (hue, HueTransform)):
            if value is not None:
                transforms.append(cls(value, self.keys))
        random.shuffle(transforms)
        return Compose(transforms)

    def _apply_image(self, img):
        return self._get_param(self.brightness, self.contrast, self.saturation, self.hue)(img)


class RandomCrop(BaseTransform):
    def __init__(self, size, padding=None, pad_if_needed=False, fill=0, padding_mode="constant", keys=None):
        super().__init__(keys)
        self.size = (int(size), int(size)) if isinstance(size, numbers.Number) else size
        self.padding = padding
        self.pad_if_needed = pad_if_needed
        self.fill = fill
        self.padding_mode = padding_mode

    def _get_param(self, img, output_size):
        w, h = _get_image_size(img)
        th, tw = output_size
        if w == tw and h == th:
            return 0, 0, h, w
        if h < th or w < tw:
            raise ValueError(f"RandomCrop: crop size (h={th}, w={tw}) is larger than the image (h={h}, w={w}); "
                             f"set pad_if_needed=True or pad the image")
        return random.randint(0, h - th), random.randint(0, w - tw), th, tw

    def _apply_image(self, img):
        if self.padding is not None:
            img = F.pad(img, self.padding, self.fill, self.padding_mode)
        w, h = _get_image_size(img)
        if self.pad_if_needed and w < self.size[1]:
            img = F.pad(img, (self.size[1] - w, 0), self.fill, self.padding_mode)
        if self.pad_if_needed and h < self.size[0]:
            img = F.pad(img, (0, self.size[0] - h), self.fill, self.padding_mode)
        i, j, h, w = self._get_param(img, self.size)
        return F.crop(img, i, j, h, w)


class Pad(BaseTransform):
    def __init__(self, padding, fill=0, padding_mode="constant", keys=None):
        _require(isinstance(padding, (numbers.Number, list, tuple)),
                 f"Pad: padding must be a number or a list/tuple, got {type(padding).__name__}")
        _require(isinstance(fill, (numbers.Number, str, list, tuple)),
                 f"Pad: fill must be a number, str or tuple, got {type(fill).__name__}")
        _require(padding_mode in ["constant", "edge", "reflect", "symmetric"],
                 f"Pad: padding_mode must be 'constant', 'edge', 'reflect' or 'symmetric', got {padding_mode!r}")
        if isinstance(padding, list):
            padding = tuple(padding)
        if isinstance(fill, list):
            fill = tuple(fill)
        if isinstance(padding, Sequence) and len(padding) not in [2, 4]:
            raise ValueError(f"Pad: padding must be an int or a 2 or 4 element tuple, not a {len(padding)} "
                             f"element tuple")
        super().__init__(keys)
        self.padding = padding
        self.fill = fill
        self.padding_mode = padding_mode

    def _apply_image(self, img):
        return F.pad(img, self.padding, self.fill, self.padding_mode)


def _check_sequence_input(x, name, req_sizes):
    msg = req_sizes[0] if len(req_sizes) < 2 else " or ".join(str(s) for s in req_sizes)
    if not isinstance(x, Sequence):
        raise TypeError(f"{name} should be a sequence of length {msg}.")
    if len(x) not in req_sizes:
        raise ValueError(f"{name} should be sequence of length {msg}.")


def _setup_angle(x, name, req_sizes=(2,)):
    if isinstance(x, numbers.Number):
        if x < 0:
            raise ValueError(f"If {name} is a single number, it must be positive, got {x}")
        x = [-x, x]
    else:
        _check_sequence_input(x, name, req_sizes)
    return [float(d) for d in x]


class RandomAffine(BaseTransform):
    def __init__(self, degrees, translate=None, scale=None, shear=None, interpolation="nearest", fill=0,
                 center=None, keys=None):
        self.degrees = _setup_angle(degrees, name="degrees", req_sizes=(2,))
        super().__init__(keys)
        _require(interpolation in ["nearest", "bilinear", "bicubic"],
                 f"RandomAffine: interpolation must be 'nearest', 'bilinear' or 'bicubic', got {interpolation!r}")
        self.interpolation = interpolation
        if translate is not None:
            _check_sequence_input(translate, "translate", req_sizes=(2,))
            for t in translate:
                if not 0.0 <= t <= 1.0:
                    raise ValueError(f"translation values should be between 0 and 1, got {translate}")
        self.translate = translate
        if scale is not None:
            _check_sequence_input(scale, "scale", req_sizes=(2,))
            for s in scale:
                if s <= 0:
                    raise ValueError(f"scale values should be positive, got {scale}")
        self.scale = scale
        self.shear = None if shear is None else _setup_angle(shear, name="shear", req_sizes=(2, 4))
        if fill is None:
            fill = 0
        elif not isinstance(fill, (Sequence, numbers.Number)):
            raise TypeError(f"Fill should be either a sequence or a number, got {type(fill).__name__}")
        self.fill = fill
        if center is not None:
            _check_sequence_input(center, "center", req_sizes=(2,))
        self.center = center

    def _get_param(self, img_size, degrees, translate=None, scale_ranges=None, shears=None):
        angle = random.uniform(degrees[0], degrees[1])
        if translate is not None:
            max_dx = float(translate[0] * img_size[0])
            max_dy = float(translate[1] * img_size[1])
            translations = (int(random.uniform(-max_dx, max_dx)), int(random.uniform(-max_dy, max_dy)))
        else:
            translations = (0, 0)
        scale = random.uniform(scale_ranges[0], scale_ranges[1]) if scale_ranges is not None else 1.0
        shear_x, shear_y = 0.0, 0.0
        if shears is not None:
            shear_x = random.uniform(shears[0], shears[1])
            if len(shears) == 4:
                shear_y = random.uniform(shears[2], shears[3])
        return angle, translations, scale, (shear_x, shear_y)

    def _apply_image(self, img):
        w, h = _get_image_size(img)
        params = self._get_param([w, h], self.degrees, self.translate, self.scale, self.shear)
        return F.affine(img, *params, interpolation=self.interpolation, fill=self.fill, center=self.center)


class RandomRotation(BaseTransform):
    def __init__(self, degrees, interpolation="nearest", expand=False, center=None, fill=0, keys=None):
        if isinstance(degrees, numbers.Number):
            if degrees < 0:
                raise ValueError(f"If degrees is a single number, it must be positive, got {degrees}")
            self.degrees = (-degrees, degrees)
        else:
            if len(degrees) != 2:
                raise ValueError(f"If degrees is a sequence, it must be of len 2, got {degrees}")
            self.degrees = degrees
        super().__init__(keys)
        self.interpolation = interpolation
        self.expand = expand
        self.center = center
        self.fill = fill

    def _get_param(self, degrees):
        return random.uniform(degrees[0], degrees[1])

    def _apply_image(self, img):
        angle = self._get_param(self.degrees)
        return F.rotate(img, angle, self.interpolation, self.expand, self.center, self.fill)


class RandomPerspective(BaseTransform):
    def __init__(self, prob=0.5, distortion_scale=0.5, interpolation="nearest", fill=0, keys=None):
        super().__init__(keys)
        _require(0 <= prob <= 1, f"RandomPerspective: probability must be between 0 and 1, got {prob}")
        _require(0 <= distortion_scale <= 1,
                 f"RandomPerspective: distortion_scale must be between 0 and 1, got {distortion_scale}")
        _require(interpolation in ["nearest", "bilinear", "bicubic"],
                 f"RandomPerspective: interpolation must be 'nearest', 'bilinear' or 'bicubic', "
                 f"got {interpolation!r}")
        _require(isinstance(fill, (numbers.Number, str, list, tuple)),
                 f"RandomPerspective: fill must be a number, str or tuple, got {type(fill).__name__}")
        self.prob = prob
        self.distortion_scale = distortion_scale
        self.interpolation = interpolation
        self.fill = fill

    def get_params(self, width, height, distortion_scale):
        """Random corner displacements: (startpoints, endpoints), each [top-left, top-right, bottom-right,
        bottom-left]."""
        half_height, half_width = height // 2, width // 2
        dw, dh = int(distortion_scale * half_width), int(distortion_scale * half_height)
        topleft = [int(random.uniform(0, dw + 1)), int(random.uniform(0, dh + 1))]
        topright = [int(random.uniform(width - dw - 1, width)), int(random.uniform(0, dh + 1))]
        botright = [int(random.uniform(width - dw - 1, width)), int(random.uniform(height - dh - 1, height))]
        botleft = [int(random.uniform(0, dw + 1)), int(random.uniform(height - dh - 1, height))]
        startpoints = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
        return startpoints, [topleft, topright, botright, botleft]

    def _apply_image(self, img):
        width, height = _get_image_size(img)
        if random.random() < self.prob:
            startpoints, endpoints = self.get_params(width, height, self.distortion_scale)
            return F.perspective(img, startpoints, endpoints, self.interpolation, self.fill)
        return img


class Grayscale(BaseTransform):
    def __init__(self, num_output_channels=1, keys=None):
        super().__init__(keys)
        self.num_output_channels = num_output_channels

    def _apply_image(self, img):
        return F.to_grayscale(img, self.num_output_channels)


class RandomErasing(BaseTransform):
    def __init__(self, prob=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False, keys=None):
        super().__init__(keys)
        _require(isinstance(scale, (tuple, list)), "RandomErasing: scale should be a tuple or list")
        _require(scale[0] >= 0 and scale[1] <= 1 and scale[0] <= scale[1],
                 f"RandomErasing: scale should be of kind (min, max) and in range [0, 1], got {scale}")
        _require(isinstance(ratio, (tuple, list)), "RandomErasing: ratio should be a tuple or list")
        _require(ratio[0] >= 0 and ratio[0] <= ratio[1],
                 f"RandomErasing: ratio should be of kind (min, max), got {ratio}")
        _require(0 <= prob <= 1, f"RandomErasing: the probability should be in range [0, 1], got {prob}")
        _require(isinstance(value, (numbers.Number, str, tuple, list)),
                 "RandomErasing: value should be a number, tuple, list or str")
        if isinstance(value, str) and value != "random":
            raise ValueError(f"RandomErasing: value must be 'random' when it is a str, got {value!r}")
        self.prob = prob
        self.scale = scale
        self.ratio = ratio
        self.value = value
        self.inplace = inplace

    def _dynamic_get_param(self, img, scale, ratio, value):
        if F._is_pil_image(img):
            h, w, c = np.asarray(img).astype(np.uint8).shape[-3:]
        elif F._is_numpy_image(img):
            h, w, c = img.shape[-3:]
        else:
            c, h, w = img.shape[-3:]
        img_area = h * w
        log_ratio = np.log(ratio)
        for _ in range(10):
            erase_area = np.random.uniform(*scale) * img_area
            aspect_ratio = np.exp(np.random.uniform(*log_ratio))
            erase_h = int(round(np.sqrt(erase_area * aspect_ratio)))
            erase_w = int(round(np.sqrt(erase_area / aspect_ratio)))
            if erase_h >= h or erase_w >= w:
                continue
            if F._is_tensor_image(img):
                from ...tensor.creation import to_tensor
                from ...tensor.random import normal
                if value is None:
                    v = normal(shape=[c, erase_h, erase_w]).astype(img.dtype)
                else:
                    v = to_tensor(value, dtype=img.dtype)[:, None, None]
            elif value is None:
                v = np.random.normal(size=[erase_h, erase_w, c]) * 255
            else:
                v = np.array(value)[None, None, :]
            top = np.random.randint(0, h - erase_h + 1)
            left = np.random.randint(0, w - erase_w + 1)
            return top, left, erase_h, erase_w, v
        return 0, 0, h, w, img

    def _apply_image(self, img):
        if random.random() < self.prob:
            if isinstance(self.value, numbers.Number):
                value = [self.value]
            elif isinstance(self.value, str):
                value = None
            else:
                value = self.value
            if value is not None and len(value) not in (1, 3):
                raise ValueError("Value should be a single number or a sequence with length equals to image's "
                                 f"channel, got {self.value!r}")
            top, left, erase_h, erase_w, v = self._dynamic_get_param(img, self.scale, self.ratio, value)
            return F.erase(img, top, left, erase_h, erase_w, v, self.inplace)
        return img

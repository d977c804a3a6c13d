"""paddle.vision: transforms, datasets and the image backend."""
from . import datasets, models, ops, transforms  # noqa: F401
from .datasets import (MNIST, VOC2012, Cifar10, Cifar100, DatasetFolder, FashionMNIST, Flowers,  # noqa: F401
                       ImageFolder)
from .models import *  # noqa: F401,F403  (every model class and builder, as paddle.vision has them)
from .image import get_image_backend, image_load, set_image_backend  # noqa: F401
from .transforms import (BaseTransform, BrightnessTransform, CenterCrop, ColorJitter, Compose,  # noqa: F401
                         ContrastTransform, Grayscale, HueTransform, Normalize, Pad, RandomCrop,
                         RandomHorizontalFlip, RandomResizedCrop, RandomRotation, RandomVerticalFlip, Resize,
                         SaturationTransform, ToTensor, Transpose, adjust_brightness, adjust_contrast, adjust_hue,
                         center_crop, crop, hflip, normalize, pad, resize, rotate, to_grayscale, to_tensor, vflip)

__all__ = ["set_image_backend", "get_image_backend", "image_load"]

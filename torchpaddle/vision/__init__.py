"""paddle.vision: transforms, datasets and the image backend."""
from . import datasets, models, transforms  # noqa: F401
from .datasets import MNIST, Cifar10, Cifar100, DatasetFolder, FashionMNIST, Flowers, ImageFolder  # noqa: F401
from .models import (LeNet, MobileNetV1, MobileNetV2, ResNet, VGG, mobilenet_v1, mobilenet_v2,  # noqa: F401
                     resnet18, resnet34, resnet50, resnet101, resnet152, resnext50_32x4d, resnext50_64x4d,
                     resnext101_32x4d, resnext101_64x4d, resnext152_32x4d, resnext152_64x4d, vgg11, vgg13, vgg16,
                     vgg19, wide_resnet50_2, wide_resnet101_2)
from .image import get_image_backend, image_load, set_image_backend  # noqa: F401
from .transforms import (BaseTransform, BrightnessTransform, CenterCrop, ColorJitter, Compose,  # noqa: F401
                         ContrastTransform, Grayscale, HueTransform, Normalize, Pad, RandomCrop,
                         RandomHorizontalFlip, RandomResizedCrop, RandomRotation, RandomVerticalFlip, Resize,
                         SaturationTransform, ToTensor, Transpose, adjust_brightness, adjust_contrast, adjust_hue,
                         center_crop, crop, hflip, normalize, pad, resize, rotate, to_grayscale, to_tensor, vflip)

__all__ = ["set_image_backend", "get_image_backend", "image_load"]

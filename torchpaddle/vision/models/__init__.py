"""paddle.vision.models: LeNet, ResNet/ResNeXt/Wide ResNet, VGG, MobileNetV1/V2 with Paddle's parameter names."""
from . import lenet, mobilenetv1, mobilenetv2, resnet, vgg  # noqa: F401
from .lenet import *  # noqa: F401,F403
from .mobilenetv1 import *  # noqa: F401,F403
from .mobilenetv2 import *  # noqa: F401,F403
from .resnet import *  # noqa: F401,F403
from .vgg import *  # noqa: F401,F403

__all__ = lenet.__all__ + resnet.__all__ + vgg.__all__ + mobilenetv1.__all__ + mobilenetv2.__all__

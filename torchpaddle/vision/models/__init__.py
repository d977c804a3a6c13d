"""paddle.vision.models: LeNet, AlexNet, VGG, ResNet/ResNeXt/Wide ResNet, MobileNetV1/V2/V3, SqueezeNet,
ShuffleNetV2, DenseNet, GoogLeNet and InceptionV3 with Paddle's parameter names."""
from . import (alexnet, densenet, googlenet, inceptionv3, lenet, mobilenetv1, mobilenetv2,  # noqa: F401
               mobilenetv3, resnet, shufflenetv2, squeezenet, vgg)

# collected before the star imports, which rebind ``alexnet`` and ``googlenet`` to the builder functions
__all__ = [name for module in (lenet, resnet, vgg, mobilenetv1, mobilenetv2, alexnet, densenet, googlenet,
                               inceptionv3, mobilenetv3, shufflenetv2, squeezenet) for name in module.__all__]

from .alexnet import *  # noqa: F401,F403
from .densenet import *  # noqa: F401,F403
from .googlenet import *  # noqa: F401,F403
from .inceptionv3 import *  # noqa: F401,F403
from .lenet import *  # noqa: F401,F403
from .mobilenetv1 import *  # noqa: F401,F403
from .mobilenetv2 import *  # noqa: F401,F403
from .mobilenetv3 import *  # noqa: F401,F403
from .resnet import *  # noqa: F401,F403
from .shufflenetv2 import *  # noqa: F401,F403
from .squeezenet import *  # noqa: F401,F403
from .vgg import *  # noqa: F401,F403


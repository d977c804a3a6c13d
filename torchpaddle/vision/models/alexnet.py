"""AlexNet (paddle.vision.models.AlexNet / alexnet), with Paddle's layer names."""
import math

from ... import nn
from ...framework.param_attr import ParamAttr
from ...nn import functional as F
from ...nn.initializer import Uniform
from ...tensor.manipulation import flatten
from ._utils import build

__all__ = ["AlexNet", "alexnet"]

model_urls = {"alexnet": ("https://paddle-imagenet-models-name.bj.bcebos.com/dygraph/AlexNet_pretrained.pdparams",
                          "7f0f9f737132e02732d75a1459d98a43")}


def _uniform(fan_in):
    """Weight and bias attributes drawing from U(-1/sqrt(fan_in), 1/sqrt(fan_in))."""
    bound = 1.0 / math.sqrt(fan_in)
    return dict(weight_attr=ParamAttr(initializer=Uniform(-bound, bound)),
                bias_attr=ParamAttr(initializer=Uniform(-bound, bound)))


class ConvPoolLayer(nn.Layer):
    """Conv2D, optional ReLU, 3x3 stride-2 max pooling."""

    def __init__(self, input_channels, output_channels, filter_size, stride, padding, stdv, groups=1, act=None):
        super().__init__()
        self.relu = nn.ReLU() if act == "relu" else None
        bound = dict(weight_attr=ParamAttr(initializer=Uniform(-stdv, stdv)),
                     bias_attr=ParamAttr(initializer=Uniform(-stdv, stdv)))
        self._conv = nn.Conv2D(input_channels, output_channels, filter_size, stride=stride, padding=padding,
                               groups=groups, **bound)
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)

    def forward(self, inputs):
        x = self._conv(inputs)
        if self.relu is not None:
            x = self.relu(x)
        return self._pool(x)


class AlexNet(nn.Layer):
    """AlexNet; ``num_classes <= 0`` drops the classifier (the output is the last pooled feature map)."""

    def __init__(self, num_classes=1000):
        super().__init__()
        self.num_classes = num_classes
        self._conv1 = ConvPoolLayer(3, 64, 11, 4, 2, 1.0 / math.sqrt(3 * 11 * 11), act="relu")
        self._conv2 = ConvPoolLayer(64, 192, 5, 1, 2, 1.0 / math.sqrt(64 * 5 * 5), act="relu")
        self._conv3 = nn.Conv2D(192, 384, 3, stride=1, padding=1, **_uniform(192 * 3 * 3))
        self._conv4 = nn.Conv2D(384, 256, 3, stride=1, padding=1, **_uniform(384 * 3 * 3))
        self._conv5 = ConvPoolLayer(256, 256, 3, 1, 1, 1.0 / math.sqrt(256 * 3 * 3), act="relu")
        if num_classes > 0:
            fc = _uniform(256 * 6 * 6)
            self._drop1 = nn.Dropout(p=0.5, mode="downscale_in_infer")
            self._fc6 = nn.Linear(256 * 6 * 6, 4096, **fc)
            self._drop2 = nn.Dropout(p=0.5, mode="downscale_in_infer")
            self._fc7 = nn.Linear(4096, 4096, **_uniform(256 * 6 * 6))
            self._fc8 = nn.Linear(4096, num_classes, **_uniform(256 * 6 * 6))

    def forward(self, inputs):
        x = self._conv2(self._conv1(inputs))
        x = F.relu(self._conv3(x))
        x = F.relu(self._conv4(x))
        x = self._conv5(x)
        if self.num_classes > 0:
            x = F.relu(self._fc6(self._drop1(flatten(x, 1))))
            x = F.relu(self._fc7(self._drop2(x)))
            x = self._fc8(x)
        return x


def alexnet(pretrained=False, **kwargs):
    """AlexNet; ``pretrained=True`` loads ImageNet weights from Paddle's cache folder (never downloads)."""
    return build(lambda: AlexNet(**kwargs), "alexnet", model_urls, pretrained)

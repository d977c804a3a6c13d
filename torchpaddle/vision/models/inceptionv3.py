"""Inception v3 (paddle.vision.models.InceptionV3 / inception_v3), with Paddle's layer names."""
import math

from ... import nn
from ...framework.param_attr import ParamAttr
from ...nn.initializer import Uniform
from ...tensor.manipulation import concat, reshape
from ._utils import ConvNormActivation, build

__all__ = ["InceptionV3", "inception_v3"]

model_urls = {"inception_v3": ("https://paddle-hapi.bj.bcebos.com/models/inception_v3.pdparams",
                               "649a4547c3243e8b59c656f41fe330b8")}


def _cbr(cin, cout, kernel, stride=1, padding=0):
    return ConvNormActivation(cin, cout, kernel_size=kernel, stride=stride, padding=padding,
                              activation_layer=nn.ReLU)


def _chain(layer, names, x):
    for name in names:
        x = getattr(layer, name)(x)
    return x


def _avg_pool():
    return nn.AvgPool2D(kernel_size=3, stride=1, padding=1, exclusive=False)


class InceptionStem(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv_1a_3x3 = _cbr(3, 32, 3, stride=2)
        self.conv_2a_3x3 = _cbr(32, 32, 3)
        self.conv_2b_3x3 = _cbr(32, 64, 3, padding=1)
        self.max_pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)
        self.conv_3b_1x1 = _cbr(64, 80, 1)
        self.conv_4a_3x3 = _cbr(80, 192, 3)

    def forward(self, x):
        x = self.max_pool(_chain(self, ["conv_1a_3x3", "conv_2a_3x3", "conv_2b_3x3"], x))
        return self.max_pool(_chain(self, ["conv_3b_1x1", "conv_4a_3x3"], x))


class InceptionA(nn.Layer):
    def __init__(self, num_channels, pool_features):
        super().__init__()
        self.branch1x1 = _cbr(num_channels, 64, 1)
        self.branch5x5_1 = _cbr(num_channels, 48, 1)
        self.branch5x5_2 = _cbr(48, 64, 5, padding=2)
        self.branch3x3dbl_1 = _cbr(num_channels, 64, 1)
        self.branch3x3dbl_2 = _cbr(64, 96, 3, padding=1)
        self.branch3x3dbl_3 = _cbr(96, 96, 3, padding=1)
        self.branch_pool = _avg_pool()
        self.branch_pool_conv = _cbr(num_channels, pool_features, 1)

    def forward(self, x):
        return concat([self.branch1x1(x), _chain(self, ["branch5x5_1", "branch5x5_2"], x),
                       _chain(self, ["branch3x3dbl_1", "branch3x3dbl_2", "branch3x3dbl_3"], x),
                       _chain(self, ["branch_pool", "branch_pool_conv"], x)], axis=1)


class InceptionB(nn.Layer):
    def __init__(self, num_channels):
        super().__init__()
        self.branch3x3 = _cbr(num_channels, 384, 3, stride=2)
        self.branch3x3dbl_1 = _cbr(num_channels, 64, 1)
        self.branch3x3dbl_2 = _cbr(64, 96, 3, padding=1)
        self.branch3x3dbl_3 = _cbr(96, 96, 3, stride=2)
        self.branch_pool = nn.MaxPool2D(kernel_size=3, stride=2)

    def forward(self, x):
        return concat([self.branch3x3(x), _chain(self, ["branch3x3dbl_1", "branch3x3dbl_2", "branch3x3dbl_3"], x),
                       self.branch_pool(x)], axis=1)


class InceptionC(nn.Layer):
    def __init__(self, num_channels, channels_7x7):
        super().__init__()
        c7 = channels_7x7
        self.branch1x1 = _cbr(num_channels, 192, 1)
        self.branch7x7_1 = _cbr(num_channels, c7, 1)
        self.branch7x7_2 = _cbr(c7, c7, (1, 7), padding=(0, 3))
        self.branch7x7_3 = _cbr(c7, 192, (7, 1), padding=(3, 0))
        self.branch7x7dbl_1 = _cbr(num_channels, c7, 1)
        self.branch7x7dbl_2 = _cbr(c7, c7, (7, 1), padding=(3, 0))
        self.branch7x7dbl_3 = _cbr(c7, c7, (1, 7), padding=(0, 3))
        self.branch7x7dbl_4 = _cbr(c7, c7, (7, 1), padding=(3, 0))
        self.branch7x7dbl_5 = _cbr(c7, 192, (1, 7), padding=(0, 3))
        self.branch_pool = _avg_pool()
        self.branch_pool_conv = _cbr(num_channels, 192, 1)

    def forward(self, x):
        return concat([self.branch1x1(x), _chain(self, [f"branch7x7_{i}" for i in (1, 2, 3)], x),
                       _chain(self, [f"branch7x7dbl_{i}" for i in (1, 2, 3, 4, 5)], x),
                       _chain(self, ["branch_pool", "branch_pool_conv"], x)], axis=1)


class InceptionD(nn.Layer):
    def __init__(self, num_channels):
        super().__init__()
        self.branch3x3_1 = _cbr(num_channels, 192, 1)
        self.branch3x3_2 = _cbr(192, 320, 3, stride=2)
        self.branch7x7x3_1 = _cbr(num_channels, 192, 1)
        self.branch7x7x3_2 = _cbr(192, 192, (1, 7), padding=(0, 3))
        self.branch7x7x3_3 = _cbr(192, 192, (7, 1), padding=(3, 0))
        self.branch7x7x3_4 = _cbr(192, 192, 3, stride=2)
        self.branch_pool = nn.MaxPool2D(kernel_size=3, stride=2)

    def forward(self, x):
        return concat([_chain(self, ["branch3x3_1", "branch3x3_2"], x),
                       _chain(self, [f"branch7x7x3_{i}" for i in (1, 2, 3, 4)], x), self.branch_pool(x)], axis=1)


class InceptionE(nn.Layer):
    def __init__(self, num_channels):
        super().__init__()
        self.branch1x1 = _cbr(num_channels, 320, 1)
        self.branch3x3_1 = _cbr(num_channels, 384, 1)
        self.branch3x3_2a = _cbr(384, 384, (1, 3), padding=(0, 1))
        self.branch3x3_2b = _cbr(384, 384, (3, 1), padding=(1, 0))
        self.branch3x3dbl_1 = _cbr(num_channels, 448, 1)
        self.branch3x3dbl_2 = _cbr(448, 384, 3, padding=1)
        self.branch3x3dbl_3a = _cbr(384, 384, (1, 3), padding=(0, 1))
        self.branch3x3dbl_3b = _cbr(384, 384, (3, 1), padding=(1, 0))
        self.branch_pool = _avg_pool()
        self.branch_pool_conv = _cbr(num_channels, 192, 1)

    def forward(self, x):
        b3 = self.branch3x3_1(x)
        b3dbl = _chain(self, ["branch3x3dbl_1", "branch3x3dbl_2"], x)
        return concat([self.branch1x1(x), self.branch3x3_2a(b3), self.branch3x3_2b(b3),
                       self.branch3x3dbl_3a(b3dbl), self.branch3x3dbl_3b(b3dbl),
                       _chain(self, ["branch_pool", "branch_pool_conv"], x)], axis=1)


class InceptionV3(nn.Layer):
    """Inception v3 (299x299 inputs); ``num_classes <= 0`` drops the classifier."""

    def __init__(self, num_classes=1000, with_pool=True):
        super().__init__()
        self.num_classes = num_classes
        self.with_pool = with_pool
        self.layers_config = {"inception_a": [[192, 256, 288], [32, 64, 64]], "inception_b": [288],
                              "inception_c": [[768, 768, 768, 768], [128, 160, 160, 192]], "inception_d": [768],
                              "inception_e": [1280, 2048]}
        cfg = self.layers_config
        self.inception_stem = InceptionStem()
        blocks = [InceptionA(c, p) for c, p in zip(*cfg["inception_a"])]
        blocks += [InceptionB(c) for c in cfg["inception_b"]]
        blocks += [InceptionC(c, c7) for c, c7 in zip(*cfg["inception_c"])]
        blocks += [InceptionD(c) for c in cfg["inception_d"]]
        blocks += [InceptionE(c) for c in cfg["inception_e"]]
        self.inception_block_list = nn.LayerList(blocks)
        if with_pool:
            self.avg_pool = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.dropout = nn.Dropout(p=0.2, mode="downscale_in_infer")
            bound = 1.0 / math.sqrt(2048 * 1.0)
            self.fc = nn.Linear(2048, num_classes, weight_attr=ParamAttr(initializer=Uniform(-bound, bound)),
                                bias_attr=ParamAttr())

    def forward(self, x):
        x = self.inception_stem(x)
        for block in self.inception_block_list:
            x = block(x)
        if self.with_pool:
            x = self.avg_pool(x)
        if self.num_classes > 0:
            x = self.fc(self.dropout(reshape(x, [-1, 2048])))
        return x


def inception_v3(pretrained=False, **kwargs):
    """Inception v3; ``pretrained=True`` loads ImageNet weights from Paddle's cache folder."""
    return build(lambda: InceptionV3(**kwargs), "inception_v3", model_urls, pretrained)

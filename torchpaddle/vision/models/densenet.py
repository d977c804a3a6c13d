"""DenseNet 121/161/169/201/264 (paddle.vision.models.DenseNet / densenet*), with Paddle's layer names."""
import math

from ... import nn
from ...framework.param_attr import ParamAttr
from ...nn.initializer import Uniform
from ...tensor.manipulation import concat, flatten
from ._utils import build

__all__ = ["DenseNet", "densenet121", "densenet161", "densenet169", "densenet201", "densenet264"]

_BASE = "https://paddle-imagenet-models-name.bj.bcebos.com/dygraph/"
model_urls = {f"densenet{depth}": (f"{_BASE}DenseNet{depth}_pretrained.pdparams", md5) for depth, md5 in [
    (121, "db1b239ed80a905290fd8b01d3af08e4"), (161, "62158869cb315098bd25ddbfd308a853"),
    (169, "82cc7c635c3f19098c748850efb2d796"), (201, "16ca29565a7712329cf9e36e02caaf58"),
    (264, "3270ce516b85370bba88cfdd9f60bff4")]}

# depth -> (stem channels, growth rate, layers per dense block)
_SPECS = {121: (64, 32, [6, 12, 24, 16]), 161: (96, 48, [6, 12, 36, 24]), 169: (64, 32, [6, 12, 32, 32]),
          201: (64, 32, [6, 12, 48, 32]), 264: (64, 32, [6, 12, 64, 48])}


class BNACConvLayer(nn.Layer):
    """BatchNorm with ReLU, then a bias-free Conv2D (pre-activation)."""

    def __init__(self, num_channels, num_filters, filter_size, stride=1, pad=0, groups=1, act="relu"):
        super().__init__()
        self._batch_norm = nn.BatchNorm(num_channels, act=act)
        self._conv = nn.Conv2D(num_channels, num_filters, filter_size, stride=stride, padding=pad, groups=groups,
                               bias_attr=False)

    def forward(self, input):
        return self._conv(self._batch_norm(input))


class DenseLayer(nn.Layer):
    """1x1 bottleneck and 3x3 conv whose ``growth_rate`` channels are appended to the input."""

    def __init__(self, num_channels, growth_rate, bn_size, dropout):
        super().__init__()
        self.dropout = dropout
        self.bn_ac_func1 = BNACConvLayer(num_channels, bn_size * growth_rate, 1, pad=0, stride=1)
        self.bn_ac_func2 = BNACConvLayer(bn_size * growth_rate, growth_rate, 3, pad=1, stride=1)
        if dropout:
            self.dropout_func = nn.Dropout(p=dropout, mode="downscale_in_infer")

    def forward(self, input):
        conv = self.bn_ac_func2(self.bn_ac_func1(input))
        if self.dropout:
            conv = self.dropout_func(conv)
        return concat([input, conv], axis=1)


class DenseBlock(nn.Layer):
    """``num_layers`` DenseLayers named ``<name>_<i>``."""

    def __init__(self, num_channels, num_layers, bn_size, growth_rate, dropout, name=None):
        super().__init__()
        self.dropout = dropout
        self.dense_layer_func = []
        for i in range(num_layers):
            layer = DenseLayer(num_channels + i * growth_rate, growth_rate, bn_size, dropout)
            self.dense_layer_func.append(self.add_sublayer(f"{name}_{i + 1}", layer))

    def forward(self, input):
        for layer in self.dense_layer_func:
            input = layer(input)
        return input


class TransitionLayer(nn.Layer):
    """Pre-activated 1x1 conv, then 2x2 average pooling."""

    def __init__(self, num_channels, num_output_features):
        super().__init__()
        self.conv_ac_func = BNACConvLayer(num_channels, num_output_features, 1, pad=0, stride=1)
        self.pool2d_avg = nn.AvgPool2D(kernel_size=2, stride=2, padding=0)

    def forward(self, input):
        return self.pool2d_avg(self.conv_ac_func(input))


class ConvBNLayer(nn.Layer):
    """Bias-free Conv2D, then BatchNorm with ReLU."""

    def __init__(self, num_channels, num_filters, filter_size, stride=1, pad=0, groups=1, act="relu"):
        super().__init__()
        self._conv = nn.Conv2D(num_channels, num_filters, filter_size, stride=stride, padding=pad, groups=groups,
                               bias_attr=False)
        self._batch_norm = nn.BatchNorm(num_filters, act=act)

    def forward(self, input):
        return self._batch_norm(self._conv(input))


class DenseNet(nn.Layer):
    """DenseNet of depth ``layers`` (121, 161, 169, 201 or 264); ``num_classes <= 0`` drops the classifier.
    Unlike Paddle 3.3.1 (UnboundLocalError), ``with_pool=False`` returns the final feature map."""

    def __init__(self, layers=121, bn_size=4, dropout=0.0, num_classes=1000, with_pool=True):
        super().__init__()
        self.num_classes = num_classes
        self.with_pool = with_pool
        if layers not in _SPECS:
            # NOTE: Paddle asserts here, so the type is AssertionError.
            raise AssertionError(f"supported layers are {list(_SPECS)} but input layer is {layers}")
        num_features, growth_rate, block_config = _SPECS[layers]
        self.conv1_func = ConvBNLayer(3, num_features, 7, stride=2, pad=3, act="relu")
        self.pool2d_max = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self.block_config = block_config
        self.dense_block_func_list = []
        self.transition_func_list = []
        for i, num_layers in enumerate(block_config):
            block = DenseBlock(num_features, num_layers, bn_size, growth_rate, dropout, name=f"conv{i + 2}")
            self.dense_block_func_list.append(self.add_sublayer(f"db_conv_{i + 2}", block))
            num_features += num_layers * growth_rate
            if i != len(block_config) - 1:
                transition = TransitionLayer(num_features, num_features // 2)
                self.transition_func_list.append(self.add_sublayer(f"tr_conv{i + 2}_blk", transition))
                num_features //= 2
        self.batch_norm = nn.BatchNorm(num_features, act="relu")
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            bound = 1.0 / math.sqrt(num_features * 1.0)
            self.out = nn.Linear(num_features, num_classes,
                                 weight_attr=ParamAttr(initializer=Uniform(-bound, bound)), bias_attr=ParamAttr())

    def forward(self, input):
        x = self.pool2d_max(self.conv1_func(input))
        for i, block in enumerate(self.dense_block_func_list):
            x = block(x)
            if i < len(self.transition_func_list):
                x = self.transition_func_list[i](x)
        x = self.batch_norm(x)
        if self.with_pool:
            x = self.pool2d_avg(x)
        if self.num_classes > 0:
            x = self.out(flatten(x, 1))
        return x


def _builder(depth):
    arch = f"densenet{depth}"

    def make(pretrained=False, **kwargs):
        return build(lambda: DenseNet(layers=depth, **kwargs), arch, model_urls, pretrained)
    make.__name__ = make.__qualname__ = arch
    make.__doc__ = f"DenseNet-{depth}; ``pretrained=True`` loads ImageNet weights from Paddle's cache folder."
    return make


densenet121 = _builder(121)
densenet161 = _builder(161)
densenet169 = _builder(169)
densenet201 = _builder(201)
densenet264 = _builder(264)

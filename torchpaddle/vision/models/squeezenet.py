"""SqueezeNet 1.0 / 1.1 (paddle.vision.models.SqueezeNet / squeezenet1_0 / squeezenet1_1), with Paddle's
layer names."""
from ... import nn
from ...nn import functional as F
from ...tensor.manipulation import concat, squeeze
from ._utils import build

__all__ = ["SqueezeNet", "squeezenet1_0", "squeezenet1_1"]

_BASE = "https://paddle-imagenet-models-name.bj.bcebos.com/dygraph/"
model_urls = {"squeezenet1_0": (_BASE + "SqueezeNet1_0_pretrained.pdparams", "30b95af60a2178f03cf9b66cd77e1db1"),
              "squeezenet1_1": (_BASE + "SqueezeNet1_1_pretrained.pdparams", "a11250d3a1f91d7131fd095ebbf09eee")}

# (in, squeeze, expand 1x1, expand 3x3) of the eight fire modules; the stem and where pooling falls differ by
# version
_FIRES = {"1.0": [(96, 16, 64, 64), (128, 16, 64, 64), (128, 32, 128, 128), (256, 32, 128, 128),
                  (256, 48, 192, 192), (384, 48, 192, 192), (384, 64, 256, 256), (512, 64, 256, 256)],
          "1.1": [(64, 16, 64, 64), (128, 16, 64, 64), (128, 32, 128, 128), (256, 32, 128, 128),
                  (256, 48, 192, 192), (384, 48, 192, 192), (384, 64, 256, 256), (512, 64, 256, 256)]}
_POOL_AFTER = {"1.0": (3, 7), "1.1": (2, 4)}   # max pooling after these fire modules (1-based)


class MakeFireConv(nn.Layer):
    """Conv2D followed by ReLU."""

    def __init__(self, input_channels, output_channels, filter_size, padding=0):
        super().__init__()
        self._conv = nn.Conv2D(input_channels, output_channels, filter_size, padding=padding)

    def forward(self, x):
        return F.relu(self._conv(x))


class MakeFire(nn.Layer):
    """Fire module: a 1x1 squeeze, then 1x1 and 3x3 expansions concatenated."""

    def __init__(self, input_channels, squeeze_channels, expand1x1_channels, expand3x3_channels):
        super().__init__()
        self._conv = MakeFireConv(input_channels, squeeze_channels, 1)
        self._conv_path1 = MakeFireConv(squeeze_channels, expand1x1_channels, 1)
        self._conv_path2 = MakeFireConv(squeeze_channels, expand3x3_channels, 3, padding=1)

    def forward(self, inputs):
        x = self._conv(inputs)
        return concat([self._conv_path1(x), self._conv_path2(x)], axis=1)


class SqueezeNet(nn.Layer):
    """SqueezeNet ``version`` '1.0' or '1.1'; ``num_classes <= 0`` drops the final 1x1 classifier conv."""

    def __init__(self, version, num_classes=1000, with_pool=True):
        super().__init__()
        self.version = version
        self.num_classes = num_classes
        self.with_pool = with_pool
        if version not in _FIRES:
            # NOTE: Paddle asserts here, so the type is AssertionError.
            raise AssertionError(f"supported versions are {list(_FIRES)} but input version is {version}")
        if version == "1.0":
            self._conv = nn.Conv2D(3, 96, 7, stride=2)
        else:
            self._conv = nn.Conv2D(3, 64, 3, stride=2, padding=1)
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)
        for i, spec in enumerate(_FIRES[version]):
            setattr(self, f"_conv{i + 1}", MakeFire(*spec))
        self._drop = nn.Dropout(p=0.5, mode="downscale_in_infer")
        self._conv9 = nn.Conv2D(512, num_classes, 1)
        self._avg_pool = nn.AdaptiveAvgPool2D(1)

    def forward(self, inputs):
        x = self._pool(F.relu(self._conv(inputs)))
        for i in range(1, 9):
            x = getattr(self, f"_conv{i}")(x)
            if i in _POOL_AFTER[self.version]:
                x = self._pool(x)
        if self.num_classes > 0:
            x = self._conv9(self._drop(x))
        if self.with_pool:
            x = squeeze(self._avg_pool(F.relu(x)), axis=[2, 3])
        return x


def squeezenet1_0(pretrained=False, **kwargs):
    """SqueezeNet 1.0; ``pretrained=True`` loads ImageNet weights from Paddle's cache folder."""
    return build(lambda: SqueezeNet("1.0", **kwargs), "squeezenet1_0", model_urls, pretrained)


def squeezenet1_1(pretrained=False, **kwargs):
    """SqueezeNet 1.1; ``pretrained=True`` loads ImageNet weights from Paddle's cache folder."""
    return build(lambda: SqueezeNet("1.1", **kwargs), "squeezenet1_1", model_urls, pretrained)

"""VGG 11/13/16/19 with optional batch norm (paddle.vision.models.vgg*), with Paddle's layer names."""
from ... import nn
from ...tensor.manipulation import flatten
from ._utils import build

__all__ = ["VGG", "vgg11", "vgg13", "vgg16", "vgg19"]

model_urls = {
    "vgg16": ("https://paddle-hapi.bj.bcebos.com/models/vgg16.pdparams", "89bbffc0f87d260be9b8cdc169c991c4"),
    "vgg19": ("https://paddle-hapi.bj.bcebos.com/models/vgg19.pdparams", "23b18bb13d8894f60f54e642be79a0dd"),
}

# Output channels of each 3x3 conv; "M" is a 2x2 max pool.
cfgs = {
    "A": [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "B": [64, 64, "M", 128, 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "D": [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M"],
    "E": [64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M", 512, 512, 512, 512, "M"],
}


class VGG(nn.Layer):
    """VGG over a ``features`` Sequential (see make_layers); ``num_classes <= 0`` drops the classifier."""

    def __init__(self, features, num_classes=1000, with_pool=True):
        super().__init__()
        self.features = features
        self.num_classes = num_classes
        self.with_pool = with_pool
        if with_pool:
            self.avgpool = nn.AdaptiveAvgPool2D((7, 7))
        if num_classes > 0:
            self.classifier = nn.Sequential(
                nn.Linear(512 * 7 * 7, 4096), nn.ReLU(), nn.Dropout(),
                nn.Linear(4096, 4096), nn.ReLU(), nn.Dropout(),
                nn.Linear(4096, num_classes))

    def forward(self, x):
        x = self.features(x)
        if self.with_pool:
            x = self.avgpool(x)
        if self.num_classes > 0:
            x = self.classifier(flatten(x, 1))
        return x


def make_layers(cfg, batch_norm=False):
    """The convolutional trunk for a channel list ``cfg`` over 3-channel input."""
    layers = []
    in_channels = 3
    for v in cfg:
        if v == "M":
            layers.append(nn.MaxPool2D(kernel_size=2, stride=2))
            continue
        layers.append(nn.Conv2D(in_channels, v, kernel_size=3, padding=1))
        if batch_norm:
            layers.append(nn.BatchNorm2D(v))
        layers.append(nn.ReLU())
        in_channels = v
    return nn.Sequential(*layers)


def _vgg(arch, cfg, batch_norm, pretrained, **kwargs):
    return build(lambda: VGG(make_layers(cfgs[cfg], batch_norm=batch_norm), **kwargs), arch, model_urls, pretrained)


def _factory(name, cfg):
    def factory(pretrained=False, batch_norm=False, **kwargs):
        return _vgg(name + ("_bn" if batch_norm else ""), cfg, batch_norm, pretrained, **kwargs)
    factory.__name__ = factory.__qualname__ = name
    factory.__doc__ = (f"{name.upper()} (configuration {cfg}); ``pretrained=True`` loads ImageNet weights from "
                     f"Paddle's cache folder (Paddle publishes them for vgg16 and vgg19 without batch norm).")
    return factory


vgg11 = _factory("vgg11", "A")
vgg13 = _factory("vgg13", "B")
vgg16 = _factory("vgg16", "D")
vgg19 = _factory("vgg19", "E")

"""ResNet, ResNeXt and Wide ResNet (paddle.vision.models.resnet*), with Paddle's layer names."""
from ... import nn
from ...tensor.manipulation import flatten
from ._utils import build

__all__ = ["ResNet", "resnet18", "resnet34", "resnet50", "resnet101", "resnet152", "resnext50_32x4d",
           "resnext50_64x4d", "resnext101_32x4d", "resnext101_64x4d", "resnext152_32x4d", "resnext152_64x4d",
           "wide_resnet50_2", "wide_resnet101_2"]

_HAPI = "https://paddle-hapi.bj.bcebos.com/models/"
model_urls = {arch: (f"{_HAPI}{arch}.pdparams", md5) for arch, md5 in [
    ("resnet18", "cf548f46534aa3560945be4b95cd11c4"),
    ("resnet34", "8d2275cf8706028345f78ac0e1d31969"),
    ("resnet50", "ca6f485ee1ab0492d38f323885b0ad80"),
    ("resnet101", "02f35f034ca3858e1e54d4036443c92d"),
    ("resnet152", "7ad16a2f1e7333859ff986138630fd7a"),
    ("resnext50_32x4d", "dc47483169be7d6f018fcbb7baf8775d"),
    ("resnext50_64x4d", "063d4b483e12b06388529450ad7576db"),
    ("resnext101_32x4d", "967b090039f9de2c8d06fe994fb9095f"),
    ("resnext101_64x4d", "98e04e7ca616a066699230d769d03008"),
    ("resnext152_32x4d", "18ff0beee21f2efc99c4b31786107121"),
    ("resnext152_64x4d", "77c4af00ca42c405fa7f841841959379"),
    ("wide_resnet50_2", "0282f804d73debdab289bd9fea3fa6dc"),
    ("wide_resnet101_2", "d4360a2d23657f059216f5d5a1a9ac93"),
]}

_DEPTHS = {18: [2, 2, 2, 2], 34: [3, 4, 6, 3], 50: [3, 4, 6, 3], 101: [3, 4, 23, 3], 152: [3, 8, 36, 3]}


class BasicBlock(nn.Layer):
    """Two 3x3 convolutions with a residual connection (ResNet-18/34)."""
    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64, dilation=1,
                 norm_layer=None):
        super().__init__()
        norm_layer = nn.BatchNorm2D if norm_layer is None else norm_layer
        if dilation > 1:
            raise NotImplementedError("Dilation > 1 not supported in BasicBlock")
        self.conv1 = nn.Conv2D(inplanes, planes, 3, padding=1, stride=stride, bias_attr=False)
        self.bn1 = norm_layer(planes)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2D(planes, planes, 3, padding=1, bias_attr=False)
        self.bn2 = norm_layer(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        identity = x if self.downsample is None else self.downsample(x)
        return self.relu(out + identity)


class BottleneckBlock(nn.Layer):
    """1x1 reduce, 3x3 (grouped) and 1x1 expand convolutions with a residual connection (ResNet-50+)."""
    expansion = 4

    def __init__(self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64, dilation=1,
                 norm_layer=None):
        super().__init__()
        norm_layer = nn.BatchNorm2D if norm_layer is None else norm_layer
        width = int(planes * (base_width / 64.0)) * groups
        self.conv1 = nn.Conv2D(inplanes, width, 1, bias_attr=False)
        self.bn1 = norm_layer(width)
        self.conv2 = nn.Conv2D(width, width, 3, padding=dilation, stride=stride, groups=groups, dilation=dilation,
                               bias_attr=False)
        self.bn2 = norm_layer(width)
        self.conv3 = nn.Conv2D(width, planes * self.expansion, 1, bias_attr=False)
        self.bn3 = norm_layer(planes * self.expansion)
        self.relu = nn.ReLU()
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        identity = x if self.downsample is None else self.downsample(x)
        return self.relu(out + identity)


class ResNet(nn.Layer):
    """ResNet of ``depth`` 18/34/50/101/152 built from ``block``; ``num_classes <= 0`` drops the fc layer."""

    def __init__(self, block, depth=50, width=64, num_classes=1000, with_pool=True, groups=1):
        super().__init__()
        if depth not in _DEPTHS:
            # NOTE: Paddle looks the depth up in a dict, so the type is KeyError.
            raise KeyError(f"ResNet: depth must be one of {sorted(_DEPTHS)}, got {depth!r}")
        layers = _DEPTHS[depth]
        self.groups = groups
        self.base_width = width
        self.num_classes = num_classes
        self.with_pool = with_pool
        self._norm_layer = nn.BatchNorm2D
        self.inplanes = 64
        self.dilation = 1

        self.conv1 = nn.Conv2D(3, self.inplanes, kernel_size=7, stride=2, padding=3, bias_attr=False)
        self.bn1 = self._norm_layer(self.inplanes)
        self.relu = nn.ReLU()
        self.maxpool = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, 64, layers[0])
        self.layer2 = self._make_layer(block, 128, layers[1], stride=2)
        self.layer3 = self._make_layer(block, 256, layers[2], stride=2)
        self.layer4 = self._make_layer(block, 512, layers[3], stride=2)
        if with_pool:
            self.avgpool = nn.AdaptiveAvgPool2D((1, 1))
        if num_classes > 0:
            self.fc = nn.Linear(512 * block.expansion, num_classes)

    def _make_layer(self, block, planes, blocks, stride=1, dilate=False):
        norm_layer = self._norm_layer
        downsample = None
        previous_dilation = self.dilation
        if dilate:
            self.dilation *= stride
            stride = 1
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(
                nn.Conv2D(self.inplanes, planes * block.expansion, 1, stride=stride, bias_attr=False),
                norm_layer(planes * block.expansion))
        layers = [block(self.inplanes, planes, stride, downsample, self.groups, self.base_width,
                        previous_dilation, norm_layer)]
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(block(self.inplanes, planes, groups=self.groups, base_width=self.base_width,
                                norm_layer=norm_layer))
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        if self.with_pool:
            x = self.avgpool(x)
        if self.num_classes > 0:
            x = self.fc(flatten(x, 1))
        return x


def _resnet(arch, block, depth, pretrained, **kwargs):
    return build(lambda: ResNet(block, depth, **kwargs), arch, model_urls, pretrained)


def _factory(arch, block, depth, doc, **fixed):
    def factory(pretrained=False, **kwargs):
        kwargs.update(fixed)  # as in Paddle, a ResNeXt/Wide factory overrides groups/width given by the caller
        return _resnet(arch, block, depth, pretrained, **kwargs)
    factory.__name__ = factory.__qualname__ = arch
    factory.__doc__ = f"{doc}; ``pretrained=True`` loads ImageNet weights from Paddle's cache folder."
    return factory


resnet18 = _factory("resnet18", BasicBlock, 18, "ResNet-18")
resnet34 = _factory("resnet34", BasicBlock, 34, "ResNet-34")
resnet50 = _factory("resnet50", BottleneckBlock, 50, "ResNet-50")
resnet101 = _factory("resnet101", BottleneckBlock, 101, "ResNet-101")
resnet152 = _factory("resnet152", BottleneckBlock, 152, "ResNet-152")
resnext50_32x4d = _factory("resnext50_32x4d", BottleneckBlock, 50, "ResNeXt-50 32x4d", groups=32, width=4)
resnext50_64x4d = _factory("resnext50_64x4d", BottleneckBlock, 50, "ResNeXt-50 64x4d", groups=64, width=4)
resnext101_32x4d = _factory("resnext101_32x4d", BottleneckBlock, 101, "ResNeXt-101 32x4d", groups=32, width=4)
resnext101_64x4d = _factory("resnext101_64x4d", BottleneckBlock, 101, "ResNeXt-101 64x4d", groups=64, width=4)
resnext152_32x4d = _factory("resnext152_32x4d", BottleneckBlock, 152, "ResNeXt-152 32x4d", groups=32, width=4)
resnext152_64x4d = _factory("resnext152_64x4d", BottleneckBlock, 152, "ResNeXt-152 64x4d", groups=64, width=4)
wide_resnet50_2 = _factory("wide_resnet50_2", BottleneckBlock, 50, "Wide ResNet-50-2", width=128)
wide_resnet101_2 = _factory("wide_resnet101_2", BottleneckBlock, 101, "Wide ResNet-101-2", width=128)

"""ShuffleNetV2 (paddle.vision.models.ShuffleNetV2 / shufflenet_v2_*), with Paddle's layer names."""
from ... import nn
from ...tensor.manipulation import concat, flatten, reshape, split, transpose
from ._utils import ConvNormActivation, build

__all__ = ["ShuffleNetV2", "shufflenet_v2_x0_25", "shufflenet_v2_x0_33", "shufflenet_v2_x0_5", "shufflenet_v2_x1_0",
           "shufflenet_v2_x1_5", "shufflenet_v2_x2_0", "shufflenet_v2_swish"]

_HAPI = "https://paddle-hapi.bj.bcebos.com/models/"
model_urls = {arch: (f"{_HAPI}{arch}.pdparams", md5) for arch, md5 in [
    ("shufflenet_v2_x0_25", "1e509b4c140eeb096bb16e214796d03b"),
    ("shufflenet_v2_x0_33", "3d7b3ab0eaa5c0927ff1026d31b729bd"),
    ("shufflenet_v2_x0_5", "5e5cee182a7793c4e4c73949b1a71bd4"),
    ("shufflenet_v2_x1_0", "122d42478b9e81eb49f8a9ede327b1a4"),
    ("shufflenet_v2_x1_5", "faced5827380d73531d0ee027c67826d"),
    ("shufflenet_v2_x2_0", "cd3dddcd8305e7bcd8ad14d1c69a5784"),
    ("shufflenet_v2_swish", "adde0aa3b023e5b0c94a68be1c394b84"),
]}

# output channels of the stem, the three stages and the last conv, by width multiplier
_STAGE_CHANNELS = {0.25: [24, 24, 48, 96, 512], 0.33: [24, 32, 64, 128, 512], 0.5: [24, 48, 96, 192, 1024],
                   1.0: [24, 116, 232, 464, 1024], 1.5: [24, 176, 352, 704, 1024], 2.0: [24, 224, 488, 976, 2048]}
_STAGE_REPEATS = [4, 8, 4]


def create_activation_layer(act):
    if act is None:
        return None
    layers = {"swish": nn.Swish, "relu": nn.ReLU}
    if act not in layers:
        # NOTE: Paddle raises RuntimeError for an unknown activation name.
        raise RuntimeError(f"The activation function is not supported: {act}")
    return layers[act]


def channel_shuffle(x, groups):
    """Interleave the channels of ``groups`` equal groups."""
    n, c, h, w = x.shape[:4]
    x = transpose(reshape(x, [n, groups, c // groups, h, w]), [0, 2, 1, 3, 4])
    return reshape(x, [n, c, h, w])


def _unit(cin, cout, kernel, stride, groups, act):
    return ConvNormActivation(cin, cout, kernel_size=kernel, stride=stride, padding=(kernel - 1) // 2, groups=groups,
                              activation_layer=act)


class InvertedResidual(nn.Layer):
    """Stride-1 unit: half the channels pass through, the other half go 1x1 -> 3x3 depthwise -> 1x1."""

    def __init__(self, in_channels, out_channels, stride, activation_layer=nn.ReLU):
        super().__init__()
        half = out_channels // 2
        self._conv_pw = _unit(in_channels // 2, half, 1, 1, 1, activation_layer)
        self._conv_dw = _unit(half, half, 3, stride, half, None)
        self._conv_linear = _unit(half, half, 1, 1, 1, activation_layer)

    def forward(self, inputs):
        half = inputs.shape[1] // 2
        x1, x2 = split(inputs, [half, half], axis=1)
        x2 = self._conv_linear(self._conv_dw(self._conv_pw(x2)))
        return channel_shuffle(concat([x1, x2], axis=1), 2)


class InvertedResidualDS(nn.Layer):
    """Down-sampling unit: two strided branches over the whole input."""

    def __init__(self, in_channels, out_channels, stride, activation_layer=nn.ReLU):
        super().__init__()
        half = out_channels // 2
        self._conv_dw_1 = _unit(in_channels, in_channels, 3, stride, in_channels, None)
        self._conv_linear_1 = _unit(in_channels, half, 1, 1, 1, activation_layer)
        self._conv_pw_2 = _unit(in_channels, half, 1, 1, 1, activation_layer)
        self._conv_dw_2 = _unit(half, half, 3, stride, half, None)
        self._conv_linear_2 = _unit(half, half, 1, 1, 1, activation_layer)

    def forward(self, inputs):
        x1 = self._conv_linear_1(self._conv_dw_1(inputs))
        x2 = self._conv_linear_2(self._conv_dw_2(self._conv_pw_2(inputs)))
        return channel_shuffle(concat([x1, x2], axis=1), 2)


class ShuffleNetV2(nn.Layer):
    """ShuffleNetV2 with width ``scale`` (0.25, 0.33, 0.5, 1.0, 1.5, 2.0) and activation 'relu' or 'swish'."""

    def __init__(self, scale=1.0, act="relu", num_classes=1000, with_pool=True):
        super().__init__()
        self.scale = scale
        self.num_classes = num_classes
        self.with_pool = with_pool
        act_layer = create_activation_layer(act)
        if scale not in _STAGE_CHANNELS:
            raise NotImplementedError("This scale size:[" + str(scale) + "] is not implemented!")
        channels = _STAGE_CHANNELS[scale]
        self._conv1 = _unit(3, channels[0], 3, 2, 1, act_layer)
        self._max_pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self._block_list = []
        for stage, repeats in enumerate(_STAGE_REPEATS):
            for i in range(repeats):
                block = (InvertedResidualDS(channels[stage], channels[stage + 1], 2, act_layer) if i == 0 else
                         InvertedResidual(channels[stage + 1], channels[stage + 1], 1, act_layer))
                self._block_list.append(self.add_sublayer(f"{stage + 2}_{i + 1}", block))
        self._last_conv = _unit(channels[-2], channels[-1], 1, 1, 1, act_layer)
        if with_pool:
            self._pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self._out_c = channels[-1]
            self._fc = nn.Linear(channels[-1], num_classes)

    def forward(self, inputs):
        x = self._max_pool(self._conv1(inputs))
        for block in self._block_list:
            x = block(x)
        x = self._last_conv(x)
        if self.with_pool:
            x = self._pool2d_avg(x)
        if self.num_classes > 0:
            x = self._fc(flatten(x, 1))
        return x


def _builder(arch, scale, act=None):
    def make(pretrained=False, **kwargs):
        if act is not None:
            kwargs["act"] = act
        return build(lambda: ShuffleNetV2(scale=scale, **kwargs), arch, model_urls, pretrained)
    make.__name__ = make.__qualname__ = arch
    make.__doc__ = (f"ShuffleNetV2 x{scale}{' with swish' if act else ''}; ``pretrained=True`` loads ImageNet "
                    f"weights from Paddle's cache folder.")
    return make


shufflenet_v2_x0_25 = _builder("shufflenet_v2_x0_25", 0.25)
shufflenet_v2_x0_33 = _builder("shufflenet_v2_x0_33", 0.33)
shufflenet_v2_x0_5 = _builder("shufflenet_v2_x0_5", 0.5)
shufflenet_v2_x1_0 = _builder("shufflenet_v2_x1_0", 1.0)
shufflenet_v2_x1_5 = _builder("shufflenet_v2_x1_5", 1.5)
shufflenet_v2_x2_0 = _builder("shufflenet_v2_x2_0", 2.0)
shufflenet_v2_swish = _builder("shufflenet_v2_swish", 1.0, act="swish")


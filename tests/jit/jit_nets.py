"""Layers the jit tests build in torchpaddle and in the reference PaddlePaddle (pass the module as ``paddle``),
with the same structured parameter names, and deterministic values for them."""
import numpy as np


def mlp(paddle):
    class MLP(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc1 = paddle.nn.Linear(6, 16)
            self.fc2 = paddle.nn.Linear(16, 3)

        def forward(self, x):
            return self.fc2(paddle.nn.functional.relu(self.fc1(x)))
    return MLP()


def conv(paddle):
    class ConvNet(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.conv = paddle.nn.Conv2D(3, 4, 3, padding=1)
            self.bn = paddle.nn.BatchNorm2D(4)
            self.pool = paddle.nn.MaxPool2D(2)
            self.fc = paddle.nn.Linear(4 * 4 * 4, 5)

        def forward(self, x):
            h = self.pool(paddle.nn.functional.relu(self.bn(self.conv(x))))
            return paddle.nn.functional.softmax(self.fc(paddle.flatten(h, 1)), axis=-1)
    return ConvNet()


def flat(paddle):
    """Reads its batch size from the input (``x.shape[0]``), as Paddle models often do."""
    class Flat(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = paddle.nn.Linear(12, 4)

        def forward(self, x):
            return self.fc(x.reshape([x.shape[0], -1]))
    return Flat()


def upsample(paddle):
    """Resizes a strided conv's output back to the input's spatial size (``x.shape[2:]``), as FPN/U-Net heads."""
    class Upsample(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.conv = paddle.nn.Conv2D(3, 2, 3, stride=2, padding=1)

        def forward(self, x):
            return paddle.nn.functional.interpolate(self.conv(x), size=x.shape[2:], mode="bilinear")
    return Upsample()


def setitem(paddle):
    """Assigns into a computed tensor: a column from another tensor, a row from a scalar, slices, None."""
    class SetItem(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = paddle.nn.Linear(5, 4)

        def forward(self, x):
            h = self.fc(x)
            h[:, 0] = x[:, 1]
            h[0] = 2.5
            h[:, 1:3] = h[:, 1:3] * 0.5
            h[0, None] = h[None, 0] * 2.0
            return h
    return SetItem()


def lstm(paddle):
    """A 2-layer bidirectional LSTM (the fused rnn op) over sequences of any length; returns its outputs."""
    class Lstm(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.rnn = paddle.nn.LSTM(4, 6, num_layers=2, direction="bidirect")

        def forward(self, x):
            return self.rnn(x)[0]
    return Lstm()


INPUT_SHAPES = {"mlp": [6], "conv": [3, 8, 8], "flat": [3, 4], "upsample": [3, None, None], "setitem": [5],
                "lstm": [None, 4]}
# the nets whose saved programs must follow the input's batch (and spatial) size: (batch, spatial size) to run at
DYNAMIC = {"flat": [(2, None), (5, None)], "upsample": [(2, 8), (3, 5)], "setitem": [(3, None), (1, None)]}
# saved here only: Paddle 3.3.1's legacy jit.save of an nn.LSTM fails ("Unknown place type")
OURS_ONLY = {"lstm": [(2, 3), (3, 7)]}


def build(paddle, name, seed=0):
    """The named Layer with every state_dict entry set from a seeded NumPy generator (eval mode)."""
    nets = {"mlp": mlp, "conv": conv, "flat": flat, "upsample": upsample, "setitem": setitem, "lstm": lstm}
    layer = nets[name](paddle)
    rng = np.random.RandomState(seed)
    for key in sorted(layer.state_dict()):
        value = layer.state_dict()[key]
        array = rng.uniform(-0.5, 0.5, list(value.shape)).astype("float32")
        if key.endswith("_variance"):
            array = np.abs(array) + 0.5
        value.set_value(array)
    layer.eval()
    return layer


def inputs(name, batch, seed=1, size=None):
    """Inputs of ``batch`` rows; the dims unknown in INPUT_SHAPES (None) take ``size``."""
    shape = [size if d is None else d for d in INPUT_SHAPES[name]]
    return np.random.RandomState(seed).randn(batch, *shape).astype("float32")

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


INPUT_SHAPES = {"mlp": [6], "conv": [3, 8, 8]}


def build(paddle, name, seed=0):
    """The named Layer with every state_dict entry set from a seeded NumPy generator (eval mode)."""
    layer = {"mlp": mlp, "conv": conv}[name](paddle)
    rng = np.random.RandomState(seed)
    for key in sorted(layer.state_dict()):
        value = layer.state_dict()[key]
        array = rng.uniform(-0.5, 0.5, list(value.shape)).astype("float32")
        if key.endswith("_variance"):
            array = np.abs(array) + 0.5
        value.set_value(array)
    layer.eval()
    return layer


def inputs(name, batch, seed=1):
    return np.random.RandomState(seed).randn(batch, *INPUT_SHAPES[name]).astype("float32")

"""LeNet (paddle.vision.models.LeNet): two conv-relu-pool stages and three Linear layers, for 1x28x28 input."""
from ... import nn
from ...tensor.manipulation import flatten

__all__ = ["LeNet"]


class LeNet(nn.Layer):
    """LeNet-5 as Paddle builds it; ``num_classes <= 0`` drops the fully connected head."""

    def __init__(self, num_classes=10):
        super().__init__()
        self.num_classes = num_classes
        self.features = nn.Sequential(
            nn.Conv2D(1, 6, 3, stride=1, padding=1), nn.ReLU(), nn.MaxPool2D(2, 2),
            nn.Conv2D(6, 16, 5, stride=1, padding=0), nn.ReLU(), nn.MaxPool2D(2, 2))
        if num_classes > 0:
            # NOTE: Paddle's LeNet has no activation between its Linear layers.
            self.fc = nn.Sequential(nn.Linear(400, 120), nn.Linear(120, 84), nn.Linear(84, num_classes))

    def forward(self, inputs):
        x = self.features(inputs)
        if self.num_classes > 0:
            x = self.fc(flatten(x, 1))
        return x

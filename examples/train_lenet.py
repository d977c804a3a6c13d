"""Train LeNet with paddle.Model on a synthetic MNIST-like dataset; runs unchanged on PaddlePaddle and on
torchpaddle (`python -m torchpaddle examples/train_lenet.py`)."""
import sys

import numpy as np
import paddle
from paddle.io import Dataset
from paddle.metric import Accuracy
from paddle.vision.models import LeNet


class SyntheticDigits(Dataset):
    """Ten classes, each a noisy bright square at its own position in a 28x28 image."""

    def __init__(self, count, seed):
        rng = np.random.RandomState(seed)
        self.labels = rng.randint(0, 10, size=count).astype("int64")
        self.images = rng.normal(0.0, 0.3, size=(count, 1, 28, 28)).astype("float32")
        for i, label in enumerate(self.labels):
            row, col = divmod(int(label), 5)
            self.images[i, 0, 4 + row * 12:12 + row * 12, 2 + col * 5:6 + col * 5] += 1.0

    def __getitem__(self, index):
        return self.images[index], self.labels[index:index + 1]

    def __len__(self):
        return len(self.labels)


def main():
    paddle.seed(2024)
    model = paddle.Model(LeNet(num_classes=10))
    model.prepare(paddle.optimizer.Adam(learning_rate=0.001, parameters=model.parameters()),
                  paddle.nn.CrossEntropyLoss(), Accuracy())
    model.fit(SyntheticDigits(2000, seed=1), epochs=2, batch_size=64, verbose=1)
    result = model.evaluate(SyntheticDigits(500, seed=2), batch_size=100, verbose=1)
    print("eval:", result)
    return 0 if result["acc"] > 0.9 else 1


if __name__ == "__main__":
    sys.exit(main())

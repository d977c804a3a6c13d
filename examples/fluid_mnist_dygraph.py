"""A Paddle 1.x dygraph MNIST script, unchanged: ``python -m torchpaddle examples/fluid_mnist_dygraph.py``.

It uses fluid's imperative API (fluid.dygraph.guard, Conv2D/Pool2D/Linear with act=, fluid.optimizer.Adam with
parameter_list=, fluid.layers.cross_entropy, save_dygraph/load_dygraph). Synthetic data stands in for the
MNIST download, so it runs offline.
"""
from __future__ import print_function

import os
import tempfile

import numpy as np
import paddle.fluid as fluid
from paddle.fluid.dygraph import Conv2D, Linear, Pool2D


class MNIST(fluid.dygraph.Layer):
    def __init__(self):
        super(MNIST, self).__init__()
        self.conv1 = Conv2D(num_channels=1, num_filters=8, filter_size=5, act="relu")
        self.pool1 = Pool2D(pool_size=2, pool_type="max", pool_stride=2)
        self.conv2 = Conv2D(num_channels=8, num_filters=16, filter_size=5, act="relu")
        self.pool2 = Pool2D(pool_size=2, pool_type="max", pool_stride=2)
        self.fc = Linear(16 * 4 * 4, 10, act="softmax")

    def forward(self, x):
        x = self.pool2(self.conv2(self.pool1(self.conv1(x))))
        return self.fc(fluid.layers.reshape(x, shape=[-1, 16 * 4 * 4]))


def synthetic_reader(batches, batch_size, seed):
    """Images whose label is the brightest of ten horizontal bands: learnable, and no download needed."""
    rng = np.random.RandomState(seed)
    for _ in range(batches):
        labels = rng.randint(0, 10, [batch_size, 1]).astype("int64")
        images = rng.uniform(0, 0.3, [batch_size, 1, 28, 28]).astype("float32")
        for i, label in enumerate(labels[:, 0]):
            images[i, 0, 2 + 2 * label:4 + 2 * label, :] += 0.7
        yield images, labels


with fluid.dygraph.guard():
    model = MNIST()
    adam = fluid.optimizer.Adam(learning_rate=0.002, parameter_list=model.parameters())
    for epoch in range(2):
        model.train()
        for step, (images, labels) in enumerate(synthetic_reader(4, 32, seed=epoch)):
            img, label = fluid.dygraph.to_variable(images), fluid.dygraph.to_variable(labels)
            prediction = model(img)
            avg_loss = fluid.layers.mean(fluid.layers.cross_entropy(prediction, label))
            avg_loss.backward()
            adam.minimize(avg_loss)
            model.clear_gradients()
            print("epoch %d, step %d, loss %.4f" % (epoch, step, avg_loss.numpy().reshape(-1)[0]))
    path = os.path.join(tempfile.mkdtemp(), "mnist")
    fluid.save_dygraph(model.state_dict(), path)
    fluid.save_dygraph(adam.state_dict(), path)
    params, opt_state = fluid.load_dygraph(path)
    model.set_dict(params)
    model.eval()
    images, labels = next(synthetic_reader(1, 64, seed=99))
    predicted = np.argmax(model(fluid.dygraph.to_variable(images)).numpy(), axis=1)
    print("accuracy on new data: %.2f" % (predicted == labels[:, 0]).mean())
    print("saved to %s.pdparams and %s.pdopt" % (path, path))

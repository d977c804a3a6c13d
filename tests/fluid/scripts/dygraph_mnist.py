"""MNIST in Paddle 1.x dygraph: fluid.dygraph.guard, Conv2D + Pool2D blocks, Linear with softmax,
fluid.optimizer.Adam(parameter_list=...), save_dygraph. Fixed data and initial values; LOSSES holds the
losses."""
from __future__ import print_function

import os
import tempfile

import numpy as np
import paddle.fluid as fluid
from paddle.fluid.dygraph import Conv2D, Linear, Pool2D

BATCH, STEPS = 8, 5


class SimpleImgConvPool(fluid.dygraph.Layer):
    def __init__(self, num_channels, num_filters, filter_size, pool_size, pool_stride, act=None):
        super(SimpleImgConvPool, self).__init__()
        self._conv2d = Conv2D(num_channels=num_channels, num_filters=num_filters, filter_size=filter_size, act=act)
        self._pool2d = Pool2D(pool_size=pool_size, pool_type="max", pool_stride=pool_stride)

    def forward(self, inputs):
        return self._pool2d(self._conv2d(inputs))


class MNIST(fluid.dygraph.Layer):
    def __init__(self):
        super(MNIST, self).__init__()
        self._simple_img_conv_pool_1 = SimpleImgConvPool(1, 8, 5, 2, 2, act="relu")
        self._simple_img_conv_pool_2 = SimpleImgConvPool(8, 16, 5, 2, 2, act="relu")
        self.pool_2_shape = 16 * 4 * 4
        self._fc = Linear(self.pool_2_shape, 10, act="softmax")

    def forward(self, inputs, label=None):
        x = self._simple_img_conv_pool_1(inputs)
        x = self._simple_img_conv_pool_2(x)
        x = fluid.layers.reshape(x, shape=[-1, self.pool_2_shape])
        x = self._fc(x)
        if label is not None:
            return x, fluid.layers.accuracy(input=x, label=label) if hasattr(fluid.layers, "accuracy") else None
        return x


data_rng = np.random.RandomState(0)
images = data_rng.uniform(0, 1, [STEPS, BATCH, 1, 28, 28]).astype("float32")
labels = data_rng.randint(0, 10, [STEPS, BATCH, 1]).astype("int64")
LOSSES = []
with fluid.dygraph.guard():
    mnist = MNIST()
    rng = np.random.RandomState(5)
    state = mnist.state_dict()
    mnist.set_dict(dict((k, rng.uniform(-0.2, 0.2, list(v.shape)).astype("float32")) for k, v in state.items()))
    PARAMETERS = [(k, v.name) for k, v in mnist.state_dict().items()]
    adam = fluid.optimizer.AdamOptimizer(learning_rate=0.001, parameter_list=mnist.parameters())
    mnist.train()
    for step in range(STEPS):
        img = fluid.dygraph.to_variable(images[step])
        label = fluid.dygraph.to_variable(labels[step])
        label.stop_gradient = True
        cost, acc = mnist(img, label)
        loss = fluid.layers.cross_entropy(cost, label)
        avg_loss = fluid.layers.mean(loss)
        avg_loss.backward()
        adam.minimize(avg_loss)
        mnist.clear_gradients()
        LOSSES.append(float(avg_loss.numpy().reshape(-1)[0]))
    folder = tempfile.mkdtemp()
    fluid.save_dygraph(mnist.state_dict(), os.path.join(folder, "mnist"))
    reloaded, _ = fluid.load_dygraph(os.path.join(folder, "mnist"))
    fresh = MNIST()
    fresh.set_dict(reloaded)
    fresh.eval()
    mnist.eval()
    same = fresh(fluid.dygraph.to_variable(images[0])).numpy()
    LOSSES.append(float(np.abs(same - mnist(fluid.dygraph.to_variable(images[0])).numpy()).max()))

if __name__ == "__main__":
    print("parameters:", PARAMETERS)
    for step, loss in enumerate(LOSSES):
        print("step %d, loss %.6f" % (step, loss))

"""A small CIFAR-10 ResNet, the Paddle 1.x way (static program, conv2d + batch_norm blocks with shortcuts,
global average pooling, Momentum with L2 decay). Fixed data and initial values; LOSSES holds the losses."""
from __future__ import print_function

import numpy as np
import paddle.fluid as fluid

BATCH, STEPS = 4, 4


def conv_bn_layer(input, ch_out, filter_size, stride, padding, act="relu", bias_attr=False):
    tmp = fluid.layers.conv2d(input=input, filter_size=filter_size, num_filters=ch_out, stride=stride,
                              padding=padding, act=None, bias_attr=bias_attr)
    return fluid.layers.batch_norm(input=tmp, act=act)


def shortcut(input, ch_in, ch_out, stride):
    if ch_in != ch_out:
        return conv_bn_layer(input, ch_out, 1, stride, 0, None)
    return input


def basicblock(input, ch_in, ch_out, stride):
    tmp = conv_bn_layer(input, ch_out, 3, stride, 1)
    tmp = conv_bn_layer(tmp, ch_out, 3, 1, 1, act=None, bias_attr=True)
    short = shortcut(input, ch_in, ch_out, stride)
    return fluid.layers.elementwise_add(x=tmp, y=short, act="relu")


def resnet_cifar10(ipt):
    conv1 = conv_bn_layer(ipt, ch_out=8, filter_size=3, stride=1, padding=1)
    res1 = basicblock(conv1, 8, 8, 1)
    res2 = basicblock(res1, 8, 16, 2)
    pool = fluid.layers.pool2d(input=res2, pool_size=8, pool_type="avg", pool_stride=1)
    return fluid.layers.fc(input=pool, size=10, act="softmax")


def set_fixed_parameters(program, scope, place, seed):
    rng = np.random.RandomState(seed)
    for param in sorted(program.all_parameters(), key=lambda p: p.name):
        low = 0.5 if param.name.endswith("w_2") else -0.2
        value = rng.uniform(low, 0.5 if low > 0 else 0.2, list(param.shape)).astype("float32")
        scope.find_var(param.name).get_tensor().set(value, place)


main_program, startup_program = fluid.Program(), fluid.Program()
with fluid.program_guard(main_program, startup_program), fluid.unique_name.guard():
    images = fluid.layers.data(name="pixel", shape=[3, 16, 16], dtype="float32")
    label = fluid.layers.data(name="label", shape=[1], dtype="int64")
    predict = resnet_cifar10(images)
    avg_cost = fluid.layers.mean(fluid.layers.cross_entropy(input=predict, label=label))
    optimizer = fluid.optimizer.Momentum(learning_rate=0.01, momentum=0.9,
                                         regularization=fluid.regularizer.L2Decay(1e-4))
    optimizer.minimize(avg_cost)

place = fluid.CPUPlace()
exe = fluid.Executor(place)
scope = fluid.core.Scope()
data_rng = np.random.RandomState(0)
pixels = data_rng.uniform(-1, 1, [STEPS, BATCH, 3, 16, 16]).astype("float32")
labels = data_rng.randint(0, 10, [STEPS, BATCH, 1]).astype("int64")
LOSSES = []
with fluid.scope_guard(scope):
    exe.run(startup_program)
    set_fixed_parameters(main_program, scope, place, seed=2)
    for step in range(STEPS):
        loss, = exe.run(main_program, feed={"pixel": pixels[step], "label": labels[step]}, fetch_list=[avg_cost])
        LOSSES.append(float(np.array(loss).reshape(-1)[0]))
    # the running mean the batch norms accumulated
    LOSSES.append(float(np.array(scope.find_var("batch_norm_0.w_1").get_tensor()).sum()))

if __name__ == "__main__":
    for step, loss in enumerate(LOSSES):
        print("step %d, loss %.6f" % (step, loss))

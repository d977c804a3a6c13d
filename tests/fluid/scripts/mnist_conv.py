"""MNIST convolutional net, the Paddle 1.x way (static program, fluid.nets.simple_img_conv_pool, batch_norm,
Adam). Fixed data and initial values, so Paddle 1.8.5 and torchpaddle train the same losses. Run it with
``python mnist_conv.py`` (Paddle 1.8) or ``python -m torchpaddle mnist_conv.py``; LOSSES holds the losses."""
from __future__ import print_function

import numpy as np
import paddle.fluid as fluid

BATCH, STEPS = 8, 5


def convolutional_neural_network(img, label):
    conv_pool_1 = fluid.nets.simple_img_conv_pool(input=img, filter_size=5, num_filters=8, pool_size=2,
                                                  pool_stride=2, act="relu")
    conv_pool_1 = fluid.layers.batch_norm(conv_pool_1)
    conv_pool_2 = fluid.nets.simple_img_conv_pool(input=conv_pool_1, filter_size=5, num_filters=16, pool_size=2,
                                                  pool_stride=2, act="relu")
    prediction = fluid.layers.fc(input=conv_pool_2, size=10, act="softmax")
    loss = fluid.layers.cross_entropy(input=prediction, label=label)
    return prediction, fluid.layers.mean(loss)


def set_fixed_parameters(program, scope, place, seed):
    """Give every parameter seeded values (batch-norm variances positive), by name order."""
    rng = np.random.RandomState(seed)
    for param in sorted(program.all_parameters(), key=lambda p: p.name):
        low = 0.5 if param.name.endswith("w_2") else -0.2
        value = rng.uniform(low, 0.5 if low > 0 else 0.2, list(param.shape)).astype("float32")
        scope.find_var(param.name).get_tensor().set(value, place)


main_program, startup_program = fluid.Program(), fluid.Program()
with fluid.program_guard(main_program, startup_program), fluid.unique_name.guard():
    img = fluid.layers.data(name="img", shape=[1, 28, 28], dtype="float32")
    label = fluid.layers.data(name="label", shape=[1], dtype="int64")
    prediction, avg_loss = convolutional_neural_network(img, label)
    test_program = main_program.clone(for_test=True)
    fluid.optimizer.Adam(learning_rate=0.001).minimize(avg_loss)

place = fluid.CPUPlace()
exe = fluid.Executor(place)
scope = fluid.core.Scope()
data_rng = np.random.RandomState(0)
images = data_rng.uniform(0, 1, [STEPS, BATCH, 1, 28, 28]).astype("float32")
labels = data_rng.randint(0, 10, [STEPS, BATCH, 1]).astype("int64")
LOSSES = []
with fluid.scope_guard(scope):
    exe.run(startup_program)
    set_fixed_parameters(main_program, scope, place, seed=1)
    for step in range(STEPS):
        loss, = exe.run(main_program, feed={"img": images[step], "label": labels[step]}, fetch_list=[avg_loss])
        LOSSES.append(float(np.array(loss).reshape(-1)[0]))
    test_loss, = exe.run(test_program, feed={"img": images[0], "label": labels[0]}, fetch_list=[avg_loss])
    LOSSES.append(float(np.array(test_loss).reshape(-1)[0]))

if __name__ == "__main__":
    for step, loss in enumerate(LOSSES):
        print("step %d, loss %.6f" % (step, loss))

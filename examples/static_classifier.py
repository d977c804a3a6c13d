"""A static-graph classifier in Paddle's Program/Executor style: build once, run the startup program, then
train with Executor.run and evaluate a test clone of the program.

Runs unchanged on PaddlePaddle and on torchpaddle:
    python examples/static_classifier.py                 # real PaddlePaddle (FLAGS_enable_pir_api=0 for 3.x)
    python -m torchpaddle examples/static_classifier.py  # torchpaddle
Exits 0 when the test accuracy reaches 90%, 1 otherwise.
"""
import sys

import numpy as np
import paddle


def make_data(rng, n):
    centers = np.array([[2.0, 0.0], [-2.0, 0.0], [0.0, 2.5]], dtype="float32")
    label = rng.randint(0, 3, size=(n, 1)).astype("int64")
    x = centers[label[:, 0]] + rng.normal(0, 0.6, size=(n, 2)).astype("float32")
    return x, label


def main():
    paddle.enable_static()
    paddle.seed(1)
    rng = np.random.RandomState(1)
    train_x, train_y = make_data(rng, 512)
    test_x, test_y = make_data(rng, 256)

    main_program, startup_program = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main_program, startup_program):
        x = paddle.static.data(name="x", shape=[None, 2], dtype="float32")
        label = paddle.static.data(name="label", shape=[None, 1], dtype="int64")
        hidden = paddle.nn.functional.relu(paddle.nn.Linear(2, 32)(x))
        logits = paddle.nn.Linear(32, 3)(hidden)
        loss = paddle.nn.functional.cross_entropy(logits, label)
        accuracy = paddle.metric.accuracy(paddle.nn.functional.softmax(logits), label)
        test_program = main_program.clone(for_test=True)
        paddle.optimizer.Adam(learning_rate=0.05).minimize(loss)

    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup_program)
    for epoch in range(5):
        for start in range(0, len(train_x), 64):
            feed = {"x": train_x[start:start + 64], "label": train_y[start:start + 64]}
            train_loss, = exe.run(main_program, feed=feed, fetch_list=[loss])
        test_acc, = exe.run(test_program, feed={"x": test_x, "label": test_y}, fetch_list=[accuracy])
        print(f"epoch {epoch}: train loss {float(train_loss):.4f}, test accuracy {float(test_acc):.4f}")
    return 0 if float(test_acc) >= 0.9 else 1


if __name__ == "__main__":
    sys.exit(main())

"""Linear regression by hand-written gradient descent, in plain PaddlePaddle dygraph code.

Runs unchanged on PaddlePaddle and on torchpaddle:
    python examples/linear_regression.py                 # real PaddlePaddle
    python -m torchpaddle examples/linear_regression.py  # torchpaddle
Exits 0 when the loss fell below 1% of its starting value, 1 otherwise.
"""
import argparse
import sys

import paddle


def make_data(n, true_w, true_b):
    x = paddle.randn([n, len(true_w)], dtype="float32")
    w = paddle.to_tensor([[v] for v in true_w], dtype="float32")
    noise = paddle.randn([n, 1], dtype="float32") * 0.01
    return x, paddle.matmul(x, w) + true_b + noise


def train(x, y, steps, lr, use_grad):
    w = paddle.zeros([x.shape[1], 1], dtype="float32")
    b = paddle.zeros([1], dtype="float32")
    w.stop_gradient = False
    b.stop_gradient = False
    losses = []
    for step in range(steps):
        diff = paddle.matmul(x, w) + b - y
        loss = paddle.mean(diff * diff)
        if use_grad:
            grad_w, grad_b = paddle.grad(loss, [w, b])
        else:
            loss.backward()
            grad_w, grad_b = w.grad, b.grad
        with paddle.no_grad():
            w.set_value(w - lr * grad_w)
            b.set_value(b - lr * grad_b)
        if not use_grad:
            w.clear_grad()
            b.clear_grad()
        losses.append(float(loss))
        if step % 20 == 0 or step == steps - 1:
            print(f"step {step:4d}  loss {losses[-1]:.6f}")
    return w, b, losses


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--samples", type=int, default=128)
    parser.add_argument("--use-grad", action="store_true", help="paddle.grad instead of loss.backward()")
    args = parser.parse_args()

    paddle.seed(2024)
    x, y = make_data(args.samples, [2.0, -3.0, 0.5], 1.0)
    w, b, losses = train(x, y, args.steps, args.lr, args.use_grad)
    print("w =", [round(v, 3) for v in w.numpy().reshape(-1).tolist()], " b =", round(b.numpy().item(), 3))
    print(f"loss {losses[0]:.6f} -> {losses[-1]:.6f}")
    return 0 if losses[-1] < 0.01 * losses[0] else 1


if __name__ == "__main__":
    sys.exit(main())

"""QAT with FakeQuanterWithAbsMaxObserver on a tiny Conv2D + ReLU + Linear model, on real Paddle 3.3.1 and here
(same weights): the layers QAT puts in, the outputs of three training steps (the moving-average scales move)
and in eval mode. Run inside the reference virtualenv: ``python -m tests.quantization.quant_cases OUT.pkl``."""
import pickle
import sys

import numpy as np


def run(paddle, quantization, weights=None):
    from_quanters = quantization.quanters.FakeQuanterWithAbsMaxObserver

    class Net(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.conv = paddle.nn.Conv2D(1, 2, 3, padding=1)
            self.relu = paddle.nn.ReLU()
            self.fc = paddle.nn.Linear(8, 3)

        def forward(self, x):
            return self.fc(self.relu(self.conv(x)).reshape([x.shape[0], -1])[:, :8])

    paddle.seed(5)
    net = Net()
    if weights is not None:
        net.set_state_dict({k: paddle.to_tensor(v) for k, v in weights.items()})
    q = from_quanters(moving_rate=0.9)
    model = quantization.QAT(quantization.QuantConfig(activation=q, weight=q)).quantize(net, inplace=False)
    rs = np.random.RandomState(0)
    xs = [rs.uniform(-2, 2, (2, 1, 3, 3)).astype("float32") for _ in range(3)]
    out = {"types": [type(sub).__name__ for sub in model.sublayers()],
           "weights": {k: v.numpy() for k, v in net.state_dict().items()}}
    out["train"] = [model(paddle.to_tensor(x)).numpy() for x in xs]
    out["scales"] = [float(sub.scales().numpy().reshape(-1)[0]) for sub in model.sublayers()
                     if type(sub).__name__ == "FakeQuanterWithAbsMaxObserverLayer"]
    model.eval()
    out["eval"] = model(paddle.to_tensor(xs[0])).numpy()
    return out, model, xs


if __name__ == "__main__":
    import paddle
    import paddle.quantization
    import paddle.quantization.quanters  # noqa: F401
    with open(sys.argv[1], "wb") as f:
        pickle.dump({"results": run(paddle, paddle.quantization)[0]}, f)

"""The model, data and training loop of the DataParallel checks (used by the ranks and by the reference)."""
import numpy as np

SAMPLES, FEATURES, OUT = 40, 8, 4
STEPS = 5
GLOBAL_BATCH = 8


def dataset():
    rng = np.random.RandomState(0)
    return rng.standard_normal((SAMPLES, FEATURES)).astype("float32"), \
        rng.standard_normal((SAMPLES, OUT)).astype("float32")


def build(paddle, seed=0, unused=False):
    nn = paddle.nn

    class Net(nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(FEATURES, 16)
            self.fc2 = nn.Linear(16, OUT)
            self.spare = nn.Linear(OUT, OUT) if unused else None

        def forward(self, x):
            return self.fc2(paddle.tanh(self.fc1(x)))

    model = Net()
    rng = np.random.RandomState(seed)
    model.set_state_dict({k: (rng.standard_normal(v.shape) * 0.5).astype("float32")
                          for k, v in model.state_dict().items()})
    return model


def optimizer(paddle, name, parameters):
    if name == "adam":
        return paddle.optimizer.Adam(learning_rate=0.01, parameters=parameters)
    return paddle.optimizer.SGD(learning_rate=0.1, parameters=parameters)


def params(model):
    return {k: v.numpy() for k, v in model.state_dict().items()}


def reference(paddle, opt_name="sgd", unused=False):
    """Single-process training on each step's whole global batch."""
    x, y = dataset()
    model = build(paddle, 0, unused)
    opt = optimizer(paddle, opt_name, model.parameters())
    losses = []
    for step in range(STEPS):
        s = slice(step * GLOBAL_BATCH, (step + 1) * GLOBAL_BATCH)
        loss = paddle.nn.functional.mse_loss(model(paddle.to_tensor(x[s])), paddle.to_tensor(y[s]))
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    return losses, params(model)

"""The compiled backend: the ``training`` group's models (same weights, data and optimizers) with the model
compiled, one row each:

- torchpaddle: ``paddle.jit.to_static(model, build_strategy=...)`` with ``build_cinn_pass`` on, which runs the
  traced program through torch.compile (inductor);
- torch: ``torch.compile(model)`` of the equivalent torch module;
- paddle: ``paddle.jit.to_static(model)`` (Paddle's CINN needs a CUDA build, so on CPU this is its PHI
  kernels running the static program).

The optimizer step stays eager in all three. Setup runs the first three steps, which is where compiling
happens: the worker reports setup time apart (``setup_s``), so the timed steps exclude it.
``benchmarks/compiled_bench.py`` sets these rows beside the eager ones of the ``training`` group.
"""
import numpy as np

from . import workload
from .training import (_BATCH, _D_MODEL, _FFN, _HEADS, _LAYERS, _REPEATS, _SEQ, _RESNET_API, _batch, _init_paddle,
                       _init_torch, _torch_lenet, _torch_resnet18, _torch_trainer, _trainer)

_TO_STATIC = ("jit.to_static",)


def _to_static(paddle, model):
    """The Paddle-API model compiled: torchpaddle's build_cinn_pass compiles on CPU; real Paddle's CPU build
    has no CINN and runs the static program."""
    strategy = paddle.static.BuildStrategy()
    if getattr(paddle, "__name__", "") == "torchpaddle":
        strategy.build_cinn_pass = True
    return paddle.jit.to_static(model, build_strategy=strategy, full_graph=True)


@workload("compiled_mlp_adam_train", group="compiled", repeats=_REPEATS,
          requires=("nn.Linear", "nn.ReLU", "nn.Sequential", "nn.CrossEntropyLoss", "optimizer.Adam") + _TO_STATIC)
def mlp_adam(paddle):
    """mlp_adam_train with the model compiled."""
    nn = paddle.nn
    model = _init_paddle(nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                                       nn.Linear(512, 10)))
    opt = paddle.optimizer.Adam(learning_rate=1e-3, parameters=model.parameters())
    x, y = _batch([128, 784], 10)
    return _trainer(paddle, _to_static(paddle, model), opt, nn.CrossEntropyLoss(), paddle.to_tensor(x),
                    paddle.to_tensor(y))


@mlp_adam.backend("torch")
def mlp_adam_torch(shim):
    torch, nn = shim.torch, shim.torch.nn
    model = _init_torch(torch, nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                                             nn.Linear(512, 10)))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x, y = _batch([128, 784], 10)
    return _torch_trainer(torch, torch.compile(model), opt, nn.CrossEntropyLoss(), torch.from_numpy(x),
                          torch.from_numpy(y))


@workload("compiled_lenet_momentum_train", group="compiled", repeats=_REPEATS,
          requires=("vision.models.LeNet", "nn.CrossEntropyLoss", "optimizer.Momentum") + _TO_STATIC)
def lenet_momentum(paddle):
    """lenet_momentum_train with the model compiled."""
    model = _init_paddle(paddle.vision.models.LeNet())
    opt = paddle.optimizer.Momentum(learning_rate=0.01, momentum=0.9, parameters=model.parameters())
    x, y = _batch([64, 1, 28, 28], 10)
    return _trainer(paddle, _to_static(paddle, model), opt, paddle.nn.CrossEntropyLoss(), paddle.to_tensor(x),
                    paddle.to_tensor(y))


@lenet_momentum.backend("torch")
def lenet_momentum_torch(shim):
    torch, nn = shim.torch, shim.torch.nn
    model = _init_torch(torch, _torch_lenet(nn))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x, y = _batch([64, 1, 28, 28], 10)
    return _torch_trainer(torch, torch.compile(model), opt, nn.CrossEntropyLoss(), torch.from_numpy(x),
                          torch.from_numpy(y))


@workload("compiled_resnet18_sgd_train", group="compiled", repeats=_REPEATS // 2,
          requires=_RESNET_API + ("optimizer.SGD",) + _TO_STATIC)
def resnet_sgd(paddle):
    """resnet18_sgd_train with the model compiled."""
    model = _init_paddle(paddle.vision.models.resnet18(num_classes=10))
    opt = paddle.optimizer.SGD(learning_rate=0.01, parameters=model.parameters())
    x, y = _batch([32, 3, 32, 32], 10)
    return _trainer(paddle, _to_static(paddle, model), opt, paddle.nn.CrossEntropyLoss(), paddle.to_tensor(x),
                    paddle.to_tensor(y))


@resnet_sgd.backend("torch")
def resnet_sgd_torch(shim):
    torch, nn = shim.torch, shim.torch.nn
    model = _init_torch(torch, _torch_resnet18(nn))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = _batch([32, 3, 32, 32], 10)
    return _torch_trainer(torch, torch.compile(model), opt, nn.CrossEntropyLoss(), torch.from_numpy(x),
                          torch.from_numpy(y))


def _infer(no_grad, model, x):
    first = model(x)   # the compile, in setup

    def run(n):
        with no_grad():
            for _ in range(n):
                out = model(x)
        return out
    del first
    with no_grad():
        model(x)
    return run


@workload("compiled_resnet18_infer", group="compiled", repeats=_REPEATS, requires=_RESNET_API + ("no_grad",) + _TO_STATIC)
def resnet_infer(paddle):
    """resnet18_infer with the model compiled."""
    model = _init_paddle(paddle.vision.models.resnet18(num_classes=10))
    model.eval()
    return _infer(paddle.no_grad, _to_static(paddle, model), paddle.to_tensor(_batch([32, 3, 32, 32], 10)[0]))


@resnet_infer.backend("torch")
def resnet_infer_torch(shim):
    torch = shim.torch
    model = _init_torch(torch, _torch_resnet18(torch.nn))
    model.eval()
    return _infer(torch.no_grad, torch.compile(model), torch.from_numpy(_batch([32, 3, 32, 32], 10)[0]))


@workload("compiled_transformer_adamw_train", group="compiled", repeats=_REPEATS // 2,
          requires=("nn.TransformerEncoder", "nn.TransformerEncoderLayer", "optimizer.AdamW") + _TO_STATIC)
def transformer_adamw(paddle):
    """transformer_adamw_train with the model compiled."""
    nn = paddle.nn
    layer = nn.TransformerEncoderLayer(_D_MODEL, _HEADS, _FFN, dropout=0.0)
    model = _init_paddle(nn.TransformerEncoder(layer, _LAYERS))
    opt = paddle.optimizer.AdamW(learning_rate=1e-4, parameters=model.parameters(), weight_decay=0.01)
    rng = np.random.RandomState(0)
    x = paddle.to_tensor(rng.standard_normal([_BATCH, _SEQ, _D_MODEL]).astype("float32"))
    target = paddle.to_tensor(rng.standard_normal([_BATCH, _SEQ, _D_MODEL]).astype("float32"))
    return _trainer(paddle, _to_static(paddle, model), opt, lambda out, t: ((out - t) ** 2).mean(), x, target)


@transformer_adamw.backend("torch")
def transformer_adamw_torch(shim):
    from .training import transformer_adamw_torch as eager_build
    torch = shim.torch
    compile_module = torch.compile
    real = torch.nn.TransformerEncoder

    class Compiled(real):   # the eager build's module, compiled (its weight loading needs the module itself)
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.forward = compile_module(super().forward)
    torch.nn.TransformerEncoder = Compiled
    try:
        return eager_build(shim)
    finally:
        torch.nn.TransformerEncoder = real

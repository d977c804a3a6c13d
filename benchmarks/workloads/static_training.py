"""Static-graph training steps: the MLP of ``mlp_adam_train`` (784-512-512-10, batch 128, Adam 1e-3,
cross-entropy) as a Program, run by ``Executor.run``, by a ``CompiledProgram``, and by
``CompiledProgram.with_data_parallel`` on 2 CPU places. Same weights and batch as ``mlp_adam_train``, so
the eager row of the same run is the "eager step" these are compared with.

Every backend builds the program in static mode and leaves dygraph on between runs (the other workloads of
the worker are eager): ``run(n)`` switches static mode on around its steps. Plain torch has no static
Executor (``backend("torch")(None)``); Paddle 3.3.1 has no ``with_data_parallel`` (``missing``). Real Paddle
runs the Executor workload in its default IR (PIR) and the CompiledProgram one in its legacy IR
(``paddle.pir_utils.OldIrGuard``), the only one its CompiledProgram accepts.
"""
import contextlib

from . import workload
from .training import _REPEATS, _batch, _init_array

_API = ("enable_static", "static.Executor", "static.Program", "static.program_guard", "nn.Linear",
        "optimizer.Adam")


def _ir(paddle, legacy):
    """Real Paddle's legacy-IR guard when asked for (torchpaddle has one IR)."""
    utils = getattr(paddle, "pir_utils", None)
    return utils.OldIrGuard() if legacy and utils is not None else contextlib.nullcontext()


def _mlp(paddle):
    nn = paddle.nn
    return (nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10)),
            [128, 784], paddle.optimizer.Adam(learning_rate=1e-3))


def _small_resnet(paddle):
    """Two residual blocks (conv-bn-relu-conv-bn + identity) on 16x16 images, batch 32, Momentum."""
    nn = paddle.nn

    class Block(nn.Layer):
        def __init__(self, channels):
            super().__init__()
            self.conv1, self.bn1 = nn.Conv2D(channels, channels, 3, padding=1), nn.BatchNorm2D(channels)
            self.conv2, self.bn2 = nn.Conv2D(channels, channels, 3, padding=1), nn.BatchNorm2D(channels)

        def forward(self, x):
            h = nn.functional.relu(self.bn1(self.conv1(x)))
            return nn.functional.relu(self.bn2(self.conv2(h)) + x)

    model = nn.Sequential(nn.Conv2D(3, 16, 3, padding=1), nn.BatchNorm2D(16), nn.ReLU(), Block(16), Block(16),
                          nn.AdaptiveAvgPool2D(1), nn.Flatten(), nn.Linear(16, 10))
    return model, [32, 3, 16, 16], paddle.optimizer.Momentum(learning_rate=0.05, momentum=0.9)


def _static_mlp(paddle, wrap, legacy=False, net=_mlp):
    """Build the program, run startup, load ``_init_array`` weights; ``wrap(main, loss)`` is what runs."""
    paddle.enable_static()
    try:
        with _ir(paddle, legacy):
            main, startup = paddle.static.Program(), paddle.static.Program()
            with paddle.static.program_guard(main, startup):
                model, shape, optimizer = net(paddle)
                x = paddle.static.data("x", [-1] + shape[1:], "float32")
                y = paddle.static.data("y", [-1], "int64")
                loss = paddle.nn.functional.cross_entropy(model(x), y)
                optimizer.minimize(loss)
            scope = paddle.static.Scope()
            exe = paddle.static.Executor(paddle.CPUPlace())
            exe.run(startup, scope=scope)
            for key, param in model.named_parameters():
                scope.find_var(param.name).get_tensor().set(_init_array(key, param.shape), paddle.CPUPlace())
            program = wrap(paddle, main, loss)
            xs, ys = _batch(shape, 10)
            feed = {"x": xs, "y": ys}

            def step():
                return exe.run(program, feed=feed, fetch_list=[loss], scope=scope)[0]

            first = [float(step().mean()) for _ in range(3)]
    finally:
        paddle.disable_static()

    def run(n):
        with _ir(paddle, legacy):
            paddle.enable_static()
            try:
                for _ in range(n):
                    step()
            finally:
                paddle.disable_static()
        return first
    return run


def _register(name, doc, wrap, requires=(), legacy=False, net=_mlp):
    wl = workload(name, group="static", repeats=_REPEATS, requires=_API + requires, doc=doc)(
        lambda paddle: _static_mlp(paddle, wrap, legacy, net))
    wl.backend("torch")(None)
    return wl


_register("static_mlp_adam_executor", "One Adam step of the mlp_adam_train MLP as a Program, by Executor.run",
          lambda paddle, main, loss: main)
_register("static_mlp_adam_compiled", "The same step through static.CompiledProgram(main)",
          lambda paddle, main, loss: paddle.static.CompiledProgram(main), ("static.CompiledProgram",), legacy=True)
_register("static_mlp_adam_dp2", "The same step through CompiledProgram.with_data_parallel on 2 CPU places "
          "(64 samples per place, gradients averaged)",
          lambda paddle, main, loss: paddle.static.CompiledProgram(main).with_data_parallel(
              loss_name=loss.name, places=[paddle.CPUPlace()] * 2),
          ("static.CompiledProgram.with_data_parallel",))


def _one_by_one(paddle, main, loss):
    """torchpaddle's private switch: run the grad ops one by one, as a program whose backward a pass edited (or
    one Paddle saved) runs; real Paddle always does."""
    paddle.static.executor.run_grad_ops_one_by_one(main)
    return main


_register("static_mlp_adam_executor_per_op", "The Executor.run step with its grad ops run one by one (the per-op "
          "backward; compare with static_mlp_adam_executor)", _one_by_one).backend("paddle")(None)
_register("static_resnet_momentum_executor", "One Momentum step of a small ResNet (conv, batch norm, residual adds, "
          "pooling; batch 32 of 3x16x16) as a Program, by Executor.run (the fused backward)",
          lambda paddle, main, loss: main, ("nn.Conv2D", "nn.BatchNorm2D", "optimizer.Momentum"), net=_small_resnet)
_register("static_resnet_momentum_executor_per_op", "The small-ResNet step with its grad ops run one by one (compare "
          "with static_resnet_momentum_executor)", _one_by_one, ("nn.Conv2D", "nn.BatchNorm2D", "optimizer.Momentum"),
          net=_small_resnet).backend("paddle")(None)

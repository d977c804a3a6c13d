"""fluid.install_check.run_check: train a tiny network the fluid way (a static program, then dygraph) and say
whether torchpaddle works."""
import numpy as np

__all__ = ["run_check"]


def _static_check():
    from . import Executor, CPUPlace, Program, program_guard, layers, optimizer, unique_name, core, scope_guard
    main, startup = Program(), Program()
    with program_guard(main, startup), unique_name.guard():
        x = layers.data(name="inp", shape=[2, 2], dtype="float32", append_batch_size=False)
        out = layers.fc(input=x, size=1)
        loss = layers.mean(out)
        optimizer.SGD(learning_rate=0.01).minimize(loss)
    exe = Executor(CPUPlace())
    with scope_guard(core.Scope()):
        exe.run(startup)
        first = exe.run(main, feed={"inp": np.ones([2, 2], "float32")}, fetch_list=[loss])[0]
        second = exe.run(main, feed={"inp": np.ones([2, 2], "float32")}, fetch_list=[loss])[0]
    if not np.all(np.isfinite(first)) or not float(np.asarray(second).reshape(-1)[0]) < \
            float(np.asarray(first).reshape(-1)[0]):
        raise RuntimeError("run_check: the static-graph check did not train (loss did not decrease)")


def _dygraph_check():
    from . import dygraph, optimizer
    with dygraph.guard():
        layer = dygraph.Linear(2, 1)
        opt = optimizer.SGD(learning_rate=0.01, parameter_list=layer.parameters())
        losses = []
        for _ in range(2):
            loss = layer(dygraph.to_variable(np.ones([2, 2], "float32"))).mean()
            loss.backward()
            opt.minimize(loss)
            layer.clear_gradients()
            losses.append(float(loss.numpy().reshape(-1)[0]))
    if not losses[1] < losses[0]:
        raise RuntimeError("run_check: the dygraph check did not train (loss did not decrease)")


def run_check():
    """Run both checks, whatever mode the program is in (it is restored); prints fluid's success message,
    raises RuntimeError when something is broken."""
    from ..framework import mode
    print("Running Verify Fluid Program ... ")
    static, chosen = mode.in_static_mode(), mode._ModeState.chosen
    mode.enable_static()
    try:
        _static_check()
    finally:
        (mode.enable_static if static else mode.disable_static)()
        mode._ModeState.chosen = chosen
    _dygraph_check()
    print("Your Paddle Fluid works well on SINGLE GPU or CPU.")
    print("Your Paddle Fluid is installed successfully! Let's start deep Learning with Paddle Fluid now")

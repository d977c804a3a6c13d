"""fluid.io files written by one side and read by the other: ``python -m tests.fluid.fluid_io_cases OUT.pkl
write DIR`` (or ``read DIR``) on Paddle 1.8.5 in .fluid_venv, and the same functions on torchpaddle in
test_fluid_io.py. Written for Python 3.8 and numpy<1.20."""
import os
import pickle
import sys

import numpy as np

X = np.random.RandomState(7).uniform(-1, 1, (5, 4)).astype("float32")


def _net(fluid, init=None):
    """x[None, 4] -> fc(8, relu) -> fc(3, softmax); ``init``: a Constant for every parameter (else random)."""
    attr = (lambda: fluid.ParamAttr(initializer=fluid.initializer.Constant(init))) if init is not None \
        else (lambda: None)
    x = fluid.data(name="x", shape=[None, 4], dtype="float32")
    hidden = fluid.layers.fc(x, 8, act="relu", param_attr=attr(), bias_attr=attr())
    return fluid.layers.fc(hidden, 3, act="softmax", param_attr=attr(), bias_attr=attr())


def _build(paddle, init=None, train=True):
    fluid = paddle.fluid
    main, startup = fluid.Program(), fluid.Program()
    with fluid.unique_name.guard(), fluid.program_guard(main, startup):
        pred = _net(fluid, init)
        test_program = main.clone(for_test=True)
        label = fluid.data(name="label", shape=[None, 1], dtype="int64")
        loss = fluid.layers.mean(fluid.layers.cross_entropy(pred, label))
        if train:
            fluid.optimizer.Adam(learning_rate=0.1).minimize(loss)
    return main, startup, test_program, pred, loss


def _state(scope, program):
    return {v.name: np.array(scope.find_var(v.name).get_tensor()) for v in program.list_vars()
            if v.persistable and v.name not in ("feed", "fetch")}


def write(paddle, root):
    """Train one step, then save in every 1.x layout; -> predictions and the persistables saved."""
    fluid = paddle.fluid
    main, startup, test_program, pred, loss = _build(paddle)
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        exe = fluid.Executor(fluid.CPUPlace())
        exe.run(startup)
        exe.run(main, feed={"x": X, "label": np.array([[0], [1], [2], [1], [0]], "int64")}, fetch_list=[loss])
        out = exe.run(test_program, feed={"x": X}, fetch_list=[pred])[0]
        fluid.io.save_inference_model(os.path.join(root, "inference"), ["x"], [pred], exe,
                                      main_program=test_program)
        fluid.io.save_inference_model(os.path.join(root, "inference_combined"), ["x"], [pred], exe,
                                      main_program=test_program, model_filename="model",
                                      params_filename="params")
        fluid.io.save_persistables(exe, os.path.join(root, "persistables"), main)
        fluid.io.save_params(exe, os.path.join(root, "params_combined"), main, filename="all_params")
        fluid.io.save(main, os.path.join(root, "checkpoint", "model"))
        state = _state(scope, main)
    return {"pred": out, "state": state}


def read(paddle, root):
    """Load each layout into a fresh scope; -> the predictions of each and the persistables loaded."""
    fluid = paddle.fluid
    results = {}
    for name in ("inference", "inference_combined"):
        scope = fluid.Scope()
        with fluid.scope_guard(scope):
            exe = fluid.Executor(fluid.CPUPlace())
            kwargs = {"model_filename": "model", "params_filename": "params"} if name.endswith("combined") else {}
            program, feeds, fetches = fluid.io.load_inference_model(os.path.join(root, name), exe, **kwargs)
            results[name] = [feeds, [v.name for v in fetches],
                             exe.run(program, feed={feeds[0]: X}, fetch_list=fetches)[0]]
    for name in ("persistables", "params_combined", "checkpoint"):
        main, startup, test_program, pred, loss = _build(paddle, init=0.5)
        scope = fluid.Scope()
        with fluid.scope_guard(scope):
            exe = fluid.Executor(fluid.CPUPlace())
            exe.run(startup)
            if name == "persistables":
                fluid.io.load_persistables(exe, os.path.join(root, name), main)
            elif name == "params_combined":
                fluid.io.load_params(exe, os.path.join(root, name), main, filename="all_params")
            else:
                fluid.io.load(main, os.path.join(root, name, "model"), exe)
            results[name] = [exe.run(test_program, feed={"x": X}, fetch_list=[pred])[0], _state(scope, main)]
    state = fluid.io.load_program_state(os.path.join(root, "checkpoint", "model"))
    results["program_state"] = {k: np.array(v) for k, v in state.items()}
    return results


if __name__ == "__main__":
    import paddle
    mode, root = sys.argv[2], sys.argv[3]
    with open(sys.argv[1], "wb") as f:
        pickle.dump({"results": (write if mode == "write" else read)(paddle, root)}, f)

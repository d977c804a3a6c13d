"""paddle.utils.run_check: train a tiny network once in dygraph and once as a static program, check the numbers,
and print Paddle's success lines. It uses the whole package, so it sits on top of the layers (imports are
local to the call)."""
import numpy as np

__all__ = ["run_check"]


def _data():
    return np.array([[1.0, 2.0], [3.0, 4.0]], dtype="float32")


def _check(what, value, expected):
    if not np.allclose(value, expected, rtol=1e-5, atol=1e-5):
        raise RuntimeError(f"run_check: the {what} is {np.asarray(value).tolist()}, expected "
                           f"{np.asarray(expected).tolist()}; torchpaddle is not working correctly here")


def _run_dygraph(paddle, device):
    paddle.set_device(device)
    linear = paddle.nn.Linear(2, 4, weight_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(0.5)),
                              bias_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(1.0)))
    out = paddle.sum(linear(paddle.to_tensor(_data())))
    out.backward()
    # sum over 2 rows x 4 outputs of 0.5 * (x0 + x1) + 1 = 4 * (1.5 + 3.5 + 2) = 28; d/dw = column sums
    _check("dygraph loss", out.numpy(), 28.0)
    _check("dygraph weight gradient", linear.weight.grad.numpy(), [[4.0] * 4, [6.0] * 4])
    paddle.optimizer.SGD(learning_rate=0.1, parameters=linear.parameters()).step()
    _check("updated weight", linear.weight.numpy(), [[0.1] * 4, [-0.1] * 4])


def _run_static(paddle, place):
    paddle.enable_static()
    try:
        with paddle.static.scope_guard(paddle.static.Scope()):
            main, startup = paddle.static.Program(), paddle.static.Program()
            with paddle.static.program_guard(main, startup):
                x = paddle.static.data(name="x", shape=[-1, 2], dtype="float32")
                linear = paddle.nn.Linear(2, 4, weight_attr=paddle.ParamAttr(
                    initializer=paddle.nn.initializer.Constant(0.5)))
                out = paddle.sum(linear(x))
                grads = paddle.static.append_backward(out, parameter_list=[linear.weight])
            exe = paddle.static.Executor(place)
            exe.run(startup)
            loss, grad = exe.run(main, feed={"x": _data()}, fetch_list=[out, grads[0][1]])
        # the bias starts at 0 here: 4 * (1.5 + 3.5) = 20
        _check("static loss", loss, 20.0)
        _check("static weight gradient", grad, [[4.0] * 4, [6.0] * 4])
    finally:
        paddle.disable_static()


def run_check():
    """Check that torchpaddle trains correctly on this machine (dygraph and static graph, CPU or every GPU)."""
    import torchpaddle as paddle
    print("Running verify PaddlePaddle program ... ")
    previous = paddle.get_device()
    count = paddle.device.cuda.device_count()
    device_str = "GPU" if count else "CPU"
    try:
        with paddle.utils.unique_name.guard():
            _run_static(paddle, paddle.CUDAPlace(0) if count else paddle.CPUPlace())
            _run_dygraph(paddle, "gpu:0" if count else "cpu")
            print(f"PaddlePaddle works well on 1 {device_str}.")
            if count > 1:
                for i in range(1, count):
                    _run_dygraph(paddle, f"gpu:{i}")
                print(f"PaddlePaddle works well on {count} {device_str}s.")
    finally:
        paddle.set_device(previous)
    print("PaddlePaddle is installed successfully! Let's start deep learning with PaddlePaddle now.")

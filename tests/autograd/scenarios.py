"""Autograd scenarios run on both real PaddlePaddle 3.3.1 and torchpaddle, then compared.

Each ``s_*`` function takes the paddle module and returns plain data: tensors become
``("T", values, dtype, stop_gradient)``, exceptions ``("E", [type names of the MRO])``.
Run inside the reference virtualenv: ``python -m tests.autograd.scenarios OUT.pkl``.
"""
import pickle
import sys
import warnings

import numpy as np

warnings.filterwarnings("ignore")


class Rec(tuple):
    """An already converted tensor, array or exception record."""


def _data(value):
    """Plain data, converted now (later in-place changes, e.g. clear_gradient, must not show)."""
    if isinstance(value, Rec):
        return value
    if hasattr(value, "stop_gradient") and hasattr(value, "numpy"):
        return Rec(("T", np.array(value.numpy()), str(value.dtype).replace("paddle.", ""),
                    bool(value.stop_gradient)))
    if isinstance(value, (list, tuple)):
        return [_data(v) for v in value]
    if isinstance(value, dict):
        return {k: _data(v) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        return Rec(("A", value.copy()))
    return value


def _grad(t):
    """A leaf's accumulated gradient, values only (Paddle's stop_gradient on ``.grad`` is not consistent)."""
    return None if t.grad is None else Rec(("A", np.array(t.grad.numpy())))


def _catch(fn):
    try:
        return _data(fn())
    except Exception as exc:  # noqa: BLE001 - the exception type is the result
        return Rec(("E", [c.__name__ for c in type(exc).__mro__]))


def _leaf(paddle, values, dtype="float32"):
    return paddle.to_tensor(values, dtype=dtype, stop_gradient=False)


# -- backward / grad ------------------------------------------------------------------------------------
def s_backward_nonscalar(paddle):
    x = _leaf(paddle, [1.0, 2.0, 3.0])
    (x * x).backward()
    return _grad(x)


def s_backward_accumulates(paddle):
    x = _leaf(paddle, [1.0, 2.0, 3.0])
    y = x * x * x
    y.backward(retain_graph=True)
    first = _grad(x)
    y.backward()
    return [first, _grad(x)]


def s_backward_twice_raises(paddle):
    x = _leaf(paddle, [1.0, 2.0])
    y = x * x
    y.backward()
    return _catch(lambda: y.backward())


def s_backward_grad_tensor(paddle):
    x = _leaf(paddle, [1.0, 2.0])
    (x * x).backward(paddle.to_tensor([10.0, 100.0]))
    return _grad(x)


def s_backward_stop_gradient_is_noop(paddle):
    z = paddle.to_tensor([1.0, 2.0])
    return _catch(lambda: z.backward())


def s_backward_errors(paddle):
    x = _leaf(paddle, [1.0, 2.0])
    return {
        "shape": _catch(lambda: (x * x).backward(paddle.ones([3]))),
        "not_tensor_seed": _catch(lambda: (x * x).backward([1.0, 1.0])),
        "not_tensor": _catch(lambda: paddle.autograd.backward(3)),
        "length": _catch(lambda: paddle.autograd.backward([x * x], [None, None])),
    }


def s_autograd_backward_list(paddle):
    a, b = _leaf(paddle, [1.0, 2.0]), _leaf(paddle, [3.0, 4.0])
    sg = paddle.to_tensor([5.0])
    paddle.autograd.backward([a * b, b * 2.0, sg * 2.0], [paddle.to_tensor([1.0, 10.0]), None, None])
    return [_grad(a), _grad(b)]


def s_grad_basic(paddle):
    a, b = _leaf(paddle, [1.0, 2.0]), _leaf(paddle, [3.0, 4.0])
    ga, gb = paddle.grad(a * a * b, [a, b])
    single = paddle.grad(a * a, a)
    return [ga, gb, single, a.grad is None]


def s_grad_unused(paddle):
    a, b = _leaf(paddle, [1.0, 2.0]), _leaf(paddle, [1.0, 2.0])
    sg = paddle.to_tensor([1.0])
    return {
        "raises": _catch(lambda: paddle.grad(a * 2.0, [a, b])),
        "allowed": _catch(lambda: paddle.grad(a * 2.0, [a, b], allow_unused=True)),
        "input_sg": _catch(lambda: paddle.grad(a * 2.0, [sg])),
        "input_sg_allowed": _catch(lambda: paddle.grad(a * 2.0, [a, sg], allow_unused=True)),
        "output_sg": _catch(lambda: paddle.grad(sg * 2.0, [a])),
        "output_sg_allowed": _catch(lambda: paddle.grad(sg * 2.0, [a], allow_unused=True)),
    }


def s_grad_keeps_graph(paddle):
    a = _leaf(paddle, [1.0, 2.0])
    out = a * a
    first = paddle.grad(out, a)
    second = paddle.grad(out, a, retain_graph=False)
    out.backward()
    return [first, second, _grad(a)]


def s_grad_outputs(paddle):
    a = _leaf(paddle, [1.0, 2.0])
    return {
        "list": _catch(lambda: paddle.grad(a * a, a, grad_outputs=[paddle.to_tensor([10.0, 100.0])])),
        "tensor": _catch(lambda: paddle.grad(a * a, a, grad_outputs=paddle.to_tensor([10.0, 100.0]))),
        "none": _catch(lambda: paddle.grad([a * a], a, grad_outputs=[None])),
        "length": _catch(lambda: paddle.grad(a * a, a, grad_outputs=[paddle.ones([2]), paddle.ones([2])])),
    }


def s_grad_errors(paddle):
    a = _leaf(paddle, [1.0, 2.0])
    return {
        "inputs_type": _catch(lambda: paddle.grad(a * a, 3)),
        "outputs_type": _catch(lambda: paddle.grad("x", a)),
        "inputs_empty": _catch(lambda: paddle.grad(a * a, [])),
        "outputs_empty": _catch(lambda: paddle.grad([], a)),
        "only_inputs": _catch(lambda: paddle.grad(a * a, a, only_inputs=False)),
        "duplicate": _catch(lambda: paddle.grad(a * a, [a, a])),
    }


def s_grad_no_grad_vars(paddle):
    a, b = _leaf(paddle, [1.0, 2.0]), _leaf(paddle, [3.0, 4.0])
    c = a * 3.0
    return [paddle.grad(a * b * a, a, no_grad_vars=[b]), paddle.grad(c * a, a, no_grad_vars=c)]


def s_higher_order(paddle):
    x = _leaf(paddle, [2.0])
    g1, = paddle.grad(x * x * x, x, create_graph=True)
    g2, = paddle.grad(g1, x, create_graph=True)
    g3, = paddle.grad(g2, x)
    plain, = paddle.grad(x * x * x, x)
    return [g1, g2, g3, plain]


def s_higher_order_constant(paddle):
    x = _leaf(paddle, [1.0, 2.0])
    g, = paddle.grad(x * 3.0, x, create_graph=True)
    return [g, _catch(lambda: paddle.grad(g, x)), _catch(lambda: paddle.grad(g, x, allow_unused=True))]


def s_double_backward_into_grad(paddle):
    # d/dx of (dy/dx)^2 summed, through backward(): y = x^3, g = 3x^2, sum(g^2) -> 36 x^3
    x = _leaf(paddle, [1.0, 2.0])
    g, = paddle.grad(x * x * x, x, create_graph=True)
    (g * g).sum().backward()
    return _grad(x)


# -- hooks ----------------------------------------------------------------------------------------------
def s_hooks(paddle):
    x = _leaf(paddle, [1.0, 2.0])
    handle = x.register_hook(lambda g: g * 2.0)
    (x * x).backward()
    doubled = _grad(x)
    removed = [handle.remove(), handle.remove()]
    x.clear_gradient()
    (x * x).backward()
    y = _leaf(paddle, [1.0, 2.0])
    mid = y * 3.0
    mid.register_hook(lambda g: g + 1.0)
    (mid * mid).backward()
    z = _leaf(paddle, [1.0, 2.0])
    z.register_hook(lambda g: g * 2.0)
    z.register_hook(lambda g: g + 1.0)
    (z * z).backward()
    seen = []
    w = _leaf(paddle, [1.0, 2.0])
    w.register_hook(lambda g: seen.append(g.numpy().tolist()))
    (w * 3.0).backward()
    v = _leaf(paddle, [1.0, 2.0])
    u = v * 2.0
    u.register_hook(lambda g: g * 10.0)
    return {"doubled": doubled, "removed": removed, "after": _grad(x), "mid": _grad(y),
            "order": _grad(z), "seen": seen, "w": _grad(w), "grad": paddle.grad(u * u, v),
            "sg": _catch(lambda: paddle.to_tensor([1.0]).register_hook(lambda g: g))}


# -- grad modes -----------------------------------------------------------------------------------------
def s_grad_modes(paddle):
    a = _leaf(paddle, [1.0, 2.0])
    out = {}
    with paddle.no_grad():
        out["ctx"] = [paddle.is_grad_enabled(), (a * 2.0).stop_gradient]
        with paddle.enable_grad():
            out["enable_inside"] = [paddle.is_grad_enabled(), (a * 2.0).stop_gradient]
    out["after"] = paddle.is_grad_enabled()

    @paddle.no_grad()
    def f(x):
        return x * 2.0

    def gen(x):
        for _ in range(2):
            yield [paddle.is_grad_enabled(), (x * 2.0).stop_gradient]
    out["deco"] = [f(a).stop_gradient, f.__name__]
    out["gen"] = list(paddle.no_grad()(gen)(a)) + [paddle.is_grad_enabled()]

    class M:
        @paddle.no_grad()
        def m(self, x):
            return x * 2.0
    out["method"] = M().m(a).stop_gradient

    @paddle.enable_grad()
    def g(x):
        return x * 2.0
    with paddle.no_grad():
        out["enable_deco"] = g(a).stop_gradient
    paddle.set_grad_enabled(False)
    out["set_fn"] = [paddle.is_grad_enabled(), (a * 2.0).stop_gradient]
    paddle.set_grad_enabled(True)
    with paddle.set_grad_enabled(False):
        out["set_ctx"] = paddle.is_grad_enabled()
    out["set_after"] = paddle.is_grad_enabled()
    try:
        with paddle.no_grad():
            raise KeyError("x")
    except KeyError:
        pass
    out["after_exception"] = paddle.is_grad_enabled()
    out["same_objects"] = [paddle.autograd.no_grad is paddle.no_grad, paddle.autograd.Function is paddle.autograd.PyLayer]
    return out


# -- PyLayer --------------------------------------------------------------------------------------------
def s_py_layer(paddle):
    PyLayer = paddle.autograd.PyLayer
    out = {}

    class Cube(PyLayer):
        @staticmethod
        def forward(ctx, x, power=3, scale=1.0):
            ctx.save_for_backward(x)
            ctx.power, ctx.scale = power, scale
            out["ctx_is_context"] = isinstance(ctx, paddle.autograd.PyLayerContext)
            out["forward_grad_enabled"] = paddle.is_grad_enabled()
            return x ** power * scale

        @staticmethod
        def backward(ctx, dy):
            x, = ctx.saved_tensor()
            out["backward_grad_enabled"] = paddle.is_grad_enabled()
            return dy * ctx.power * x ** (ctx.power - 1) * ctx.scale
    x = _leaf(paddle, [1.0, 2.0])
    y = Cube.apply(x, 3, scale=2.0)
    y.backward()
    out["cube"] = _data([y, _grad(x)])

    class Two(PyLayer):
        @staticmethod
        def forward(ctx, a, b):
            return a + b, a * b

        @staticmethod
        def backward(ctx, ga, gb):
            out["two_grads"] = _data([ga.numpy(), gb.numpy()])
            return ga + gb * 2.0, gb
    a, b = _leaf(paddle, [1.0, 2.0]), _leaf(paddle, [3.0, 4.0])
    s, p = Two.apply(a, b)
    s.backward()
    out["two"] = _data([s, p, _grad(a), _grad(b)])

    class NoMaterialize(PyLayer):
        @staticmethod
        def forward(ctx, a, b):
            ctx.set_materialize_grads(False)
            return a + b, a * b

        @staticmethod
        def backward(ctx, ga, gb):
            out["nomat_second_is_none"] = gb is None
            return ga, ga
    a.clear_gradient()
    NoMaterialize.apply(a, b)[0].backward()
    out["nomat"] = _data(_grad(a))

    class NonDiff(PyLayer):
        @staticmethod
        def forward(ctx, a):
            y, z = a * 2.0, a * 3.0
            ctx.mark_non_differentiable(z)
            return y, z

        @staticmethod
        def backward(ctx, gy, gz):
            out["nondiff_gz"] = _data(gz.numpy())
            return gy
    y, z = NonDiff.apply(a)
    out["nondiff_sg"] = [y.stop_gradient, z.stop_gradient]
    (y + z).backward()

    class NoneGrad(PyLayer):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, g):
            return g, None
    a.clear_gradient()
    b.clear_gradient()
    NoneGrad.apply(a, b).backward()
    out["none_grad"] = _data([_grad(a), _grad(b)])

    class KW(PyLayer):
        @staticmethod
        def forward(ctx, a, b=None):
            return a * b

        @staticmethod
        def backward(ctx, g):
            return g, g * 2.0
    a.clear_gradient()
    b.clear_gradient()
    KW.apply(a, b=b).backward()
    out["kwargs"] = _data([_grad(a), _grad(b)])

    class NoSave(PyLayer):
        @staticmethod
        def forward(ctx, a):
            return a * 2.0

        @staticmethod
        def backward(ctx, g):
            out["nosave_saved"] = _data(ctx.saved_tensor())
            return g * 2.0
    NoSave.apply(a).backward()

    class NonTensorOut(PyLayer):
        @staticmethod
        def forward(ctx, a):
            return a * 2.0, 3

        @staticmethod
        def backward(ctx, g):
            return g * 2.0
    out["non_tensor_out"] = _data(NonTensorOut.apply(a))

    class ListOut(PyLayer):
        @staticmethod
        def forward(ctx, a):
            return [a * 2.0, a * 3.0]

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 + g2
    out["list_out_type"] = type(ListOut.apply(a)).__name__

    class ListIn(PyLayer):
        @staticmethod
        def forward(ctx, xs, s):
            return xs[0] * xs[1] * s

        @staticmethod
        def backward(ctx, g):
            return [g, g * 2.0], g * 3.0
    a.clear_gradient()
    b.clear_gradient()
    ListIn.apply([a, b], b).backward()
    out["list_in"] = _data([_grad(a), _grad(b)])
    sg = paddle.to_tensor([1.0, 2.0])
    out["all_sg"] = Two.apply(sg, sg)[0].stop_gradient
    out["instance_call"] = _catch(lambda: Cube()(x))
    return out


def s_py_layer_double_backward(paddle):
    PyLayer = paddle.autograd.PyLayer

    class Square(PyLayer):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, g):
            a, = ctx.saved_tensor()
            return 2.0 * a * g
    x = _leaf(paddle, [3.0])
    g1, = paddle.grad(Square.apply(x), x, create_graph=True)
    g2, = paddle.grad(g1, x)
    return [g1, g2]


def s_py_layer_errors(paddle):
    PyLayer = paddle.autograd.PyLayer
    a, b = _leaf(paddle, [1.0, 2.0]), _leaf(paddle, [3.0, 4.0])

    def layer(backward):
        return type("L", (PyLayer,), {"forward": staticmethod(lambda ctx, x, y: x * y),
                                      "backward": staticmethod(backward)})
    sg = paddle.to_tensor([1.0, 2.0])
    return {
        "too_few": _catch(lambda: layer(lambda ctx, g: g).apply(a, b).backward()),
        "too_many": _catch(lambda: layer(lambda ctx, g: (g, g, g)).apply(a, b).backward()),
        "grad_for_sg": _catch(lambda: layer(lambda ctx, g: (g, g)).apply(a, sg).backward()),
        "too_few_sg_ok": _catch(lambda: layer(lambda ctx, g: g).apply(a, sg).backward()),
        "wrong_shape": _catch(lambda: layer(lambda ctx, g: (paddle.ones([5]), g)).apply(a, b).backward()),
    }


# -- jacobian / hessian ---------------------------------------------------------------------------------
def s_jacobian(paddle):
    J = paddle.autograd.jacobian
    x = _leaf(paddle, [1.0, 2.0, 3.0])
    jac = J(x * x, x)
    xb = _leaf(paddle, [[1.0, 2.0], [3.0, 4.0]])
    w = _leaf(paddle, [1.0, 2.0])
    return {
        "shape": jac.shape, "full": jac[:], "row": jac[1], "col": jac[:, 1], "slice": jac[0:2, 1:],
        "neg": jac[-1],
        "list_ys": [j[:] for j in J([x * x, x * 3.0], x)],
        "list_xs": [j[:] for j in J(x * x, [x, w])],
        "batched": J(xb * xb, xb, batch_axis=0)[:],
        # Paddle's J[:] here is [B, 1, N] while its J.shape says [B, N]; ours is [B, N] for both.
        "batched_ys1": J((xb * xb).sum(1), xb, batch_axis=0)[:].numpy().reshape(2, 2),
        "batched_ys1_shape": J((xb * xb).sum(1), xb, batch_axis=0).shape,
        "scalar_ys": J((x * x).sum(), x)[:],
        "unrelated": J(x * x, w)[:],
        "sg_xs": J(x * 2.0, paddle.to_tensor([1.0]))[:],
        "bad_batch_axis": _catch(lambda: J(xb * xb, xb, batch_axis=1)),
        "bad_ndim": _catch(lambda: J(xb * xb, xb)),
        "bad_ndim_batched": _catch(lambda: J(paddle.ones([2, 2, 2]) * xb, xb, batch_axis=0)),
        "index_oob": _catch(lambda: jac[5]),
    }


def s_hessian(paddle):
    H = paddle.autograd.hessian
    x = _leaf(paddle, [1.0, 2.0, 3.0])
    w = _leaf(paddle, [1.0, 2.0])
    xb = _leaf(paddle, [[1.0, 2.0, 3.0], [3.0, 4.0, 5.0]])
    h = H((x * x * x).sum(), x)
    pair = H((x * x * x).sum() + (w * w).sum() * (x * x).sum(), [x, w])
    return {
        "shape": h.shape, "full": h[:],
        "pair": [[pair[i][j][:] for j in range(2)] for i in range(2)],
        "batched": H((xb * xb * xb).sum(1), xb, batch_axis=0)[:],
        "nonscalar": _catch(lambda: H(x * x, x)),
        "batched_nonscalar": _catch(lambda: H(xb[:, :2], xb, batch_axis=0)),
    }


# -- flags ----------------------------------------------------------------------------------------------
# (FLAGS_call_stack_level is left out: the reference run sets it through the environment.)
FLAG_NAMES = ["FLAGS_use_mkldnn", "FLAGS_check_nan_inf", "FLAGS_eager_delete_tensor_gb", "FLAGS_allocator_strategy",
              "FLAGS_enable_pir_api", "FLAGS_fraction_of_gpu_memory_to_use",
              "FLAGS_benchmark", "FLAGS_check_nan_inf_level", "FLAGS_set_to_1d", "FLAGS_use_stride_kernel",
              "FLAGS_paddle_num_threads", "FLAGS_jit_engine_type", "FLAGS_memory_fraction_of_eager_deletion"]


def s_flags(paddle):
    out = {"defaults": paddle.get_flags(FLAG_NAMES)}
    out["get_str"] = paddle.get_flags("FLAGS_check_nan_inf")
    out["get_tuple"] = paddle.get_flags(("FLAGS_check_nan_inf", "FLAGS_use_mkldnn"))
    out["get_empty"] = paddle.get_flags([])
    checks = []
    for name, value in [("FLAGS_check_nan_inf", True), ("FLAGS_check_nan_inf", 0), ("FLAGS_check_nan_inf", 2.5),
                        ("FLAGS_eager_delete_tensor_gb", 2), ("FLAGS_eager_delete_tensor_gb", 1.5),
                        ("FLAGS_call_stack_level", True), ("FLAGS_call_stack_level", 2),
                        ("FLAGS_allocator_strategy", "naive_best_fit")]:
        paddle.set_flags({name: value})
        got = paddle.get_flags(name)[name]
        checks.append([name, got, type(got).__name__])
    out["set"] = checks
    out["errors"] = {
        "unknown_get": _catch(lambda: paddle.get_flags("FLAGS_no_such_flag")),
        "unknown_in_list": _catch(lambda: paddle.get_flags(["FLAGS_no_such_flag"])),
        "no_prefix": _catch(lambda: paddle.get_flags("check_nan_inf")),
        "get_type": _catch(lambda: paddle.get_flags(3)),
        "unknown_set": _catch(lambda: paddle.set_flags({"FLAGS_no_such_flag": 1})),
        "set_type": _catch(lambda: paddle.set_flags([("FLAGS_check_nan_inf", True)])),
        "bool_from_str": _catch(lambda: paddle.set_flags({"FLAGS_check_nan_inf": "true"})),
        "float_from_str": _catch(lambda: paddle.set_flags({"FLAGS_eager_delete_tensor_gb": "1.5"})),
        "str_from_int": _catch(lambda: paddle.set_flags({"FLAGS_allocator_strategy": 3})),
        "int_from_float": _catch(lambda: paddle.set_flags({"FLAGS_call_stack_level": 2.7})),
    }
    paddle.set_flags({"FLAGS_check_nan_inf": False, "FLAGS_eager_delete_tensor_gb": 0.0,
                      "FLAGS_call_stack_level": 1, "FLAGS_allocator_strategy": "auto_growth"})
    out["restored"] = paddle.get_flags(["FLAGS_check_nan_inf", "FLAGS_allocator_strategy"])
    return out


SCENARIOS = {name[2:]: fn for name, fn in sorted(globals().items()) if name.startswith("s_")}


def run_all(paddle):
    results = {}
    for name, fn in SCENARIOS.items():
        paddle.set_grad_enabled(True)
        results[name] = _catch(lambda: fn(paddle))
    return results


def main(path):
    import paddle
    from tests.autograd import scenarios  # records must pickle under the module's importable name
    with open(path, "wb") as f:
        pickle.dump({"version": paddle.__version__, "results": scenarios.run_all(paddle)}, f)


if __name__ == "__main__":
    main(sys.argv[1])

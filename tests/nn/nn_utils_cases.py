"""paddle.nn.utils cases (weight_norm, spectral_norm, parameters <-> vector, gradient clipping), run on real
PaddlePaddle 3.3.1 (``python -m tests.nn.nn_utils_cases OUT.pkl``) and on torchpaddle by
tests/nn/test_nn_utils.py."""
import sys

import numpy as np

from tests.nn.layer_case_tools import catch, dump, fill_state, grad_of, record, state_summary


def _state(layer):
    """state_summary without the global tensor-counter names of buffers (eager_tmp_N in Paddle)."""
    return [row[:3] + [None if row[3].startswith(("eager_tmp", "generated_tensor")) else row[3]] + row[4:]
            for row in map(list, state_summary(layer))]


def _buffers(layer):
    return [(k, list(v.shape)) for k, v in layer.named_buffers()] + \
        [("non_persistable", sorted(layer._non_persistable_buffer_names_set))]


def _run(paddle, layer, shape, rng):
    x = paddle.to_tensor(rng.uniform(-1, 1, shape).astype("float32"), stop_gradient=False)
    out = layer(x)
    (out * paddle.to_tensor(rng.uniform(-1, 1, list(out.shape)).astype("float32"))).sum().backward()
    result = {"out": record(out), "x_grad": grad_of(x),
              "param_grads": {n: grad_of(p) for n, p in layer.named_parameters()}}
    layer.clear_gradients()
    return result


WEIGHT_NORM = {
    "linear_dim0": (lambda nn: nn.Linear(3, 4), {}, (2, 3)),
    "linear_dim1": (lambda nn: nn.Linear(3, 4), {"dim": 1}, (2, 3)),
    "linear_dim_none": (lambda nn: nn.Linear(3, 4), {"dim": None}, (2, 3)),
    "linear_dim_neg": (lambda nn: nn.Linear(3, 4), {"dim": -2}, (2, 3)),
    "conv_dim0": (lambda nn: nn.Conv2D(2, 3, 3), {}, (1, 2, 5, 5)),
    "conv_dim2": (lambda nn: nn.Conv2D(2, 3, 3), {"dim": 2}, (1, 2, 5, 5)),
    "conv_bias": (lambda nn: nn.Conv2D(2, 3, 3), {"name": "bias"}, (1, 2, 5, 5)),
}


def weight_norm_case(paddle, name):
    make, kwargs, shape = WEIGHT_NORM[name]
    rng = np.random.default_rng(len(name))
    with paddle.utils.unique_name.guard():
        layer = make(paddle.nn)
        fill_state(layer, rng)
        before = {k: record(v) for k, v in layer.state_dict().items()}
        ret = paddle.nn.utils.weight_norm(layer, **kwargs)
        result = {"returns_layer": ret is layer, "state": state_summary(layer), "buffers": _buffers(layer),
                  "values": {k: record(v) for k, v in layer.state_dict().items()}, "before": before}
        result["run"] = _run(paddle, layer, shape, rng)
        result["run2"] = _run(paddle, layer, shape, rng)
        paddle.nn.utils.remove_weight_norm(layer, kwargs.get("name", "weight"))
        result["removed_state"] = state_summary(layer)
        result["removed_values"] = {k: record(v) for k, v in layer.state_dict().items()}
        result["removed_run"] = _run(paddle, layer, shape, rng)
        return result


def c_weight_norm_errors(paddle):
    nn = paddle.nn
    with paddle.utils.unique_name.guard():
        twice = nn.utils.weight_norm(nn.Conv2D(2, 2, 1))
        return {"twice": catch(lambda: nn.utils.weight_norm(twice)),
                "bad_dim": catch(lambda: nn.utils.weight_norm(nn.Conv2D(2, 2, 1), dim=4)),
                "bad_dim_low": catch(lambda: nn.utils.weight_norm(nn.Conv2D(2, 2, 1), dim=-5)),
                "missing_name": catch(lambda: nn.utils.weight_norm(nn.Conv2D(2, 2, 1), name="nope")),
                "remove_without": catch(lambda: nn.utils.remove_weight_norm(nn.Conv2D(2, 2, 1))),
                "remove_other_name": catch(lambda: nn.utils.remove_weight_norm(twice, name="bias"))}


SPECTRAL = {
    "linear": (lambda nn: nn.Linear(4, 3), {}, (2, 4)),
    "linear_dim0_iters": (lambda nn: nn.Linear(4, 3), {"dim": 0, "n_power_iterations": 3}, (2, 4)),
    "conv": (lambda nn: nn.Conv2D(2, 3, 3), {"eps": 1e-6}, (1, 2, 4, 4)),
    "conv_dim1": (lambda nn: nn.Conv2D(2, 3, 3), {"dim": 1}, (1, 2, 4, 4)),
    "conv_transpose": (lambda nn: nn.Conv2DTranspose(2, 3, 2), {}, (1, 2, 3, 3)),
}


def spectral_case(paddle, name):
    make, kwargs, shape = SPECTRAL[name]
    rng = np.random.default_rng(len(name) + 100)
    with paddle.utils.unique_name.guard():
        layer = make(paddle.nn)
        ret = paddle.nn.utils.spectral_norm(layer, **kwargs)
        result = {"returns_layer": ret is layer, "state": _state(layer), "buffers": _buffers(layer),
                  "u_norm": round(float(np.linalg.norm(layer.weight_u.numpy())), 5),
                  "v_norm": round(float(np.linalg.norm(layer.weight_v.numpy())), 5)}
        fill_state(layer, rng)
        result["train1"] = _run(paddle, layer, shape, rng)
        result["u_after1"] = record(layer.weight_u)
        result["train2"] = _run(paddle, layer, shape, rng)
        result["v_after2"] = record(layer.weight_v)
        layer.eval()
        result["eval"] = _run(paddle, layer, shape, rng)
        result["u_after_eval"] = record(layer.weight_u)
        result["weight"] = record(layer.weight)
        return result


def c_spectral_errors(paddle):
    nn = paddle.nn
    with paddle.utils.unique_name.guard():
        twice = nn.utils.spectral_norm(nn.Conv2D(2, 2, 1))
        return {"twice": catch(lambda: nn.utils.spectral_norm(twice)),
                "iterations": catch(lambda: nn.utils.spectral_norm(nn.Conv2D(2, 2, 1), n_power_iterations=0)),
                "missing_name": catch(lambda: nn.utils.spectral_norm(nn.Conv2D(2, 2, 1), name="nope"))}


def c_parameters_to_vector(paddle):
    nn = paddle.nn
    with paddle.utils.unique_name.guard():
        maker = nn.Layer()
        params = [maker.create_parameter(s, default_initializer=nn.initializer.Assign(
            np.arange(np.prod(s), dtype="float32").reshape(s) + i * 10)) for i, s in enumerate([[2, 3], [4], [1, 2]])]
        vec = nn.utils.parameters_to_vector(params)
        out = {"vec": vec, "shapes_kept": [list(p.shape) for p in params], "names": [p.name for p in params]}
        nn.utils.vector_to_parameters(paddle.to_tensor(np.arange(12, dtype="float32") * -1), params)
        out["back"] = [record(p) for p in params]
        nn.utils.vector_to_parameters(paddle.to_tensor(np.arange(15, dtype="float32")), params)
        out["longer"] = [record(p) for p in params]
        out["shorter"] = catch(lambda: nn.utils.vector_to_parameters(paddle.ones([5]), params))
        out["not_1d"] = catch(lambda: nn.utils.vector_to_parameters(paddle.ones([3, 4]), params))
        out["still_params"] = [(not p.stop_gradient, p.name) for p in params]
        return out


def _grads(paddle, values):
    """Parameters whose gradients are exactly ``values`` (loss = sum(p * g))."""
    with paddle.utils.unique_name.guard():
        maker = paddle.nn.Layer()
        params = [maker.create_parameter(list(np.shape(v))) for v in values]
    loss = None
    for p, v in zip(params, values):
        term = (p * paddle.to_tensor(np.asarray(v, "float32"))).sum()
        loss = term if loss is None else loss + term
    loss.backward()
    return params


def c_clip_grad_norm(paddle):
    clip = paddle.nn.utils.clip_grad_norm_
    values = [[[3.0, -4.0], [1.0, 0.0]], [2.0, -0.5, 0.0]]
    out = {}
    for key, kwargs in (("l2", {"max_norm": 1.0}), ("l2_large", {"max_norm": 100.0}),
                        ("l1", {"max_norm": 2.0, "norm_type": 1}),
                        ("inf", {"max_norm": 1.5, "norm_type": float("inf")}), ("l0", {"max_norm": 3.0, "norm_type": 0})):
        params = _grads(paddle, values)
        total = clip(params, **kwargs)
        out[key] = {"total": total, "grads": [grad_of(p) for p in params]}
    single = _grads(paddle, [[3.0, 4.0]])
    out["single_tensor"] = (clip(single[0], 2.5), grad_of(single[0]))
    with paddle.utils.unique_name.guard():
        no_grad = [paddle.nn.Layer().create_parameter([2])]
    out["no_grads"] = clip(no_grad, 1.0)
    out["bad_norm_type"] = catch(lambda: clip(_grads(paddle, values), 1.0, norm_type=3))
    inf_params = _grads(paddle, [[float("inf"), 1.0]])
    out["nonfinite"] = catch(lambda: clip(inf_params, 1.0, error_if_nonfinite=True))
    return out


def c_clip_grad_value(paddle):
    params = _grads(paddle, [[[3.0, -4.0], [0.5, 0.0]], [2.0, -0.25]])
    ret = paddle.nn.utils.clip_grad_value_(params, 1.0)
    single = _grads(paddle, [[-3.0, 0.1]])
    paddle.nn.utils.clip_grad_value_(single[0], 0.5)
    return {"ret": ret, "grads": [grad_of(p) for p in params], "single": grad_of(single[0])}


CASES = {f"weight_norm_{n}": (lambda paddle, n=n: weight_norm_case(paddle, n)) for n in WEIGHT_NORM}
CASES.update({f"spectral_{n}": (lambda paddle, n=n: spectral_case(paddle, n)) for n in SPECTRAL})
CASES.update({name[2:]: fn for name, fn in sorted(globals().items()) if name.startswith("c_")})


if __name__ == "__main__":
    dump(CASES, sys.argv[1])

"""Helpers for layer cases that run on both real PaddlePaddle 3.3.1 and torchpaddle, then get compared.

A case is ``fn(paddle) -> plain data``. Tensors become ``("T", values, dtype, stop_gradient)``, arrays
``("A", values)``, loose statistics ``("S", values)`` and exceptions ``("E", [MRO type names])``.
A cases module runs in the reference venv as ``python -m tests.nn.<module> OUT.pkl``; it must import only
NumPy at module level.
"""
import pickle
import warnings

import numpy as np

warnings.filterwarnings("ignore")


def stable_seed(text):
    value = 0
    for ch in text:
        value = (value * 131 + ord(ch)) % (2 ** 31)
    return value


def record(value):
    if isinstance(value, tuple) and value and isinstance(value[0], str) and value[0] in ("T", "A", "S", "E"):
        return value
    if hasattr(value, "stop_gradient") and hasattr(value, "numpy"):
        return ("T", np.array(value.numpy()), str(value.dtype).replace("paddle.", ""), bool(value.stop_gradient))
    if isinstance(value, (list, tuple)):
        return [record(v) for v in value]
    if isinstance(value, dict):
        return {k: record(v) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        return ("A", value.copy())
    return value


def catch(fn):
    try:
        return record(fn())
    except Exception as exc:  # noqa: BLE001 - the exception type is the result
        return ("E", [c.__name__ for c in type(exc).__mro__])


def grad_of(t):
    return None if t.grad is None else ("A", np.array(t.grad.numpy()))


def state_summary(layer):
    """Keys, shapes, dtypes, Paddle names and stop_gradient of the state_dict, in order."""
    return [(k, list(v.shape), str(v.dtype).replace("paddle.", ""), v.name, bool(v.stop_gradient))
            for k, v in layer.state_dict().items()]


def fill_state(layer, rng):
    """Give every state_dict entry seeded values (variances positive) via set_state_dict."""
    values = {}
    for key, value in layer.state_dict().items():
        shape = list(value.shape)
        if key.endswith("_variance"):
            values[key] = rng.uniform(0.5, 2.0, shape).astype("float32")
        else:
            values[key] = rng.uniform(-1.0, 1.0, shape).astype(str(value.dtype).replace("paddle.", ""))
    missing, unexpected = layer.set_state_dict(values)
    assert not missing and not unexpected, (missing, unexpected)


def forward_backward(paddle, layer, x_data, rng, **kwargs):
    """One forward with a weighted-sum loss; returns output, input grad and trainable parameter grads."""
    x = paddle.to_tensor(x_data, stop_gradient=False)
    out = layer(x, **kwargs)
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    float_outs = [o for o in outs if "float" in str(o.dtype)]
    loss = None
    for o in float_outs:
        term = (o * paddle.to_tensor(rng.uniform(-1, 1, list(o.shape)).astype(str(o.dtype).split(".")[-1]))).sum()
        loss = term if loss is None else loss + term
    result = {"out": record(out)}
    if loss is not None and not loss.stop_gradient:
        loss.backward()
        result["x_grad"] = grad_of(x)
        params = layer.named_parameters() if hasattr(layer, "named_parameters") else []
        result["param_grads"] = {n: grad_of(p) for n, p in params if not p.stop_gradient}
    return result


def layer_case(paddle, name, make, shapes, train_steps=0, eval_after=False, forward_kwargs=None, dtype="float32"):
    """Build, load seeded weights, run forward/backward on each input; optionally switch to eval at the end."""
    rng = np.random.default_rng(stable_seed(name))
    with paddle.utils.unique_name.guard():
        layer = make(paddle.nn)
    result = {"repr": str(layer), "state": state_summary(layer)}
    fill_state(layer, rng)
    runs = []
    for i, shape in enumerate(shapes):
        if eval_after and i == len(shapes) - 1:
            layer.eval()
        x_data = rng.uniform(-2, 2, shape).astype(dtype)
        runs.append(forward_backward(paddle, layer, x_data, rng, **(forward_kwargs or {})))
        runs[-1]["state_after"] = {k: record(v) for k, v in layer.state_dict().items()}
        layer.clear_gradients()
    result["runs"] = runs
    result["repr_after"] = str(layer)
    return result


def init_stats(paddle, make):
    """Of each freshly initialised parameter: mean/std, std and mean(|x|)/std (0.80 normal, 0.87 uniform), or
    the mean alone for a constant. Compared loosely, since the random streams differ; use >= 4000 elements."""
    paddle.seed(1234)
    with paddle.utils.unique_name.guard():
        layer = make(paddle.nn)
    out = {}
    for key, value in layer.state_dict().items():
        a = np.array(value.numpy(), dtype=np.float64)
        std = a.std()
        out[key] = ("S", np.array([a.mean() / std, std, np.abs(a).mean() / std] if std > 0 else [a.mean(), 0, 0]))
    return out


def run_cases(cases, paddle):
    results = {}
    for name, fn in cases.items():
        results[name] = catch(lambda: fn(paddle))
    return results


def dump(cases, path):
    import paddle
    with open(path, "wb") as f:
        pickle.dump({"version": paddle.__version__, "results": run_cases(cases, paddle)}, f)


def compare(ours, theirs, where, rtol=1e-5, atol=1e-5):
    """Assert that two recorded results match (values closely, everything else exactly)."""
    if isinstance(theirs, tuple) and theirs and theirs[0] in ("T", "A", "S", "E"):
        assert isinstance(ours, tuple) and ours and ours[0] == theirs[0], f"{where}: ours {ours!r}, Paddle {theirs!r}"
        if theirs[0] == "E":
            assert theirs[1][0] in ours[1], f"{where}: Paddle raises {theirs[1][0]}, ours {ours[1]}"
            return
        if theirs[0] == "S":
            # statistics of random initialisations: same distribution, different draws
            np.testing.assert_allclose(ours[1], theirs[1], rtol=0.05, atol=0.05, err_msg=where)
            return
        assert np.asarray(ours[1]).shape == np.asarray(theirs[1]).shape, \
            f"{where}: shape ours {np.asarray(ours[1]).shape}, Paddle {np.asarray(theirs[1]).shape}"
        np.testing.assert_allclose(ours[1], theirs[1], rtol=rtol, atol=atol, err_msg=where)
        if theirs[0] == "T":
            assert ours[2:] == theirs[2:], f"{where}: (dtype, stop_gradient) ours {ours[2:]}, Paddle {theirs[2:]}"
    elif isinstance(theirs, dict):
        assert isinstance(ours, dict) and sorted(ours) == sorted(theirs), \
            f"{where}: keys ours {sorted(ours) if isinstance(ours, dict) else ours!r}, Paddle {sorted(theirs)}"
        for key in theirs:
            compare(ours[key], theirs[key], f"{where}.{key}", rtol, atol)
    elif isinstance(theirs, (list, tuple)):
        assert isinstance(ours, (list, tuple)) and len(ours) == len(theirs), f"{where}: {ours!r} vs {theirs!r}"
        for i, (o, t) in enumerate(zip(ours, theirs)):
            compare(o, t, f"{where}[{i}]", rtol, atol)
    else:
        assert ours == theirs, f"{where}: ours {ours!r}, Paddle {theirs!r}"


def split_fields(result, fields):
    """(a layer_case result without the given per-run fields, those fields alone): lets a test compare the rest
    of a case while a known gap in, say, one gradient is tracked separately."""
    if not isinstance(result, dict) or "runs" not in result:
        return result, []
    kept = dict(result, runs=[{k: v for k, v in run.items() if k not in fields} for run in result["runs"]])
    return kept, [{k: run[k] for k in fields if k in run} for run in result["runs"]]

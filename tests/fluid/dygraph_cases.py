"""fluid.dygraph cases run on PaddlePaddle 1.8.5 (``python -m tests.fluid.dygraph_cases OUT.pkl DIR``, in
.fluid_venv) and on torchpaddle.fluid by tests/fluid/test_fluid_dygraph.py. A case is ``fn(fluid, folder)`` ->
plain data; only NumPy is imported at module level and the code runs on Python 3.8 with NumPy < 1.20.
``folder`` holds files written by the other side (save_dygraph interchange)."""
import os
import pickle
import sys

import numpy as np

CASES = {}


def _dtype(value):
    # 1.8 prints VarType.FP32, torchpaddle paddle.float32
    text = str(value.dtype)
    names = {"VarType.FP32": "float32", "VarType.FP64": "float64", "VarType.INT64": "int64",
             "VarType.INT32": "int32", "VarType.BOOL": "bool"}
    return names.get(text, text.replace("paddle.", ""))


def rec(value):
    if hasattr(value, "stop_gradient") and hasattr(value, "numpy"):
        return ("T", np.array(value.numpy()), _dtype(value), bool(value.stop_gradient))
    if isinstance(value, (list, tuple)):
        return [rec(v) for v in value]
    if isinstance(value, dict):
        return dict((k, rec(v)) for k, v in value.items())
    if isinstance(value, np.ndarray):
        return ("A", value.copy())
    return value


def catch(fn):
    try:
        return rec(fn())
    except Exception as exc:  # noqa: BLE001 - the exception type is the result
        return ("E", [c.__name__ for c in type(exc).__mro__])


def _seed(text):
    value = 0
    for ch in text:
        value = (value * 131 + ord(ch)) % (2 ** 31)
    return value


def _grad(t):
    g = t.gradient()
    return None if g is None else ("A", np.array(g))


def layer_run(fluid, name, make, shapes, evaluate=False, int_input=None, skip=(), loss_outputs=None):
    """Build the layer in a guard, give its state seeded values, run forward + a weighted-sum backward."""
    rng = np.random.RandomState(_seed(name))
    with fluid.dygraph.guard():
        layer = make(fluid.dygraph)
        state = layer.state_dict()
        summary = [(k, list(v.shape), v.name) for k, v in state.items()]
        values = {}
        for key, v in state.items():
            low = 0.5 if key.endswith("_variance") else -1.0
            values[key] = rng.uniform(low, 1.0, list(v.shape)).astype("float32")
        if values:
            layer.set_dict(values)
        if evaluate:
            layer.eval()
        inputs = []
        for shape in shapes:
            if int_input is not None:
                data = rng.randint(0, int_input, shape).astype("int64")
                inputs.append(fluid.dygraph.to_variable(data))
            else:
                x = fluid.dygraph.to_variable(rng.uniform(-2, 2, shape).astype("float32"))
                x.stop_gradient = False
                inputs.append(x)
        out = layer(*inputs)
        if evaluate:
            # fluid 1.8's eval() also stops gradient recording everywhere: compare values only
            return {"state": summary, "out": [("A", np.array(o.numpy())) for o in (
                list(out) if isinstance(out, (list, tuple)) else [out])]}
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        loss = None
        for o in outs[:loss_outputs]:
            w = fluid.dygraph.to_variable(rng.uniform(-1, 1, list(o.shape)).astype("float32"))
            term = fluid.layers.reduce_sum(o * w) if hasattr(fluid.layers, "reduce_sum") else (o * w).sum()
            loss = term if loss is None else loss + term
        loss.backward()
        result = {"state": summary, "out": rec(outs),
                  "param_grads": dict((p.name, _grad(p)) for p in layer.parameters() if not p.stop_gradient)}
        # fluid 1.8's own gradients are wrong for some layers (finite differences disagree): not compared
        for key in skip:
            result.pop(key)
        if int_input is None and "x_grads" not in skip:
            result["x_grads"] = [_grad(x) for x in inputs]
        return result


def fluid_attr(D):
    import sys as _sys
    return _sys.modules[D.__name__.rsplit(".", 1)[0]].ParamAttr()


def _layer(name, make, shapes, **kw):
    CASES["layer_" + name] = lambda fluid, folder: layer_run(fluid, name, make, shapes, **kw)


_layer("linear", lambda D: D.Linear(4, 3, act="relu"), [[2, 4]])
_layer("linear_3d", lambda D: D.Linear(4, 3, act="tanh"), [[2, 5, 4]])
_layer("linear_nobias", lambda D: D.Linear(4, 3, bias_attr=False), [[2, 4]])
_layer("conv2d", lambda D: D.Conv2D(2, 4, 3, padding=1, act="sigmoid"), [[2, 2, 5, 5]])
_layer("conv2d_stride_groups", lambda D: D.Conv2D(4, 6, [3, 2], stride=2, groups=2), [[1, 4, 7, 6]])
_layer("conv3d", lambda D: D.Conv3D(2, 3, 2), [[1, 2, 3, 4, 4]])
_layer("conv2d_transpose", lambda D: D.Conv2DTranspose(2, 3, 3, stride=2, padding=1), [[1, 2, 3, 3]])
_layer("conv3d_transpose", lambda D: D.Conv3DTranspose(2, 3, 2), [[1, 2, 2, 3, 3]])
_layer("pool2d_max", lambda D: D.Pool2D(2, "max", 2), [[2, 3, 5, 5]])
_layer("pool2d_avg_default_stride", lambda D: D.Pool2D(3, "avg"), [[1, 2, 5, 5]])
_layer("pool2d_avg_pad_exclusive", lambda D: D.Pool2D(3, "avg", 2, 1), [[1, 2, 6, 6]])
_layer("pool2d_avg_pad_inclusive", lambda D: D.Pool2D(3, "avg", 2, 1, exclusive=False), [[1, 2, 6, 6]])
_layer("pool2d_global", lambda D: D.Pool2D(pool_type="avg", global_pooling=True), [[2, 3, 4, 4]])
_layer("pool2d_ceil", lambda D: D.Pool2D(2, "max", 2, ceil_mode=True), [[1, 1, 5, 5]])
_layer("batch_norm_train", lambda D: D.BatchNorm(3, act="relu"), [[4, 3, 2, 2]])
_layer("batch_norm_is_test", lambda D: D.BatchNorm(3, is_test=True), [[4, 3, 2, 2]])
_layer("batch_norm_eval", lambda D: D.BatchNorm(3), [[4, 3, 2, 2]], evaluate=True)
_layer("embedding", lambda D: D.Embedding(size=[10, 4]), [[3, 2]], int_input=10)
_layer("embedding_padding", lambda D: D.Embedding(size=[6, 3], padding_idx=-1), [[4, 3]], int_input=6)
_layer("layer_norm", lambda D: D.LayerNorm([2, 3]), [[4, 2, 3]])
_layer("layer_norm_noshift", lambda D: D.LayerNorm(3, shift=False, act="relu"), [[4, 3]])
_layer("prelu_all", lambda D: D.PRelu("all"), [[2, 3, 2, 2]])
_layer("prelu_channel", lambda D: D.PRelu("channel", channel=3), [[2, 3, 2, 2]])
_layer("prelu_element", lambda D: D.PRelu("element", input_shape=[2, 3, 2, 2]), [[2, 3, 2, 2]])
_layer("bilinear", lambda D: D.BilinearTensorProduct(3, 2, 4, act="sigmoid"), [[5, 3], [5, 2]])
_layer("group_norm", lambda D: D.GroupNorm(4, 2), [[2, 4, 3, 3]], skip=("x_grads",))
_layer("group_norm_affine", lambda D: D.GroupNorm(4, 2, param_attr=fluid_attr(D), bias_attr=fluid_attr(D)),
       [[2, 4, 3, 3]])
_layer("instance_norm", lambda D: D.InstanceNorm(3), [[2, 3, 4, 4]])
_layer("spectral_norm", lambda D: D.SpectralNorm([3, 4], power_iters=3), [[3, 4]])
# fluid 1.8 back-propagates only from the new hidden state (gate and reset_hidden_prev are intermediates)
_layer("gru_unit", lambda D: D.GRUUnit(9), [[4, 9], [4, 3]], loss_outputs=1)
_layer("gru_unit_relu", lambda D: D.GRUUnit(6, activation="relu", gate_activation="tanh"), [[2, 6], [2, 2]],
       loss_outputs=1)
_layer("dropout_eval", lambda D: D.Dropout(0.3), [[3, 4]], evaluate=True)
_layer("dropout_upscale_eval", lambda D: D.Dropout(0.3, dropout_implementation="upscale_in_train"), [[3, 4]],
       evaluate=True)
_layer("sequential", lambda D: D.Sequential(D.Linear(3, 4, act="relu"), D.Linear(4, 2)), [[2, 3]])


# a padded edge list (a 0 pair ends it) leaves the rows of unused nodes undefined in fluid's batched kernel
# (stale memory), so only a batch of one tree is padded here
TREES = {"full": [[[1, 2], [1, 3], [1, 4], [2, 5], [5, 6], [3, 7]], [[1, 2], [2, 3], [3, 4], [4, 5], [1, 6], [1, 7]]],
         "padded": [[[1, 2], [1, 3], [1, 4], [2, 5], [5, 6], [0, 0]]]}


def _tree_conv(act, max_depth, trees):
    def case(fluid, folder):
        rng = np.random.RandomState(_seed("tree_conv" + str(act) + str(max_depth)))
        edges = np.array(TREES[trees], "int32")
        with fluid.dygraph.guard():
            layer = fluid.dygraph.TreeConv(3, 2, num_filters=2, max_depth=max_depth, act=act)
            layer.set_dict({"weight": rng.uniform(-1, 1, [3, 3, 2, 2]).astype("float32")})
            x = fluid.dygraph.to_variable(rng.uniform(-1, 1, [len(edges), 7, 3]).astype("float32"))
            x.stop_gradient = False
            out = layer(x, fluid.dygraph.to_variable(edges))
            w = fluid.dygraph.to_variable(rng.uniform(-1, 1, list(out.shape)).astype("float32"))
            fluid.layers.reduce_sum(out * w).backward()
            # no x gradient: fluid 1.8's is wrong once output_size * num_filters > 1 (finite differences disagree;
            # test_fluid_dygraph checks ours against them)
            # rows of nodes beyond the edge list are stale memory in fluid (zeros here): compare the tree's rows
            used = 6 if trees == "padded" else 7
            return {"state": [(k, list(v.shape), v.name) for k, v in layer.state_dict().items()],
                    "out": ("A", np.array(out.numpy())[:, :used]), "w_grad": _grad(layer.weight)}
    return case


CASES["tree_conv_linear_depth2"] = _tree_conv(None, 2, "full")
CASES["tree_conv_tanh_depth3"] = _tree_conv("tanh", 3, "full")
CASES["tree_conv_padded_depth3"] = _tree_conv(None, 3, "padded")


def _errors(fluid, folder):
    out = {}
    with fluid.dygraph.guard():
        D = fluid.dygraph
        out["pool_type"] = catch(lambda: D.Pool2D(2, "min"))
        out["pool_size_missing"] = catch(lambda: D.Pool2D())
        out["prelu_mode"] = catch(lambda: D.PRelu("row"))
        out["dropout_impl"] = catch(lambda: D.Dropout(0.5, dropout_implementation="x"))
        out["load_missing"] = catch(lambda: D.load_dygraph(os.path.join(folder, "no_such_file")))
        out["step_decay_type"] = catch(lambda: D.StepDecay(0.1, 2.5))
        out["multistep_order"] = catch(lambda: D.MultiStepDecay(0.1, [3, 2]))
        out["plateau_mode"] = catch(lambda: D.ReduceLROnPlateau(0.1, mode="avg"))
        out["warmup_order"] = catch(lambda: D.LinearLrWarmup(0.1, 3, 0.5, 0.1))
    return out


CASES["errors"] = _errors


def _value(v):
    return float(np.array(v.numpy() if hasattr(v, "numpy") else v).reshape(-1)[0])


def _decays(fluid, folder):
    out = {}
    with fluid.dygraph.guard():
        D = fluid.dygraph
        step_decays = {
            "piecewise": lambda: D.PiecewiseDecay([2, 4], [0.3, 0.2, 0.1], 0),
            "natural_exp": lambda: D.NaturalExpDecay(0.5, 2, 0.3),
            "natural_exp_stair": lambda: D.NaturalExpDecay(0.5, 2, 0.3, staircase=True),
            "exponential": lambda: D.ExponentialDecay(0.5, 3, 0.5, begin=1, step=2),
            "inverse_time": lambda: D.InverseTimeDecay(0.5, 2, 0.5, staircase=True),
            "polynomial": lambda: D.PolynomialDecay(0.5, 4, end_learning_rate=0.01, power=2.0),
            "polynomial_cycle": lambda: D.PolynomialDecay(0.5, 3, cycle=True),
            "cosine": lambda: D.CosineDecay(0.4, 2, 5),
            "noam": lambda: D.NoamDecay(16, 3),
            "warmup": lambda: D.LinearLrWarmup(0.5, 3, 0.1, 0.4),
            "warmup_decay": lambda: D.LinearLrWarmup(D.ExponentialDecay(0.5, 2, 0.5), 3, 0.0, 0.3),
        }
        for name, make in step_decays.items():
            decay = make()
            out[name] = [_value(decay()) for _ in range(8)] + [decay.state_dict()]
        for name, make in {"step": lambda: D.StepDecay(0.5, 2, 0.5),
                           "multistep": lambda: D.MultiStepDecay(0.5, [1, 3], 0.2),
                           "lambda": lambda: D.LambdaDecay(0.5, lambda e: 0.9 ** e)}.items():
            decay = make()
            values = []
            for _ in range(5):
                values.append(_value(decay()))
                decay.epoch()
            out[name] = values
        plateau = D.ReduceLROnPlateau(1.0, patience=1, decay_rate=0.5, cooldown=1)
        values = []
        for loss in [3.0, 2.0, 2.5, 2.4, 2.6, 1.0, 1.5, 1.6, 1.7]:
            plateau.step(D.to_variable(np.array([loss], "float32")))
            values.append(_value(plateau()))
        out["plateau"] = values
    return out


CASES["decays"] = _decays


def _train_with_decay(fluid, folder):
    """SGD with a step decay: fluid advances the decay once per minimize."""
    with fluid.dygraph.guard():
        D = fluid.dygraph
        layer = D.Linear(3, 2)
        layer.set_dict({"weight": np.arange(6, dtype="float32").reshape(3, 2) / 10,
                        "bias": np.array([0.1, -0.2], "float32")})
        decay = D.PiecewiseDecay([2, 3], [0.5, 0.1, 0.01], 0)
        opt = fluid.optimizer.SGD(learning_rate=decay, parameter_list=layer.parameters())
        x = D.to_variable(np.array([[1.0, 2.0, -1.0], [0.5, 0.0, 1.0]], "float32"))
        weights = []
        for _ in range(4):
            loss = fluid.layers.reduce_mean(layer(x) * layer(x))
            loss.backward()
            opt.minimize(loss)
            layer.clear_gradients()
            weights.append(layer.weight.numpy().copy())
        return weights


CASES["train_with_decay"] = _train_with_decay


def _misc(fluid, folder):
    out = {}
    with fluid.dygraph.guard():
        D = fluid.dygraph
        out["in_guard"] = fluid.in_dygraph_mode()
        x = D.to_variable(np.array([1.5, 2.0], "float64"))
        out["to_variable"] = rec(x)
        y = D.to_variable(np.array([[1, 2]], "int64"))
        out["to_variable_int"] = rec(y)
        lin = D.Linear(2, 2)
        with D.no_grad():
            z = lin(x.astype("float32"))
        out["no_grad_stop"] = bool(z.stop_gradient)
        out["full_name"] = [lin.full_name(), D.Linear(2, 2).full_name(), D.Conv2D(1, 1, 1).full_name()]
        seq = D.Sequential(D.Linear(2, 3), D.Linear(3, 1))
        out["sequential_state"] = [(k, v.name) for k, v in seq.state_dict().items()]
        layers = D.LayerList([D.Linear(2, 2) for _ in range(2)])
        out["layer_list_params"] = [p.name for p in layers.parameters()]
    with fluid.dygraph.guard():
        out["names_restart"] = D.Linear(2, 2).weight.name
    return out


CASES["misc"] = _misc


def _state_of(params):
    return dict((k, ("A", np.asarray(v)) if isinstance(v, np.ndarray) else v) for k, v in params.items())


def _save_load(fluid, folder):
    """Save here, load here, and load what the other side saved in ``folder`` (``other.pdparams``)."""
    out = {}
    with fluid.dygraph.guard():
        D = fluid.dygraph
        layer = D.Linear(3, 2)
        layer.set_dict({"weight": np.arange(6, dtype="float32").reshape(3, 2),
                        "bias": np.array([1.0, 2.0], "float32")})
        bn = D.BatchNorm(2)
        state = layer.state_dict()
        state.update(dict(("bn_" + k, v) for k, v in bn.state_dict().items()))
        prefix = os.path.join(folder, "mine")
        D.save_dygraph(state, prefix)
        D.save_dygraph({"global_step": 3, "moment": np.ones([2], "float32")}, prefix)
        params, opt = D.load_dygraph(prefix)
        out["own"] = [_state_of(params), _state_of(opt)]
        out["own_names"] = _state_of(D.load_dygraph(prefix + ".pdparams", keep_name_table=True)[0])
        other = os.path.join(folder, "other")
        if os.path.exists(other + ".pdparams"):
            params, opt = D.load_dygraph(other, keep_name_table=True)
            out["other"] = [_state_of(params), opt if opt is None else _state_of(opt)]
            fresh = D.Linear(3, 2)
            fresh.set_dict(dict((k, v) for k, v in params.items() if not k.startswith("bn_") and "@@" not in k))
            out["other_applied"] = rec(fresh.weight)
        with open(prefix + ".pdparams", "rb") as f:
            raw = pickle.load(f)
        out["raw_keys"] = sorted(raw)
    return out


CASES["save_load"] = _save_load


def _traced(fluid, folder):
    """TracedLayer.save_inference_model here; load what the other side saved (``traced_other``) and run it."""
    D = fluid.dygraph
    x = np.arange(12, dtype="float32").reshape(4, 3) / 10
    out = {}
    with D.guard():
        layer = D.Linear(3, 2, act="tanh")
        layer.set_dict({"weight": np.arange(6, dtype="float32").reshape(3, 2) / 5,
                        "bias": np.array([0.5, -0.5], "float32")})
        dy_out, traced = D.TracedLayer.trace(layer, inputs=[D.to_variable(x)])
        out["dygraph"] = rec(dy_out)
        out["traced"] = rec(traced([D.to_variable(x)]))
        traced.save_inference_model(os.path.join(folder, "traced_mine"))
    out["files"] = sorted(os.listdir(os.path.join(folder, "traced_mine")))
    other = os.path.join(folder, "traced_other")
    if os.path.isdir(other):
        exe = fluid.Executor(fluid.CPUPlace())
        with fluid.scope_guard(fluid.core.Scope()):
            program, feeds, fetches = fluid.io.load_inference_model(other, exe)
            out["other"] = ("A", np.array(exe.run(program, feed={feeds[0]: x}, fetch_list=fetches)[0]))
    return out


CASES["traced"] = _traced


def run_all(fluid, folder):
    # "traced" first: after a GroupNorm without scale/bias has run, Paddle 1.8.5 can no longer parse loaded
    # programs ("`type` to initialized an Operator can not be None")
    order = ["traced"] + [name for name in CASES if name != "traced"]
    return dict((name, catch(lambda fn=CASES[name]: fn(fluid, folder))) for name in order)


if __name__ == "__main__":
    import paddle.fluid as _fluid
    _result = run_all(_fluid, sys.argv[2])
    with open(sys.argv[1], "wb") as _f:
        pickle.dump({"results": _result}, _f, protocol=2)

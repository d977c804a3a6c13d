"""nn.Layer contract cases (naming, create_parameter, buffers, traversal, state_dict, hooks, modes, casting,
repr, lookups), run on real PaddlePaddle 3.3.1 (``python -m tests.nn.layer_contract_cases OUT.pkl``) and on
torchpaddle by tests/nn/test_layer_contract.py. Each case is ``fn(paddle) -> plain data``."""
import copy
import sys
import warnings

import numpy as np

from tests.nn.layer_case_tools import catch, dump, grad_of, record


def _net(paddle):
    """Parameters, a persistable and a non-persistable buffer, a Tensor attribute and two sublayers."""
    nn = paddle.nn

    class Block(nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 4)
            self.register_buffer("steps", paddle.to_tensor(np.array([1, 2], "int64")))

        def forward(self, x):
            return self.fc(x)

    class MyNet(nn.Layer):
        def __init__(self):
            super().__init__()
            self.scale = self.create_parameter([4], default_initializer=nn.initializer.Constant(2.0))
            self.shift = self.create_parameter([4], is_bias=True)
            self.register_buffer("mean", paddle.to_tensor(np.arange(4, dtype="float32")))
            self.register_buffer("cache", paddle.to_tensor(np.ones(2, "float32")), persistable=False)
            self.tmp = paddle.to_tensor(np.zeros(3, "float32"))
            self.block = Block()
            self.head = nn.Linear(4, 2)

        def forward(self, x):
            return self.head(self.block(x) * self.scale + self.shift)

    return MyNet()


def _summary(layer):
    return [(k, list(v.shape), str(v.dtype).replace("paddle.", ""), v.name, bool(v.stop_gradient))
            for k, v in layer.state_dict().items()]


def _names(pairs):
    return [name for name, _ in pairs]


def _errors(paddle, fns):
    return {key: catch(fn) for key, fn in fns.items()}


# -- naming and create_parameter -------------------------------------------------------------------------
def c_full_names(paddle):
    nn = paddle.nn
    with paddle.utils.unique_name.guard():
        class Net2D(nn.Layer):
            pass

        class PReLUBlock(nn.Layer):
            pass

        class HTTPServer(nn.Layer):
            pass

        layers = [nn.Layer(), nn.Layer(), nn.Layer("abc"), nn.Layer("abc"), Net2D(), PReLUBlock(), HTTPServer(),
                  nn.Linear(2, 2), nn.Linear(2, 2, name="custom")]
        return [layer.full_name() for layer in layers]


def c_create_parameter_names(paddle):
    nn = paddle.nn
    with paddle.utils.unique_name.guard():
        layer = nn.Layer()
        ps = [layer.create_parameter([2]), layer.create_parameter([2], is_bias=True), layer.create_parameter([3]),
              layer.create_parameter([2], attr="named"), layer.create_parameter([2], attr=paddle.ParamAttr(name="pa")),
              layer.create_parameter([2], attr="")]
        none = layer.create_parameter([2], attr=False)
        lin = nn.Linear(2, 3)
        return {"names": [p.name for p in ps], "none": none is None, "linear": _summary(lin),
                "in_parameters": len(layer.parameters())}


def c_create_parameter_attrs(paddle):
    nn = paddle.nn
    with paddle.utils.unique_name.guard():
        layer = nn.Layer()
        attr = paddle.ParamAttr(learning_rate=0.5, trainable=False, need_clip=False,
                                initializer=nn.initializer.Constant(1.5))
        p = layer.create_parameter([2, 3], attr=attr)
        q = layer.create_parameter([2], attr=nn.initializer.Constant(-1.0))
        decay = paddle.regularizer.L2Decay(0.25)
        r = layer.create_parameter([2], attr=paddle.ParamAttr(regularizer=decay, do_model_average=False))
        s = layer.create_parameter([2], attr=decay)
        return {"attr_name_untouched": attr.name, "name": p.name, "optimize_attr": p.optimize_attr,
                "trainable": p.trainable, "stop_gradient": p.stop_gradient, "need_clip": p.need_clip,
                "persistable": p.persistable, "regularizer": p.regularizer, "p": p, "q": q,
                "q_trainable": q.trainable, "regularizers": [str(r.regularizer), str(s.regularizer)],
                "do_model_average": [p.do_model_average, r.do_model_average], "q_type": type(q).__name__ in ("Parameter", "EagerParamBase")}


def c_create_parameter_dtypes(paddle):
    nn = paddle.nn
    with paddle.utils.unique_name.guard():
        layer = nn.Layer(dtype="float64")
        out = {"default": str(layer.create_parameter([2]).dtype),
               "f64": str(layer.create_parameter([2], dtype="float64").dtype),
               "f16": str(layer.create_parameter([2], dtype="float16").dtype),
               "int_const": layer.create_parameter([2], dtype="int32", default_initializer=nn.initializer.Constant(3))}
        out.update(_errors(paddle, {
            "int_default": lambda: layer.create_parameter([2], dtype="int32"),
            "negative_dim": lambda: layer.create_parameter([2, -1]),
            "bad_attr": lambda: layer.create_parameter([2], attr=3),
        }))
        paddle.set_default_dtype("float64")
        try:
            out["global_default"] = [str(layer.create_parameter([2]).dtype), str(nn.Linear(2, 2).weight.dtype),
                                     str(nn.Linear(2, 2)._dtype)]
        finally:
            paddle.set_default_dtype("float32")
        return out


def c_duplicate_parameter_name(paddle):
    nn = paddle.nn
    with paddle.utils.unique_name.guard():
        nn.Linear(2, 2, weight_attr=paddle.ParamAttr(name="dup_w"))
        first = catch(lambda: nn.Linear(2, 2, weight_attr=paddle.ParamAttr(name="dup_w")))
    with paddle.utils.unique_name.guard():
        fresh = catch(lambda: nn.Linear(2, 2, weight_attr=paddle.ParamAttr(name="dup_w")).weight.name)
    return {"duplicate": first, "after_guard": fresh}


def c_initializer_priority(paddle):
    nn, init = paddle.nn, paddle.nn.initializer
    with paddle.utils.unique_name.guard():
        layer = nn.Layer()
        out = {"attr_over_default": layer.create_parameter([2], attr=init.Constant(1.0),
                                                           default_initializer=init.Constant(2.0)),
               "default": layer.create_parameter([2], default_initializer=init.Constant(2.0)),
               "bias_default": layer.create_parameter([3], is_bias=True)}
        init.set_global_initializer(init.Constant(5.0), init.Constant(6.0))
        try:
            out["global_over_default"] = layer.create_parameter([2], default_initializer=init.Constant(2.0))
            out["attr_over_global"] = layer.create_parameter([2], attr=init.Constant(1.0))
            out["global_bias"] = layer.create_parameter([2], is_bias=True)
            out["prelu"] = nn.PReLU()._weight
            lin = nn.Linear(2, 2)
            out["linear"] = [lin.weight, lin.bias]
        finally:
            init.set_global_initializer(None)
        out["restored_bias"] = nn.Linear(2, 2).bias
        return out


def c_default_initializer_stats(paddle):
    """Default weight initializer (XavierUniform) statistics over a large parameter; bias zero."""
    paddle.seed(7)
    with paddle.utils.unique_name.guard():
        layer = paddle.nn.Layer()
        w = np.array(layer.create_parameter([300, 200]).numpy(), dtype=np.float64)
        limit = np.sqrt(6.0 / 500)
        return {"inside": bool(np.abs(w).max() <= limit + 1e-7),
                "S": ("S", np.array([w.mean() / limit * 10, w.std() / limit, np.abs(w).max() / limit]))}


# -- buffers, attributes and registration errors ----------------------------------------------------------
def c_buffers_and_state(paddle):
    with paddle.utils.unique_name.guard():
        net = _net(paddle)
        return {"state": [(k, list(v.shape)) for k, v in net.state_dict().items()],
                "names": [v.name for k, v in net.state_dict().items() if "." not in k and k in ("scale", "shift")],
                "buffers": _names(net.named_buffers()),
                "non_persistable": sorted(net._non_persistable_buffer_names_set),
                "to_static": list(net.to_static_state_dict()),
                "buffer_types": [type(b).__name__ in ("Tensor",) for b in net.buffers()],
                "params": _names(net.named_parameters())}


def c_attribute_assignment(paddle):
    nn = paddle.nn
    with paddle.utils.unique_name.guard():
        net = _net(paddle)
        net.tmp = paddle.to_tensor(np.ones(5, "float32"))
        net.mean = paddle.to_tensor(np.ones(4, "float32") * 3)
        out = {"tmp": net.tmp, "mean_in_state": "mean" in net.state_dict(), "mean": net.state_dict()["mean"]}
        net.cache = None
        out["cache_none"] = [k for k, _ in net.named_buffers()]
        net.extra_param = net.create_parameter([1])
        net.extra_layer = nn.ReLU()
        out["extra"] = (_names(net.named_parameters()), _names(net.named_children()))
        net.extra_layer = None
        out["extra_layer_none"] = (_names(net.named_children()), net.extra_layer is None)
        del net.extra_param
        del net.tmp
        out["deleted"] = (_names(net.named_parameters()), _names(net.named_buffers()),
                          sorted(net._non_persistable_buffer_names_set))
        out.update(_errors(paddle, {
            "param_slot_tensor": lambda: setattr(net, "scale", paddle.ones([4])),
            "param_slot_int": lambda: setattr(net, "shift", 3),
            "layer_slot_int": lambda: setattr(net, "head", 3),
            "buffer_slot_int": lambda: setattr(net, "mean", 3),
        }))
        net.scale = None
        out["param_none"] = _names(net.named_parameters())
        return out


def c_registration_errors(paddle):
    nn = paddle.nn
    with paddle.utils.unique_name.guard():
        net = _net(paddle)
        w = nn.Linear(1, 1).weight
        return _errors(paddle, {
            "buffer_ndarray": lambda: net.register_buffer("b", np.ones(2)),
            "buffer_parameter": lambda: net.register_buffer("b", w),
            "buffer_dotted": lambda: net.register_buffer("a.b", paddle.ones([1])),
            "buffer_empty": lambda: net.register_buffer("", paddle.ones([1])),
            "buffer_existing_attr": lambda: net.register_buffer("training", paddle.ones([1])),
            "buffer_name_int": lambda: net.register_buffer(3, paddle.ones([1])),
            "buffer_none_ok": lambda: (net.register_buffer("nothing", None), _names(net.named_buffers()))[1],
            "buffer_reregister": lambda: (net.register_buffer("mean", paddle.ones([4]), persistable=False),
                                          list(net.state_dict()))[1],
            "param_dotted": lambda: net.add_parameter("a.b", w),
            "param_empty": lambda: net.add_parameter("", w),
            "param_tensor": lambda: net.add_parameter("z", paddle.ones([1])),
            "param_existing_attr": lambda: net.add_parameter("training", w),
            "param_name_int": lambda: net.add_parameter(1, w),
            "param_ok": lambda: (net.add_parameter("added", w), _names(net.named_parameters()))[1],
            "sublayer_int": lambda: net.add_sublayer("x", 3),
            "sublayer_ok": lambda: type(net.add_sublayer("relu", nn.ReLU())).__name__,
        })


# -- traversal ---------------------------------------------------------------------------------------------
def c_traversal(paddle):
    with paddle.utils.unique_name.guard():
        net = _net(paddle)
        return {"parameters": [p.name for p in net.parameters()],
                "parameters_local": [p.name for p in net.parameters(include_sublayers=False)],
                "named_parameters_prefix": _names(net.named_parameters(prefix="model")),
                "named_parameters_local": _names(net.named_parameters(include_sublayers=False)),
                "named_buffers_prefix": _names(net.named_buffers(prefix="m")),
                "buffers_local": len(net.buffers(include_sublayers=False)),
                "sublayers": [type(s).__name__ for s in net.sublayers()],
                "sublayers_self": [type(s).__name__ for s in net.sublayers(include_self=True)],
                "named_sublayers": _names(net.named_sublayers()),
                "named_sublayers_prefix_self": _names(net.named_sublayers(prefix="p", include_self=True)),
                "children": [type(c).__name__ for c in net.children()],
                "named_children": _names(net.named_children()),
                "named_modules": _names(net.named_modules()),
                "modules": len(list(net.modules()))}


def c_shared_layers(paddle):
    nn = paddle.nn
    with paddle.utils.unique_name.guard():
        shared = nn.Linear(2, 2)
        seq = nn.Sequential(shared, nn.ReLU(), shared)
        seq.tied = shared.weight
        return {"named_sublayers": _names(seq.named_sublayers()),
                "named_sublayers_all": _names(seq.named_sublayers(remove_duplicate=False)),
                "named_parameters": _names(seq.named_parameters()),
                "named_parameters_all": _names(seq.named_parameters(remove_duplicate=False)),
                "n_parameters": len(seq.parameters()),
                "state_dict": list(seq.state_dict()),
                "children": _names(seq.named_children())}


def c_lookup(paddle):
    nn = paddle.nn
    with paddle.utils.unique_name.guard():
        net = _net(paddle)
        out = {"get_sublayer": type(net.get_sublayer("block.fc")).__name__,
               "get_sublayer_self": net.get_sublayer("") is net,
               "get_parameter": net.get_parameter("block.fc.weight").name,
               "get_buffer": net.get_buffer("block.steps")}
        net.set_sublayer("block.fc", nn.Linear(3, 4))
        out["set_sublayer"] = _names(net.named_parameters())
        out.update(_errors(paddle, {
            "get_sublayer_missing": lambda: net.get_sublayer("block.nope"),
            "get_sublayer_not_layer": lambda: net.get_sublayer("scale"),
            "get_parameter_missing": lambda: net.get_parameter("block.nope"),
            "get_buffer_not_buffer": lambda: net.get_buffer("scale"),
            "set_sublayer_empty": lambda: net.set_sublayer("", nn.ReLU()),
            "set_sublayer_not_layer": lambda: net.set_sublayer("head", 3),
            "set_sublayer_strict": lambda: net.set_sublayer("nope", nn.ReLU(), strict=True),
        }))
        return out


# -- state_dict / set_state_dict -----------------------------------------------------------------------------
def c_state_dict_forms(paddle):
    with paddle.utils.unique_name.guard():
        net = _net(paddle)
        sd = net.state_dict()
        torch_style = net.state_dict(prefix="p.")
        detached = net.state_dict(keep_vars=False)
        dest = {"already": 1}
        net.state_dict(destination=dest)
        return {"type": type(sd).__name__, "identity": sd["scale"] is net.scale,
                "prefix": list(net.state_dict(structured_name_prefix="model.")),
                "local": list(net.state_dict(include_sublayers=False)),
                "torch_style": list(torch_style), "torch_style_identity": torch_style["p.scale"] is net.scale,
                "torch_style_sg": torch_style["p.scale"].stop_gradient,
                "detached_identity": detached["scale"] is net.scale, "detached_sg": detached["scale"].stop_gradient,
                "detached_values": detached["scale"],
                "destination": list(dest)}


def c_state_dict_hook(paddle):
    with paddle.utils.unique_name.guard():
        net = _net(paddle)
        seen = []

        def hook(state):
            seen.append(len(state))
            state["added_by_hook"] = paddle.ones([1])

        handle = net.block.register_state_dict_hook(hook)
        keys = list(net.state_dict())
        no_hook = list(net.state_dict(use_hook=False))
        handle.remove()
        return {"keys": keys, "seen": seen, "no_hook": no_hook, "removed": list(net.state_dict())}


def c_set_state_dict(paddle):
    with paddle.utils.unique_name.guard():
        net = _net(paddle)
        rng = np.random.default_rng(0)
        values = {k: rng.uniform(-1, 1, list(v.shape)).astype(str(v.dtype).replace("paddle.", ""))
                  for k, v in net.state_dict().items()}
        values["head.weight"] = paddle.to_tensor(values["head.weight"])
        values["unknown"] = np.ones(2, "float32")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = net.set_state_dict(values)
        out = {"result": result, "state": {k: record(v) for k, v in net.state_dict().items()},
               "type": type(result).__name__}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            partial = net.set_state_dict({"scale": np.ones([5], "float32"), "shift": np.ones([4], "float32"),
                                          "extra": np.ones(1)})
        out["partial"] = partial
        out["n_warnings"] = len(caught)
        out["scale_kept"] = net.scale
        by_name = {net.head.bias.name: np.full([2], 7.0, "float32"), "head.weight": np.zeros([4, 2], "float32")}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            missing, unexpected = net.set_state_dict(by_name, use_structured_name=False)
        # buffers are named by a global tensor counter: keep only the parameter names
        out["unstructured"] = ([k for k in missing if not k.startswith(("generated_tensor", "eager_tmp"))],
                               unexpected)
        out["head_bias"] = net.head.bias
        out["set_dict_alias"] = net.set_dict is not None and net.load_dict is not None
        out.update(_errors(paddle, {
            "dtype_mismatch": lambda: net.set_state_dict({"scale": np.ones([4], "float64")}),
            "not_a_dict": lambda: net.set_state_dict([1, 2]),
        }))
        return out


def c_load_state_dict(paddle):
    with paddle.utils.unique_name.guard():
        lin = paddle.nn.Linear(2, 3)
        full = {"weight": np.ones([2, 3], "float32"), "bias": np.ones([3], "float32")}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return {"ok": repr(lin.load_state_dict(full)),
                    "non_strict": list(lin.load_state_dict({"weight": full["weight"], "x": full["bias"]},
                                                           strict=False)),
                    "strict": catch(lambda: lin.load_state_dict({"weight": full["weight"]})),
                    "weight": lin.weight}


# -- forward hooks ---------------------------------------------------------------------------------------------
def c_hooks(paddle):
    with paddle.utils.unique_name.guard():
        lin = paddle.nn.Linear(2, 2, weight_attr=paddle.nn.initializer.Constant(1.0))
        x = paddle.to_tensor(np.array([[1.0, 2.0]], "float32"))
        log = []

        def pre_double(layer, inputs):
            log.append(("pre", type(inputs).__name__, len(inputs)))
            return inputs[0] * 2

        def pre_tuple(layer, inputs):
            log.append(("pre_tuple",))
            return (inputs[0] + 1,)

        def post_add(layer, inputs, output):
            log.append(("post", float(inputs[0].sum())))
            return output + 100

        def post_none(layer, inputs, output):
            log.append(("post_none",))

        h1 = lin.register_forward_pre_hook(pre_double)
        h2 = lin.register_forward_pre_hook(pre_tuple)
        h3 = lin.register_forward_post_hook(post_add)
        h4 = lin.register_forward_post_hook(post_none)
        out = {"both": lin(x)}
        h1.remove()
        out["one_pre"] = lin(x)
        h1.remove()
        h2.remove(), h3.remove(), h4.remove()
        out["none"] = lin(x)
        out["forward_direct"] = lin.forward(x)
        h5 = lin.register_forward_pre_hook(pre_double)
        lin.register_forward_pre_hook(pre_tuple, prepend=True)
        out["prepend"] = lin(x)
        h5.remove()
        out["log"] = log
        return out


def c_hooks_with_kwargs(paddle):
    nn = paddle.nn

    class Scale(nn.Layer):
        def forward(self, x, factor=1.0):
            return x * factor

    with paddle.utils.unique_name.guard():
        layer = Scale()
        x = paddle.to_tensor(np.array([1.0, 2.0], "float32"))
        seen = []

        def pre(layer, args, kwargs):
            seen.append(sorted(kwargs))
            return args, {"factor": kwargs.get("factor", 1.0) * 10}

        def post(layer, args, kwargs, output):
            seen.append(("post", sorted(kwargs)))
            return output - 1

        layer.register_forward_pre_hook(pre, with_kwargs=True)
        layer.register_forward_post_hook(post, with_kwargs=True)
        out = {"kw": layer(x, factor=2.0), "positional": layer(x)}

        def bad(layer, args, kwargs):
            return 3

        layer.register_forward_pre_hook(bad, with_kwargs=True)
        out["bad_return"] = catch(lambda: layer(x))
        out["seen"] = seen
        return out


def c_hooks_always_call(paddle):
    nn = paddle.nn

    class Boom(nn.Layer):
        def forward(self, x):
            raise ValueError("boom")

    with paddle.utils.unique_name.guard():
        layer = Boom()
        calls = []
        layer.register_forward_post_hook(lambda l, i, o: calls.append("always"), always_call=True)
        layer.register_forward_post_hook(lambda l, i, o: calls.append("normal"))
        err = catch(lambda: layer(paddle.ones([1])))
        return {"error": err, "calls": calls}


# -- modes, gradients, apply -------------------------------------------------------------------------------------
def c_modes(paddle):
    nn = paddle.nn
    with paddle.utils.unique_name.guard():
        seq = nn.Sequential(nn.Linear(1, 1), nn.Sequential(nn.Dropout(), nn.ReLU()))
        out = {}
        seq.eval()
        out["eval"] = [l.training for l in seq.sublayers(include_self=True)]
        out["eval_returns_self"] = seq.eval() is seq
        seq.train()
        out["train"] = [l.training for l in seq.sublayers(include_self=True)]
        seq[1].train(False)
        out["partial"] = [l.training for l in seq.sublayers(include_self=True)]
        out["train_int"] = catch(lambda: seq.train(1))
        visited = []
        ret = seq.apply(lambda l: visited.append(type(l).__name__))
        out["apply"] = visited
        out["apply_returns_self"] = ret is seq
        return out


def c_gradients(paddle):
    with paddle.utils.unique_name.guard():
        lin = paddle.nn.Linear(2, 2, weight_attr=paddle.nn.initializer.Constant(1.0))
        x = paddle.to_tensor(np.array([[1.0, 2.0]], "float32"))
        out = {}
        lin(x).sum().backward()
        out["grad"] = grad_of(lin.weight)  # recorded now: clear_gradients zeroes the same storage
        lin.clear_gradients()
        out["cleared_zero"] = grad_of(lin.weight)
        lin(x).sum().backward()
        lin.clear_gradients(set_to_zero=False)
        out["cleared_none"] = lin.weight.grad is None
        lin(x).sum().backward()
        lin.zero_grad()
        out["zero_grad"] = lin.weight.grad is None
        lin(x).sum().backward()
        lin.zero_grad(set_to_none=False)
        out["zero_grad_keep"] = grad_of(lin.weight)
        lin.requires_grad_(False)
        out["requires_grad_false"] = [p.stop_gradient for p in lin.parameters()]
        lin.requires_grad_()
        out["requires_grad_true"] = [p.stop_gradient for p in lin.parameters()]
        return out


# -- conversion ---------------------------------------------------------------------------------------------------
def _dtypes(net):
    return {k: str(v.dtype).replace("paddle.", "") for k, v in net.named_parameters()} | \
        {k: str(v.dtype).replace("paddle.", "") for k, v in net.named_buffers()}


def c_to_dtype(paddle):
    with paddle.utils.unique_name.guard():
        net = _net(paddle)
        weight, mean = net.head.weight, net.mean
        ret = net.to(dtype="float64")
        out = {"dtypes": _dtypes(net), "returns_self": ret is net, "same_param": net.head.weight is weight,
               "same_buffer": net.mean is mean, "still_param": net.head.weight.stop_gradient,
               "layer_dtype": str(net._dtype), "forward": net(paddle.ones([1, 3], dtype="float64")).shape}
        net2 = _net(paddle)
        net2.to("cpu")
        out["to_cpu"] = _dtypes(net2)
        out["noop"] = net2.to() is net2
        return out


def c_cast_helpers(paddle):
    with paddle.utils.unique_name.guard():
        out = {}
        net = _net(paddle)
        net.double()
        out["double"] = _dtypes(net)
        net.float()
        out["float_after_double"] = _dtypes(net)
        out.update(_errors(paddle, {
            "to_bad_device": lambda: net.to(device=3),
            "to_bad_dtype": lambda: net.to(dtype="foo"),
            "astype_bad": lambda: net.astype("foo"),
            "float_bad_excluded": lambda: net.float(excluded_layers=3),
        }))
        return out


# -- printing, misc ---------------------------------------------------------------------------------------------
def c_repr(paddle):
    nn = paddle.nn

    class Multi(nn.Layer):
        def extra_repr(self):
            return "a=1\nb=2"

    class Single(nn.Layer):
        def extra_repr(self):
            return "k=3"

    with paddle.utils.unique_name.guard():
        m = Multi()
        out = {"multi": repr(m), "single": repr(Single()), "plain": repr(nn.Layer())}
        m.sub = Single()
        out["multi_sub"] = repr(m)
        s = Single()
        s.child = nn.Sequential(nn.Linear(1, 2), nn.ReLU())
        s.add_sublayer("none", None)
        out["single_sub_none"] = repr(s)
        out["net"] = repr(_net(paddle))
        out["str_is_repr"] = str(s) == repr(s)
        return out


def c_misc(paddle):
    nn = paddle.nn
    with paddle.utils.unique_name.guard():
        net = _net(paddle)
        rng = np.random.default_rng(3)
        net.set_state_dict({k: rng.uniform(-1, 1, list(v.shape)).astype(str(v.dtype).replace("paddle.", ""))
                            for k, v in net.state_dict().items()})
        names = dir(net)
        out = {"dir": [n for n in ("scale", "mean", "block", "forward") if n in names],
               "forward_missing": catch(lambda: nn.Layer()(paddle.ones([1]))),
               "backward": catch(lambda: nn.Layer().backward()),
               "missing_attr": catch(lambda: net.no_such_thing),
               "training_default": nn.Layer().training}
        copied = copy.deepcopy(net)
        out["deepcopy_state"] = {k: record(v) for k, v in copied.state_dict().items()}
        out["deepcopy_distinct"] = copied.head.weight is not net.head.weight
        out["deepcopy_names"] = [p.name.split("_deepcopy")[0] + ("_deepcopy" in p.name) * "_deepcopy"
                                 for p in copied.parameters()]
        out["deepcopy_full_name"] = copied.full_name() == net.full_name()
        out["deepcopy_training"] = copied.training
        return out


CASES = {name[2:]: fn for name, fn in sorted(globals().items()) if name.startswith("c_")}


if __name__ == "__main__":
    dump(CASES, sys.argv[1])

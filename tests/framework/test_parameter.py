"""Parameter (Paddle's EagerParamBase): attributes, trainable/stop_gradient, copies, repr, and the defaults
compared with real PaddlePaddle 3.3.1."""
import copy
import io
import json
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import torchpaddle as paddle
import paddle_ref
from torchpaddle.framework.parameter import EagerParamBase, Parameter, create_parameter_from


def _defaults(p):
    return {"type_is_tensor": isinstance(p, paddle.Tensor), "trainable": p.trainable,
            "stop_gradient": p.stop_gradient, "persistable": p.persistable, "optimize_attr": p.optimize_attr,
            "regularizer": p.regularizer, "need_clip": p.need_clip, "is_distributed": p.is_distributed,
            "do_model_average": p.do_model_average, "shape": list(p.shape), "dtype": str(p.dtype),
            "name": p.name, "is_leaf": p.is_leaf}


def test_defaults():
    p = Parameter([2, 3], "float32", name="fc_0.w_0")
    assert EagerParamBase is Parameter and paddle.Parameter is Parameter
    assert _defaults(p) == {"type_is_tensor": True, "trainable": True, "stop_gradient": False, "persistable": True,
                            "optimize_attr": {"learning_rate": 1.0}, "regularizer": None, "need_clip": True,
                            "is_distributed": False, "do_model_average": None, "shape": [2, 3],
                            "dtype": "paddle.float32", "name": "fc_0.w_0", "is_leaf": True}
    assert Parameter([2], "float64").name.startswith("_eager_param_base_")
    assert Parameter([2], "float32").optimize_attr is not Parameter([2], "float32").optimize_attr


_REFERENCE = """
import json, paddle
from paddle.base.framework import EagerParamBase
p = EagerParamBase([2, 3], "float32", name="fc_0.w_0")
q = EagerParamBase.from_tensor(paddle.ones([2]), name="q", trainable=False)
out = {}
for key, x in (("p", p), ("q", q)):
    out[key] = {"type_is_tensor": isinstance(x, paddle.Tensor), "trainable": x.trainable,
                "stop_gradient": x.stop_gradient, "persistable": x.persistable, "optimize_attr": x.optimize_attr,
                "regularizer": x.regularizer, "need_clip": x.need_clip, "is_distributed": x.is_distributed,
                "do_model_average": x.do_model_average, "shape": list(x.shape), "dtype": str(x.dtype),
                "name": x.name, "is_leaf": x.is_leaf}
print(json.dumps(out))
"""


@pytest.mark.conformance
def test_defaults_match_real_paddle():
    if not paddle_ref.available():
        pytest.skip(f"reference PaddlePaddle venv not found at {paddle_ref.PYTHON}")
    proc = subprocess.run([paddle_ref.PYTHON, "-c", _REFERENCE], capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, GLOG_minloglevel="3"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    theirs = json.loads(proc.stdout.strip().splitlines()[-1])
    ours = {"p": _defaults(Parameter([2, 3], "float32", name="fc_0.w_0")),
            "q": _defaults(Parameter.from_tensor(paddle.to_tensor(np.ones(2, np.float32)), name="q",
                                                 trainable=False))}
    assert ours == theirs


def test_trainable_and_stop_gradient_are_linked():
    p = Parameter([2], "float32")
    p.trainable = False
    assert p.stop_gradient and not p._t.requires_grad
    p.stop_gradient = False
    assert p.trainable and p._t.requires_grad
    for bad in (1, "yes", None):
        with pytest.raises(ValueError, match="trainable MUST be bool"):
            p.trainable = bad
    q = Parameter([2], "int64")  # Paddle lets integer parameters be trainable
    assert q.trainable and not q.stop_gradient


def test_constructor_errors():
    with pytest.raises(ValueError, match="dtype"):
        Parameter([2], None)
    with pytest.raises(ValueError, match="shape"):
        Parameter(shape=None, dtype="float32")
    with pytest.raises(ValueError, match=r"\[2, -1\]"):
        Parameter([2, -1], "float32")
    with pytest.raises(TypeError):
        Parameter([2], "not-a-dtype")
    with pytest.raises(TypeError):
        Parameter(np.ones(2))


def test_tensor_form_shares_storage():
    src = paddle.to_tensor(np.ones(3, np.float32))
    p = Parameter(src, name="shared")
    src[0] = 5.0
    assert p.numpy().tolist() == [5.0, 1.0, 1.0] and p.name == "shared" and not p.stop_gradient
    q = Parameter.from_tensor(src, trainable=False, need_clip=False)
    assert q.stop_gradient and q.need_clip is False and q.numpy()[0] == 5.0
    assert Parameter(src, False).stop_gradient


def test_ops_return_plain_tensors_and_gradients_flow():
    p = Parameter.from_tensor(paddle.to_tensor(np.array([1.0, 2.0], np.float32)))
    y = p * 3.0
    assert type(y) is paddle.Tensor and not y.persistable and not y.stop_gradient
    y.backward(paddle.to_tensor(np.ones(2, np.float32)))
    assert p.grad.numpy().tolist() == [3.0, 3.0]


def test_repr():
    p = Parameter.from_tensor(paddle.to_tensor(np.array([1.0, 2.0], np.float32), place=paddle.CPUPlace()))
    text = repr(p)
    assert text.startswith("Parameter containing:\nTensor(shape=[2], dtype=float32, place=Place(cpu), "
                           "stop_gradient=False,") and str(p) == text


def test_deepcopy_and_copy_to():
    p = Parameter.from_tensor(paddle.to_tensor(np.array([1.0, 2.0], np.float32)), name="w")
    p.regularizer = "L2"
    c = copy.deepcopy(p)
    assert type(c) is Parameter and c.name.startswith("w_deepcopy_") and c.regularizer == "L2"
    assert not c.stop_gradient and c.optimize_attr == p.optimize_attr and c.optimize_attr is not p.optimize_attr
    c.set_value(np.array([7.0, 7.0], np.float32))
    assert p.numpy().tolist() == [1.0, 2.0]
    assert copy.deepcopy(p).name != c.name
    moved = p._copy_to(paddle.CPUPlace(), True)
    assert type(moved) is Parameter and moved.name == "w" and moved.data_ptr() != p.data_ptr()


def test_init_func_hooks():
    p = Parameter([2], "float32")
    with pytest.raises(AssertionError):
        p.initialize()
    p.set_init_func(lambda param, block: param.set_value(np.full(2, 4.0, np.float32)))
    p.initialize()
    assert p.numpy().tolist() == [4.0, 4.0] and p._init_func is None


def test_create_parameter_from_wraps_without_copy():
    t = torch.zeros(3)
    p = create_parameter_from(t, name="lin.w_0", need_clip=False)
    assert p._t is t and p.name == "lin.w_0" and p.trainable and t.requires_grad and p.need_clip is False
    frozen = create_parameter_from(torch.ones(2) * 2, trainable=False)
    assert frozen.stop_gradient and frozen._t.is_leaf and frozen.name.startswith("_eager_param_base_")
    with pytest.raises(TypeError):
        create_parameter_from(np.ones(2))


def test_saved_parameters_keep_their_names():
    sd = {"w": Parameter([2, 2], "float32", name="linear_1.w_0"), "b": Parameter([2], "float32", name="linear_1.b_0")}
    buffer = io.BytesIO()
    paddle.save(sd, buffer)
    buffer.seek(0)
    loaded = paddle.load(buffer)
    assert {k: v.name for k, v in loaded.items()} == {"w": "linear_1.w_0", "b": "linear_1.b_0"}
    assert all(type(v) is paddle.Tensor and v.stop_gradient for v in loaded.values())


_CREATE_PARAMETER = """
import json, paddle
out = []
for kwargs in ({}, {"is_bias": True}, {"name": "my_w"},
               {"attr": paddle.ParamAttr(name="attr_w", trainable=False)},
               {"default_initializer": paddle.nn.initializer.Constant(2.5)}):
    p = paddle.create_parameter([2, 3], "float64", **kwargs)
    out.append([p.name, p.stop_gradient, p.persistable, p.trainable, list(p.shape), str(p.dtype),
                isinstance(p, paddle.Tensor), float(p.numpy().sum()) if kwargs.get("is_bias") or
                "default_initializer" in kwargs else None])
print(json.dumps(out))
"""


@pytest.mark.conformance
def test_paddle_create_parameter_matches_real_paddle():
    if not paddle_ref.available():
        pytest.skip(f"reference PaddlePaddle venv not found at {paddle_ref.PYTHON}")
    theirs = subprocess.run([paddle_ref.PYTHON, "-c", _CREATE_PARAMETER], capture_output=True, text=True,
                            timeout=600, env=dict(os.environ, GLOG_minloglevel="3"))
    assert theirs.returncode == 0, theirs.stderr[-3000:]
    ours = subprocess.run([sys.executable, "-c", "import torchpaddle; torchpaddle.install_as_paddle()\n" +
                           _CREATE_PARAMETER], capture_output=True, text=True, timeout=600)
    assert ours.returncode == 0, ours.stderr[-3000:]
    assert json.loads(ours.stdout.splitlines()[-1]) == json.loads(theirs.stdout.splitlines()[-1])

"""nn.Layer vs real PaddlePaddle 3.3.1 (cases in layer_contract_cases.py): names, create_parameter and its
ParamAttr/initializer rules, buffers, traversal, state_dict forms and set_state_dict results, hooks, modes,
gradients, casting, repr and lookups; plus torchpaddle-only checks of the documented differences."""

import numpy as np
import pytest

import torchpaddle as paddle
import paddle_ref
from tests.nn import layer_contract_cases as cases
from tests.nn.layer_case_tools import compare, run_cases


reference, ours, test_matches_real_paddle = paddle_ref.case_table(
    "tests.nn.layer_contract_cases", cases.CASES, lambda: run_cases(cases.CASES, paddle), compare)


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_case_runs(name, ours):
    assert not (isinstance(ours[name], tuple) and ours[name][0] == "E"), f"{name} raised {ours[name][1]}"


class _Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.w = self.create_parameter([2, 2])
        self.register_buffer("count", paddle.to_tensor(np.array([1, 2], "int64")))
        self.register_buffer("stat", paddle.to_tensor(np.ones(2, "float32")))


def test_astype_casts_parameters_and_buffers():
    # NOTE: Paddle 3.3.1's astype only records the dtype (its parameters stay float32); we cast, as documented.
    net = _Net()
    w = net.w
    assert net.astype("float64") is net
    assert net.w is w and net.w.dtype == paddle.float64 and not net.w.stop_gradient
    assert net.stat.dtype == paddle.float64 and net.count.dtype == paddle.float64
    net.float()
    assert net.w.dtype == paddle.float32 and net.count.dtype == paddle.float32  # floating by now


def test_float16_and_bfloat16_skip_only_nn_batchnorm():
    net = _Net()
    net.float16()
    assert net.w.dtype == paddle.float16 and net.count.dtype == paddle.int64
    net.bfloat16()
    assert net.w.dtype == paddle.bfloat16
    seq = paddle.nn.Sequential(_Net(), _Net())
    seq.float16(excluded_layers=_Net)
    assert seq[0].w.dtype == paddle.float32


def test_to_keeps_gradients_and_identity():
    net = _Net()
    (net.w * 2).sum().backward()
    net.to(dtype="float64")
    assert net.w.grad.dtype == paddle.float64
    np.testing.assert_allclose(net.w.grad.numpy(), 2.0)


def test_set_state_dict_is_all_or_nothing_on_dtype_errors():
    net = _Net()
    before = net.w.numpy().copy()
    with pytest.raises(ValueError, match="dtype"):
        net.set_state_dict({"w": np.zeros([2, 2], "float32"), "stat": np.zeros([2], "float64")})
    np.testing.assert_array_equal(net.w.numpy(), before)


def test_set_state_dict_bfloat16_from_uint16_arrays():
    net = _Net().bfloat16()
    values = np.array([[1.5, -2.0], [0.25, 3.0]], "float32")
    as_uint16 = (values.view(np.uint32) >> 16).astype(np.uint16)
    missing, unexpected = net.set_state_dict({"w": as_uint16})
    assert not unexpected and "w" not in missing
    np.testing.assert_array_equal(net.w.astype("float32").numpy(), values)


def test_create_parameter_device_and_hook_handles():
    layer = paddle.nn.Layer()
    p = layer.create_parameter([2], device="cpu")
    assert str(p.place) == "Place(cpu)" and not p.stop_gradient
    handle = layer.register_forward_pre_hook(lambda l, i: None)
    del layer
    handle.remove()  # the layer is gone: removing is a no-op


def test_errors_name_the_problem():
    with pytest.raises(ValueError, match="training mode"):
        paddle.nn.Layer().train("yes")
    with pytest.raises(TypeError, match="cast to ParamAttr|ParamAttr"):
        paddle.nn.Layer().create_parameter([2], attr=3.5)
    with pytest.raises(TypeError, match="float16, float32"):
        paddle.nn.Layer().create_parameter([2], dtype="int64")

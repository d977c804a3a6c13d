"""Tensor, Parameter, dtype, place, type and Layer printing vs real PaddlePaddle 3.3.1 (cases in
printing_cases.py, one reference process for the whole table), plus set_printoptions argument checks."""
import numpy as np
import pytest
import torch

import torchpaddle as paddle
import paddle_ref
from tests.framework import printing_cases as cases
from tests.nn.layer_case_tools import run_cases


@pytest.fixture(scope="module")
def reference():
    return paddle_ref.results("tests.framework.printing_cases", timeout=300)


@pytest.fixture(scope="module")
def ours():
    return run_cases(cases.CASES, paddle)


@pytest.mark.conformance
@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_matches_real_paddle(name, reference, ours):
    assert ours[name] == reference[name], f"{name}:\nours:\n{ours[name]}\nPaddle 3.3.1:\n{reference[name]}"


@pytest.fixture
def restore_options():
    yield
    paddle.set_printoptions(**cases.DEFAULTS)


def _place():
    """How the current place prints: Place(cpu), or Place(gpu:0) on a GPU."""
    return f"Place({paddle.get_device()})"


def test_hand_worked_values(restore_options):
    # Paddle's layout, worked out by hand: 0-d floats keep full precision, integral floats (inf too) end in
    # '.', nan has no dot, and the width and sign column come from the summarized edges only
    head = "Tensor(shape={}, dtype={}, place=" + _place() + ", stop_gradient=True,\n       "
    assert str(paddle.to_tensor(2.5)) == head.format([], "float32") + "2.50000000)"
    assert str(paddle.to_tensor(float("-inf"))) == head.format([], "float32") + "-inf.)"
    assert str(paddle.to_tensor([1.0, float("inf"), float("nan")])) == (
        head.format([3], "float32") + "[1.  , inf., nan ])")
    assert str(paddle.to_tensor(np.array([1, 2, 3, 4, 5.5, 6, 7, 8], "float32"))) == (
        head.format([8], "float32") + "[1., 2., 3., 4., 5.50000000, 6., 7., 8.])")
    assert str(paddle.to_tensor([1 + 2j, -3 - 4j])) == (
        head.format([2], "complex64") + "[ (1.00000000+2.00000000j), (-3.00000000-4.00000000j)])")
    paddle.set_printoptions(threshold=4, edgeitems=1)
    assert str(paddle.to_tensor([[1, -2, 3], [4, 5, 6]])) == (
        head.format([2, 3], "int64") + "[[1, ..., 3],\n        [4, ..., 6]])")


def test_parameter_and_type_names():
    p = paddle.nn.Linear(2, 3).bias
    assert str(p) == repr(p) == ("Parameter containing:\nTensor(shape=[3], dtype=float32, place=" + _place() +
                                 ", stop_gradient=False,\n       [0., 0., 0.])")
    assert str(type(paddle.ones([1]))) == "<class 'paddle.Tensor'>"
    assert str(paddle.int8) == "paddle.int8" and repr(paddle.int8) == "<DataType.INT8: 3>"


def test_large_tensor_is_summarized_without_printing_everything():
    text = str(paddle.to_tensor(np.arange(10 ** 6).reshape(1000, 1000)))
    assert text.count("\n") == 7 and text.endswith("999997, 999998, 999999]])")


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_gpu_place_in_header():
    x = paddle.to_tensor([1.0], place=paddle.CUDAPlace(0))
    assert str(x).startswith("Tensor(shape=[1], dtype=float32, place=Place(gpu:0), stop_gradient=True,")


@pytest.mark.parametrize("kwargs", [dict(precision=2.0), dict(threshold="10"), dict(edgeitems=[3]),
                                    dict(linewidth=1.5), dict(sci_mode="yes")])
def test_set_printoptions_rejects_bad_types(kwargs, restore_options):
    key = next(iter(kwargs))
    with pytest.raises(TypeError, match=f"set_printoptions: {key} must be"):
        paddle.set_printoptions(**kwargs)
    assert str(paddle.to_tensor(0.5)).endswith("0.50000000)")  # nothing changed

"""Binary-op dtype promotion: hand-worked rules, and every dtype pair compared with real Paddle 3.3.1
(tests/tensor/promotion_cases.py, one reference process for the whole table)."""
import numpy as np
import pytest

import torchpaddle as paddle
import paddle_ref
from tests.tensor import promotion_cases as cases


def _known_deviation(key):
    """Cases where we knowingly differ from Paddle 3.3.1 (a quirk or a kernel torch lacks)."""
    parts = key.split("|")
    op, dtypes = parts[0], parts[-2:]
    if op in ("divide", "/", "x/s", "s/x") and dtypes == ["bool", "bool"]:
        return True   # Paddle divides bool by bool as integers, giving bool; we give float32
    if op in ("remainder", "x%s") and any("complex" in d for d in dtypes):
        return True   # Paddle has a complex remainder kernel; torch has none
    # a 0-D float64/complex128 tensor with a complex scalar: Paddle gives complex64 in /, ** and %
    return op in ("x/s", "s/x", "x**s", "s**x", "x%s") and parts[1] == "[]" and dtypes[1] == "complex"


@pytest.fixture(scope="module")
def reference():
    return paddle_ref.results("tests.tensor.promotion_cases", timeout=600)


@pytest.fixture(scope="module")
def ours():
    return cases.run(paddle)


@pytest.mark.conformance
@pytest.mark.parametrize("table", ["tensor_tensor", "tensor_scalar", "float64_default"])
def test_matches_real_paddle(table, reference, ours):
    compared, mismatches = 0, []
    for key, theirs in reference[table].items():
        # Paddle's CPU build lacks many kernels (float16 add, int8 pow...): it raises RuntimeError there, which
        # says nothing about promotion.
        if theirs.startswith("ERR:") and theirs not in ("ERR:TypeError", "ERR:ValueError") or \
                _known_deviation(key):
            continue
        compared += 1
        if ours[table][key] != theirs:
            mismatches.append(f"{key}: ours {ours[table][key]}, Paddle {theirs}")
    assert not mismatches, f"{len(mismatches)} of {compared} differ:\n" + "\n".join(mismatches[:40])
    assert compared > {"tensor_tensor": 5000, "tensor_scalar": 1000, "float64_default": 9}[table]


# -- the rules, worked by hand (these run without the reference venv) -----------------------------------------

def _t(shape, dtype):
    return paddle.ones(shape, dtype=dtype)


def test_int_tensors_of_rank_ge_1_do_not_promote():
    with pytest.raises(TypeError, match="int32.*int64"):
        _t([2], "int32") + _t([2], "int64")
    with pytest.raises(TypeError):
        paddle.equal(_t([2], "int32"), _t([2], "int64"))
    with pytest.raises(TypeError):
        _t([2], "float32") * _t([2], "int64")
    with pytest.raises(TypeError):
        paddle.logical_and(_t([2], "bool"), _t([2], "int32"))


def test_floats_and_complex_promote_along_the_lattice():
    assert (_t([2], "float16") + _t([2], "bfloat16")).dtype == paddle.float32
    assert (_t([2], "float32") + _t([2], "float64")).dtype == paddle.float64
    assert (_t([2], "int8") * _t([2], "complex64")).dtype == paddle.complex64
    assert (_t([2], "complex64") - _t([2], "float64")).dtype == paddle.complex128


def test_zero_dim_operand_acts_like_a_scalar():
    # same kind: the ranked operand's dtype wins, either side
    assert (_t([2], "int32") + _t([], "int64")).dtype == paddle.int32
    assert (_t([], "int64") + _t([2], "int8")).dtype == paddle.int8
    assert (_t([2], "float16") * _t([], "float64")).dtype == paddle.float16
    # another kind: promote (a float 0-D tensor keeps its own width, unlike a Python float)
    assert (_t([2], "int32") + _t([], "float64")).dtype == paddle.float64
    assert (_t([2], "bool") - _t([], "int16")).dtype == paddle.int16
    assert (_t([2], "complex64") + _t([], "float64")).dtype == paddle.complex128
    # two 0-D tensors promote along the lattice
    assert (_t([], "int32") + _t([], "int64")).dtype == paddle.int64
    assert (_t([], "uint8") + _t([], "int8")).dtype == paddle.int16
    # integer division gives float32; comparisons of any pair give bool
    assert (_t([2], "int64") / _t([], "int32")).dtype == paddle.float32
    assert (_t([2], "int32") < _t([], "int64")).dtype == paddle.bool


def test_zero_dim_rule_is_per_op():
    # floor_divide promotes a 0-D pair plainly; maximum has no 0-D rule at all
    assert paddle.floor_divide(_t([2], "uint8"), _t([], "int8")).dtype == paddle.int16
    assert paddle.maximum(_t([2], "float16"), _t([], "float32")).dtype == paddle.float32
    with pytest.raises(TypeError):
        paddle.maximum(_t([2], "int32"), _t([], "int64"))


def test_values_after_promotion():
    x = paddle.to_tensor([1, 2, 3], dtype="int16")
    np.testing.assert_array_equal((x + paddle.to_tensor(40000, dtype="int32")).numpy(),
                                  (np.array([1, 2, 3], "int16") + np.int16(40000 - 65536)))
    y = paddle.to_tensor([0.5, 1.5], dtype="float32") + paddle.to_tensor([0.25, 0.125], dtype="float64")
    np.testing.assert_array_equal(y.numpy(), [0.75, 1.625])


def test_python_scalars():
    b = paddle.to_tensor([True, False])
    assert (b - 3).dtype == paddle.int64 and (b - 3).tolist() == [-2, -3]
    assert (3 / b[:1]).tolist() == [3.0] and (3 + b).dtype == paddle.int64
    assert (paddle.to_tensor([2], dtype="int16") - True).tolist() == [1]
    assert (_t([2], "float16") + 1j).dtype == paddle.complex64
    assert (1j * _t([2], "float16")).dtype == paddle.complex64
    assert (_t([2], "float64") * 1j).dtype == paddle.complex128
    assert (_t([2], "int32") * 0.5).dtype == paddle.float32


def test_float64_default_dtype_does_not_leak_into_integer_math():
    old = paddle.get_default_dtype()
    paddle.set_default_dtype("float64")
    try:
        i = paddle.to_tensor([1, 2], dtype="int32")
        assert (i / i).dtype == paddle.float32
        assert (i / 4).dtype == paddle.float32 and (i / 4).tolist() == [0.25, 0.5]
        assert (i + 0.5).dtype == paddle.float32 and (0.5 * i).dtype == paddle.float32
        assert (paddle.to_tensor([1.0]) / 2).dtype == paddle.float64
    finally:
        paddle.set_default_dtype(old)


def test_complex_ordering_is_lexicographic():
    x = paddle.to_tensor([1 + 1j, 3, 1 - 1j, 2 + 1j, 2 + 1j])
    y = paddle.to_tensor([2 + 0j, 2, 1 + 0j, 2 + 1j, 2 + 2j])
    # by real part, then imaginary part (worked by hand)
    assert paddle.less_than(x, y).tolist() == [True, False, True, False, True]
    assert paddle.less_equal(x, y).tolist() == [True, False, True, True, True]
    assert (x > y).tolist() == [False, True, False, False, False]
    assert (x >= y).tolist() == [False, True, False, True, False]


def test_promotion_keeps_gradients():
    x = paddle.to_tensor([1.0, 2.0], dtype="float32", stop_gradient=False)
    y = paddle.to_tensor(3.0, dtype="float64", stop_gradient=False)
    out = x * y
    assert out.dtype == paddle.float32
    out.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0] and y.grad.dtype == paddle.float64 and y.grad.item() == 3.0

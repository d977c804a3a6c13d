"""paddle.to_tensor: dtype inference (checked against PaddlePaddle 3.3.1), copies, place, stop_gradient, errors."""
import numpy as np
import pytest

import torchpaddle as paddle
import paddle_ref
from tests.framework import to_tensor_cases

T = paddle.to_tensor

# (data, expected dtype, expected shape) as PaddlePaddle 3.3.1 gives them with the default dtype float32.
INFERENCE = [
    (1.5, "float32", []), (1, "int64", []), (True, "bool", []), (1 + 2j, "complex64", []),
    ([1, 2.5], "float32", [2]), ([1, 2], "int64", [2]), ([True, False], "bool", [2]), ((1, 2), "int64", [2]),
    ([True, 2], "int64", [2]), ([1 + 1j, 2], "complex64", [2]), ([], "float32", [0]), ([[]], "float32", [1, 0]),
    ([2 ** 40], "int64", [1]),
    (np.array([1, 2], dtype="int32"), "int32", [2]), (np.array([1.0, 2]), "float64", [2]),
    (np.array([1.0], dtype="float16"), "float16", [1]), (np.array([1 + 1j]), "complex128", [1]),
    (np.array(3.0), "float64", []), (np.float64(1.0), "float64", []), (np.int32(3), "int32", []),
    (np.uint8(3), "uint8", []), (np.array([1], dtype=np.uint16), "bfloat16", [1]),
    ([np.float64(1.0), 2.0], "float32", [2]),
    ([np.array([1, 2], dtype="int32"), np.array([3, 4], dtype="int32")], "int64", [2, 2]),
    ([np.array(1.0, dtype="float32"), 2.0], "float32", [2]),
]


@pytest.mark.parametrize("data,dtype,shape", INFERENCE, ids=[repr(d[0])[:30] for d in INFERENCE])
def test_dtype_inference(data, dtype, shape):
    t = T(data)
    assert t.dtype == getattr(paddle, dtype)
    assert t.shape == shape
    assert t.stop_gradient


def test_values():
    np.testing.assert_array_equal(T([[1, 2], [3, 4]]).numpy(), [[1, 2], [3, 4]])
    np.testing.assert_allclose(T([1.5, 2.25]).numpy(), [1.5, 2.25])
    assert T(1 + 2j).numpy() == np.complex64(1 + 2j)


def test_tensors_inside_lists_keep_their_dtype():
    assert T([T(1.0), T(2.0)]).dtype == paddle.float32
    t = T([T([1, 2]), T([3, 4])])
    assert t.dtype == paddle.int64 and t.shape == [2, 2]
    assert T([T(1), 2.5]).dtype == paddle.float64
    assert T([T(np.array([1, 2], dtype="int32"))]).dtype == paddle.int32


def test_default_dtype_follows_set_default_dtype():
    old = paddle.get_default_dtype()
    try:
        paddle.set_default_dtype("float64")
        assert T(1.5).dtype == paddle.float64
        assert T([1.0, 2.0]).dtype == paddle.float64
        assert T(1j).dtype == paddle.complex128
        assert T(np.array([1.0], dtype="float32")).dtype == paddle.float32
        paddle.set_default_dtype("float16")
        assert T([1.0]).dtype == paddle.float16
        assert T([1j]).dtype == paddle.complex64
    finally:
        paddle.set_default_dtype(old)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "bool", "float16", "bfloat16",
                                   "complex64", paddle.float64, np.float32, "uint8", "int8", "int16"])
def test_explicit_dtype(dtype):
    t = T([1, 0, 2], dtype=dtype)
    assert t.dtype == paddle.framework.dtype.convert_dtype(dtype)


def test_explicit_dtype_truncates_floats():
    np.testing.assert_array_equal(T([1.5, -2.7], dtype="int32").numpy(), [1, -2])


def test_tensor_input_is_copied_and_stops_gradient():
    src = T([1.0, 2.0], stop_gradient=False)
    out = T(src)
    assert out.stop_gradient and out.dtype == paddle.float32
    out[0] = 10.0
    assert src.numpy()[0] == 1.0
    assert T(src, dtype="float64").dtype == paddle.float64
    assert not T(src, stop_gradient=False).stop_gradient


def test_numpy_input_is_copied():
    array = np.array([1.0, 2.0])
    t = T(array)
    array[0] = 5.0
    assert t.numpy()[0] == 1.0


def test_stop_gradient_false():
    assert not T([1.0, 2.0], stop_gradient=False).stop_gradient
    # Paddle lets integer tensors carry stop_gradient=False too.
    assert not T([1, 2], stop_gradient=False).stop_gradient


@pytest.mark.parametrize("place", ["cpu", paddle.CPUPlace(), None])
def test_place(place):
    assert T([1, 2], place=place).place == paddle.CPUPlace() or paddle.is_compiled_with_cuda()


@pytest.mark.skipif(not paddle.is_compiled_with_cuda(), reason="needs CUDA")
def test_gpu_place():
    t = T([1.0, 2.0], place="gpu")
    assert t.place.is_gpu_place()
    np.testing.assert_allclose(t.numpy(), [1.0, 2.0])


@pytest.mark.parametrize("data,exc", [
    ([[1, 2], [3]], ValueError),           # ragged
    ([1, None], ValueError),               # not numbers
    ("abc", TypeError),
    (None, TypeError),
    ({1: 2}, TypeError),
    (["a", "b"], ValueError),              # Paddle: ValueError from tensor.set()
    (np.array(["a"]), ValueError),
    (np.array([1], dtype=np.uint32), ValueError),
    (2 ** 70, ValueError),
])
def test_errors(data, exc):
    with pytest.raises(exc):
        T(data)


def test_bad_dtype():
    with pytest.raises(TypeError):
        T([1, 2], dtype="int7")



# -- precision: data given with a dtype is converted once, from full precision ---------------------------------

def test_float64_data_stays_exact():
    # hand-worked: 0.1 and 0.9 as float64 are Python's own floats, not float32's nearest values widened
    assert T([0.1, 0.9], dtype="float64").tolist() == [0.1, 0.9]
    assert T([[0.1], [1e-300]], dtype="float64").tolist() == [[0.1], [1e-300]]
    assert T(0.1, dtype="float64").item() == 0.1
    assert T([1, 0.1], dtype=paddle.float64).tolist() == [1.0, 0.1]
    assert T(0.1 + 0.2j, dtype="complex128").item() == 0.1 + 0.2j
    assert T([1 / 3, 2j], dtype="complex128").tolist() == [1 / 3, 2j]
    assert T(np.float64(0.1), dtype="float64").item() == 0.1
    assert paddle.Tensor([0.1], dtype="float64").tolist() == [0.1]


def test_float16_data_is_rounded_once():
    # 2049.0001 lies just above the float16 midpoint 2049 between 2048 and 2050; through float32 it lands on the
    # midpoint and rounds to even (2048)
    assert T([2049.0001], dtype="float16").tolist() == [float(np.float16(2049.0001))] == [2050.0]
    assert T(2049.0001, dtype="float16").item() == 2050.0


def test_default_dtype_still_narrows_floats_without_a_dtype():
    assert T([0.1]).dtype == paddle.float32 and T([0.1]).tolist() == [float(np.float32(0.1))]
    assert T(0.1 + 0.2j).dtype == paddle.complex64


@pytest.mark.conformance
def test_values_and_dtypes_match_real_paddle():
    reference = paddle_ref.results("tests.framework.to_tensor_cases", timeout=300)
    ours = to_tensor_cases.run(paddle)
    assert sorted(ours) == sorted(reference)
    mismatches = [f"{name}: ours {ours[name]}, Paddle {reference[name]}" for name in reference
                  if ours[name] != reference[name]]
    assert not mismatches, "\n".join(mismatches)

import numpy as np
import pytest
import torch

import torchpaddle as paddle
from torchpaddle.framework.dtype import convert_dtype


@pytest.mark.parametrize("name,np_type,proto", [("float32", np.float32, 5), ("float64", np.float64, 6),
                                                ("int32", np.int32, 2), ("int64", np.int64, 3),
                                                ("bool", np.bool_, 0), ("float16", np.float16, 4),
                                                ("uint8", np.uint8, 20), ("int8", np.int8, 21),
                                                ("complex64", np.complex64, 23)])
def test_dtype_identity_and_conversions(name, np_type, proto):
    d = getattr(paddle, name)
    assert str(d) == f"paddle.{name}" and repr(d).startswith(f"<DataType.{name.upper()}: ")  # as Paddle 3.3.1
    assert convert_dtype(name) is d and convert_dtype(np_type) is d and convert_dtype(np.dtype(np_type)) is d
    assert convert_dtype(proto) is d and d.proto == proto
    assert paddle.to_tensor(np.zeros(2, dtype=np_type)).dtype is d
    assert d != name  # Paddle's dtype does not compare equal to strings


def test_bad_dtype_names_raise_type_error():
    for bad in ("float33", object(), 999):
        with pytest.raises(TypeError):
            convert_dtype(bad)


def test_default_dtype_controls_float_creation():
    assert paddle.get_default_dtype() == "float32"
    try:
        paddle.set_default_dtype("float64")
        assert paddle.get_default_dtype() == "float64"
        assert paddle.to_tensor(1.0).dtype == paddle.float64
        assert paddle.to_tensor([1.0, 2.0]).dtype == paddle.float64
        assert paddle.to_tensor([1, 2]).dtype == paddle.int64
    finally:
        paddle.set_default_dtype("float32")
    assert paddle.to_tensor([1.0]).dtype == paddle.float32
    with pytest.raises(TypeError):
        paddle.set_default_dtype("int32")


def test_type_promotion_matches_paddle_331():
    f32 = paddle.ones([2], "float32")
    assert (f32 + paddle.ones([2], "float64")).dtype == paddle.float64
    assert (paddle.ones([2], "float16") + f32).dtype == paddle.float32
    for a, b in [("int32", "int64"), ("int64", "float32"), ("bool", "int32")]:
        with pytest.raises(TypeError):
            paddle.ones([2], a) + paddle.ones([2], b)
    i = paddle.to_tensor([1, 2])
    assert (i + 1).dtype == paddle.int64 and (i + 1.5).dtype == paddle.float32
    assert (i / i).dtype == paddle.float32 and (i // i).dtype == paddle.int64
    assert (2 ** i).dtype == paddle.int64 and (i ** 0.5).dtype == paddle.float32
    assert (paddle.to_tensor([True]) + 1).dtype == paddle.int64


def test_bfloat16_numpy_is_uint16_like_paddle():
    t = paddle.to_tensor([1.0, 2.0], dtype="bfloat16")
    assert t.dtype == paddle.bfloat16
    arr = t.numpy()
    assert arr.dtype == np.uint16
    assert torch.from_numpy(arr.astype(np.int16)).view(torch.bfloat16).float().tolist() == [1.0, 2.0]

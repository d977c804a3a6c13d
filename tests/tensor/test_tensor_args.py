"""Int arguments (axis, shape, starts/ends, k...) given as 1-element Tensors: hand-worked checks, and every call
real Paddle 3.3.1 accepts compared with ours (tests/tensor/tensor_arg_cases.py)."""
import numpy as np
import pytest

import torchpaddle as paddle
import paddle_ref
from tests.tensor import tensor_arg_cases as cases


@pytest.mark.conformance
def test_calls_paddle_accepts_work_alike():
    reference = paddle_ref.results("tests.tensor.tensor_arg_cases", timeout=300)
    ours = cases.run(paddle)
    accepted = [key for key, outcome in reference.items() if outcome[0] == "ok"]
    assert len(accepted) > 50
    for key in accepted:
        assert ours[key][0] == "ok", f"{key}: Paddle accepts, we raise {ours[key][1]}"
        assert ours[key][1] == reference[key][1], f"{key}: shape {ours[key][1]}, Paddle {reference[key][1]}"
        np.testing.assert_allclose(ours[key][2], reference[key][2], rtol=1e-5, atol=1e-7, err_msg=key)


X = np.arange(24, dtype="float32").reshape([2, 3, 4])


@pytest.mark.parametrize("make", [lambda v: paddle.to_tensor(v), lambda v: paddle.to_tensor([v]),
                                  lambda v: paddle.to_tensor([v], dtype="int32")], ids=["0d", "shape1", "int32"])
def test_one_element_tensors_as_ints(make):
    x = paddle.to_tensor(X)
    np.testing.assert_array_equal(paddle.concat([x, x], axis=make(1)).numpy(), np.concatenate([X, X], 1))
    np.testing.assert_array_equal(paddle.reshape(x, [make(6), 4]).numpy(), X.reshape(6, 4))
    np.testing.assert_array_equal(paddle.slice(x, axes=[make(1)], starts=[make(1)], ends=[make(3)]).numpy(),
                                  X[:, 1:3])
    np.testing.assert_array_equal(paddle.split(x, [make(1), make(2)], axis=1)[1].numpy(), X[:, 1:])
    np.testing.assert_array_equal(paddle.gather(x, paddle.to_tensor([2, 0]), axis=make(1)).numpy(), X[:, [2, 0]])
    np.testing.assert_array_equal(paddle.flip(x, axis=make(1)).numpy(), X[:, ::-1])
    np.testing.assert_array_equal(paddle.unstack(x, axis=make(2))[3].numpy(), X[:, :, 3])
    np.testing.assert_array_equal(paddle.rot90(x, k=make(1), axes=[1, 2]).numpy(), np.rot90(X, 1, (1, 2)))
    np.testing.assert_allclose(paddle.nn.functional.softmax(x, axis=make(0)).numpy(),
                               np.exp(X) / np.exp(X).sum(0), rtol=1e-6)
    np.testing.assert_array_equal(paddle.unique(x, axis=make(0)).numpy(), X)
    np.testing.assert_array_equal(paddle.cross(x[:, :3], x[:, :3] + 1, axis=make(1)).numpy(),
                                  np.cross(X[:, :3], X[:, :3] + 1, axis=1))


def test_bad_tensor_ints_are_rejected():
    x = paddle.to_tensor(X)
    with pytest.raises(ValueError, match="1 element"):
        paddle.concat([x, x], axis=paddle.to_tensor([0, 1]))
    with pytest.raises(TypeError, match="integer"):
        paddle.concat([x, x], axis=paddle.to_tensor(1.0))
    with pytest.raises(ValueError, match="1 element"):
        paddle.reshape(x, [paddle.to_tensor([6, 1]), 4])
    with pytest.raises(TypeError, match="shape"):
        paddle.flip(x, axis=paddle.to_tensor([[0, 1]]))

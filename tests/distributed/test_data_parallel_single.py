"""paddle.DataParallel in one process (behaviour observed in PaddlePaddle 3.3.1)."""
import numpy as np
import pytest

import torchpaddle as paddle


def test_wraps_layer_transparently():
    m = paddle.nn.Linear(2, 3)
    dp = paddle.DataParallel(m)
    assert dp._layers is m
    assert list(dp.state_dict().keys()) == ["weight", "bias"]
    assert [n for n, _ in dp.named_parameters()] == ["_layers.weight", "_layers.bias"]
    assert repr(dp) == "DataParallel(\n  (_layers): Linear(in_features=2, out_features=3, dtype=float32)\n)"
    x = paddle.to_tensor(np.ones((1, 2), dtype="float32"))
    np.testing.assert_allclose(dp(x).numpy(), m(x).numpy())
    with dp.no_sync():
        assert dp.grad_need_sync is False
    assert dp.grad_need_sync is True
    missing, unexpected = dp.set_state_dict({"weight": np.zeros((2, 3), "float32"), "bias": np.ones(3, "float32")})
    assert missing == [] and unexpected == []
    np.testing.assert_allclose(dp(x).numpy(), np.ones((1, 3)))


def test_rejects_non_layer():
    with pytest.raises(TypeError):
        paddle.DataParallel(lambda x: x)

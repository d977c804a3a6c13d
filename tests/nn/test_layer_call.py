"""Layer.__call__: forward pre/post hooks wrap forward, and their return values replace inputs/outputs."""
import numpy as np

import torchpaddle as paddle


class _Double(paddle.nn.Layer):
    def forward(self, x, scale=1.0):
        return x * 2 * scale


def test_call_runs_hooks_around_forward():
    layer = _Double()
    x = paddle.to_tensor(np.array([1.0, 2.0], dtype="float32"))
    np.testing.assert_allclose(layer.__call__(x, scale=0.5).numpy(), [1.0, 2.0])
    pre = layer.register_forward_pre_hook(lambda lyr, inputs: (inputs[0] + 1,))
    post = layer.register_forward_post_hook(lambda lyr, inputs, out: out * 10)
    np.testing.assert_allclose(layer(x).numpy(), [40.0, 60.0])  # ((x + 1) * 2) * 10
    pre.remove()
    post.remove()
    np.testing.assert_allclose(layer(x).numpy(), [2.0, 4.0])

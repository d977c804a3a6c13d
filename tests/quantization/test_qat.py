"""paddle.quantization: QAT's fake quantization against real Paddle 3.3.1; convert, PTQ and the op against
NumPy."""
import numpy as np
import pytest

import paddle_ref
import torchpaddle as paddle
from torchpaddle import quantization
from torchpaddle.quantization.observers import AbsmaxObserver
from torchpaddle.quantization.quanters import FakeQuanterWithAbsMaxObserver
from tests.quantization import quant_cases


@pytest.fixture(scope="module")
def reference():
    return paddle_ref.results("tests.quantization.quant_cases", timeout=300)


@pytest.mark.conformance
def test_qat_matches_paddle(reference):
    ours, _, _ = quant_cases.run(paddle, quantization, weights=reference["weights"])
    assert ours["types"] == reference["types"]
    np.testing.assert_allclose(ours["scales"], reference["scales"], rtol=1e-6)
    for k, (a, b) in enumerate(zip(ours["train"], reference["train"])):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5, err_msg=f"training step {k}")
    np.testing.assert_allclose(ours["eval"], reference["eval"], rtol=1e-5, atol=1e-5)


def _qdq(x, s, round_half_even=False, bnt=127):
    v = np.clip(x, -s, s) * (bnt / s)
    v = np.round(v) if round_half_even else np.sign(v) * np.floor(np.abs(v) + 0.5)
    return v * s / bnt


def test_fake_quant_op_by_hand():
    from torchpaddle import ops
    x = np.array([-2.0, -0.5, 0.00394, 0.3, 1.0, 1.5], "float32")
    xt = paddle.to_tensor(x, stop_gradient=False)
    out, scale, state, accum = ops.fake_quantize_dequantize_moving_average_abs_max(
        xt, paddle.to_tensor([0.001]), paddle.to_tensor([1.0]), paddle.to_tensor([1.0]), moving_rate=0.9,
        bit_length=8, is_test=False, round_type=1)
    # state = 0.9 * 1 + 1, accum = 0.9 * 1 + max|x|, scale = accum / state
    assert np.allclose(state.numpy(), 1.9) and np.allclose(accum.numpy(), 2.9)
    np.testing.assert_allclose(scale.numpy(), [2.9 / 1.9], rtol=1e-6)
    np.testing.assert_allclose(out.numpy(), _qdq(x, np.float32(2.9 / 1.9)), rtol=1e-6, atol=1e-7)
    out.sum().backward()
    np.testing.assert_array_equal(xt.grad.numpy(), np.ones(6))   # straight through, clipped values included
    half = paddle.to_tensor(np.array([0.5, 1.5, -2.5], "float32") / 127)   # ties, scale 1
    away = ops.fake_quantize_dequantize_moving_average_abs_max(half, paddle.to_tensor([1.0]), None, None,
                                                               is_test=True)[0]
    np.testing.assert_allclose(away.numpy() * 127, [1, 2, -3], atol=1e-4)
    with pytest.raises(ValueError, match="InAccum"):
        ops.fake_quantize_dequantize_moving_average_abs_max(half, paddle.to_tensor([1.0]), None, None)
    with pytest.raises(ValueError, match="bit_length"):
        ops.fake_quantize_dequantize_moving_average_abs_max(half, paddle.to_tensor([1.0]), None, None,
                                                            is_test=True, bit_length=1)


def test_convert_by_hand():
    _, model, xs = quant_cases.run(paddle, quantization)
    fc = model.fc
    w, s_w = fc.weight.numpy().copy(), float(fc.weight_quanter.scales().numpy()[0])
    s_in = float(fc.activation_quanter.scales().numpy()[0])
    converted = quantization.QAT(quantization.QuantConfig(None, None)).convert(model, inplace=False)
    # the weight is stored as integers (round half to even, as quantize_linear), dequantized on the fly
    q = np.clip(np.round(w * 127 / s_w), -128, 127)
    np.testing.assert_array_equal(converted.fc.weight.numpy(), q)
    assert converted.fc.converted and type(converted.fc.weight_quanter).__name__ == "LinearQuanterDequanter"
    x = paddle.to_tensor(xs[0])
    h = converted.relu(converted.conv(x)).reshape([2, -1])[:, :8].numpy()
    want = _qdq(h, s_in, round_half_even=True) @ (q * s_w / 127) + fc.bias.numpy()
    np.testing.assert_allclose(converted.fc(paddle.to_tensor(h)).numpy(), want, rtol=1e-5, atol=1e-5)
    with pytest.raises(RuntimeError, match="only once"):
        converted.fc._convert()


def test_ptq_observer_and_config():
    paddle.seed(1)
    net = paddle.nn.Sequential(paddle.nn.Linear(4, 4), paddle.nn.ReLU(), paddle.nn.Linear(4, 2))
    net.eval()
    config = quantization.QuantConfig(activation=AbsmaxObserver(), weight=AbsmaxObserver())
    config.add_layer_config(net[2], activation=None, weight=None)   # the last layer gets no quanters
    ptq = quantization.PTQ(config)
    model = ptq.quantize(net)
    assert type(model[0]).__name__ == "QuantedLinear" and model[0].weight_quanter is not None
    assert model[2].weight_quanter is None and model[2].activation_quanter is None
    assert type(model[1]).__name__ == "ObserveWrapper"
    xs = [np.random.RandomState(k).uniform(-3, 3, (5, 4)).astype("float32") for k in range(3)]
    for x in xs:
        np.testing.assert_allclose(model(paddle.to_tensor(x)).numpy(), net(paddle.to_tensor(x)).numpy())
    observed = model[0].activation_quanter.scales().numpy()
    np.testing.assert_allclose(observed, max(np.abs(x).max() for x in xs), rtol=1e-6)
    assert "QuantedLinear" not in str(ptq) and "Sequential" in str(ptq)
    with pytest.raises(ValueError, match="eval"):
        quantization.PTQ(config).quantize(net.train())
    with pytest.raises(ValueError, match="train"):
        quantization.QAT(config).quantize(net.eval())
    with pytest.raises(TypeError):
        quantization.QAT("config")
    with pytest.raises(TypeError):
        config.add_type_config("Linear")


def test_quanter_decorator_declares_factory():
    @quantization.quanter("MyTestQuanter")
    class MyQuanterLayer(quantization.BaseQuanter):
        def __init__(self, layer, bits=8):
            super().__init__()
            self.bits = bits

        def forward(self, x):
            return x * 2

        def scales(self):
            return None

        def zero_points(self):
            return None

        def quant_axis(self):
            return -1

        def bit_length(self):
            return self.bits

    factory = globals()["MyTestQuanter"](bits=4)
    layer = factory._instance(paddle.nn.Linear(2, 2))
    assert isinstance(layer, MyQuanterLayer) and layer.bit_length() == 4
    with pytest.raises(TypeError):
        quantization.BaseQuanter()   # abstract
    with pytest.raises(ValueError):
        FakeQuanterWithAbsMaxObserver(bit_length=99)._instance(None)

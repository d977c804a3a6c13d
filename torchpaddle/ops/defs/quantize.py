"""Fake quantization (quantize then dequantize in float) for quantization-aware training."""
import torch

from ..registry import op


def quant_dequant(x, scale, bit_length, round_type):
    """``x`` clipped to [-scale, scale], rounded onto the 2^(bits-1)-1 levels each side and mapped back; the
    gradient passes straight through (Paddle's straight-through estimator, unclipped)."""
    bnt = (1 << (bit_length - 1)) - 1
    s = scale.reshape(()).to(x.dtype)
    with torch.no_grad():
        v = (bnt / s) * torch.minimum(torch.maximum(x, -s), s)
        # round_type 1: ties away from zero (Paddle's default); 0: ties to even
        v = torch.sign(v) * torch.floor(v.abs() + 0.5) if round_type == 1 else torch.round(v)
        q = v * s / bnt
    return x + (q - x).detach()


@op("fake_quantize_dequantize_moving_average_abs_max", inputs=["X", "InScale", "InAccum?", "InState?"],
    outputs=["Out", "OutScale", "OutState?", "OutAccum?"],
    attrs={"moving_rate": 0.9, "bit_length": 8, "is_test": False, "round_type": 1})
def fake_quantize_dequantize_moving_average_abs_max(X, InScale, InAccum, InState, *, moving_rate, bit_length,
                                                    is_test, round_type):
    if not 1 < bit_length <= 16:
        raise ValueError(f"fake_quantize_dequantize_moving_average_abs_max: bit_length must be in [2, 16], got "
                         f"{bit_length}")
    if is_test:
        return quant_dequant(X, InScale, bit_length, round_type), InScale, InState, InAccum
    if InAccum is None or InState is None:
        raise ValueError("fake_quantize_dequantize_moving_average_abs_max: training (is_test=False) needs InAccum "
                         "and InState")
    with torch.no_grad():
        # the scale is a moving average of the batches' abs-max: accum / state, both decayed by moving_rate
        state = moving_rate * InState + 1
        accum = moving_rate * InAccum + X.detach().abs().max().to(InAccum.dtype)
        scale = accum / state
    return quant_dequant(X, scale, bit_length, round_type), scale, state, accum


def _channel_scale(X, Scale, quant_axis, who):
    """``Scale`` shaped to broadcast over ``X``: one value, or one per index of ``quant_axis``."""
    if Scale.numel() == 1:
        return Scale.reshape(()).to(X.dtype)
    axis = quant_axis % X.dim() if X.dim() else 0
    if X.dim() == 0 or Scale.numel() != X.shape[axis]:
        raise ValueError(f"{who}: Scale has {Scale.numel()} values, X{list(X.shape)} has "
                         f"{X.shape[axis] if X.dim() else 1} on quant_axis {quant_axis}")
    shape = [1] * X.dim()
    shape[axis] = -1
    return Scale.reshape(shape).to(X.dtype)


def _check_zero_point(ZeroPoint, who):
    if ZeroPoint is not None and bool((ZeroPoint != 0).any()):
        raise ValueError(f"{who}: only symmetric quantization (ZeroPoint all 0) is supported")


_LINEAR = {"quant_axis": 0, "bit_length": 8, "qmin": -128, "qmax": 127, "round_type": 0, "is_test": True,
           "only_observer": False}


@op("quantize_linear", inputs=["X", "Scale", "ZeroPoint"], outputs=["Y"], attrs=_LINEAR, differentiable=False)
def quantize_linear(X, Scale, ZeroPoint, *, quant_axis, bit_length, qmin, qmax, round_type, is_test,
                    only_observer):
    _check_zero_point(ZeroPoint, "quantize_linear")
    if only_observer:
        return X
    bnt = (1 << (bit_length - 1)) - 1
    v = X * (bnt / _channel_scale(X, Scale, quant_axis, "quantize_linear"))
    v = torch.sign(v) * torch.floor(v.abs() + 0.5) if round_type == 1 else torch.round(v)
    return v.clamp(qmin, qmax)


@op("dequantize_linear", inputs=["X", "Scale", "ZeroPoint"], outputs=["Y"], attrs=_LINEAR, differentiable=False)
def dequantize_linear(X, Scale, ZeroPoint, *, quant_axis, bit_length, qmin, qmax, round_type, is_test,
                      only_observer):
    _check_zero_point(ZeroPoint, "dequantize_linear")
    if only_observer:
        return X
    bnt = (1 << (bit_length - 1)) - 1
    return X * _channel_scale(X, Scale, quant_axis, "dequantize_linear") / bnt

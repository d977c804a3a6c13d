"""``FakeQuanterWithAbsMaxObserver``: fake quantization with a moving-average abs-max scale (the
``fake_quantize_dequantize_moving_average_abs_max`` op)."""
from .. import ops as _ops
from ..framework.mode import in_dynamic_mode
from ..framework.param_attr import ParamAttr
from ..nn.initializer import Constant
from ..tensor import assign
from ..utils import unique_name
from .base import BaseQuanter
from .factory import QuanterFactory

__all__ = ["FakeQuanterWithAbsMaxObserver", "FakeQuanterWithAbsMaxObserverLayer"]


class FakeQuanterWithAbsMaxObserver(QuanterFactory):
    def __init__(self, moving_rate=0.9, bit_length=8, dtype="float32", name=None):
        super().__init__(name=name, moving_rate=moving_rate, bit_length=bit_length, dtype=dtype)

    def _get_class(self):
        return FakeQuanterWithAbsMaxObserverLayer


class FakeQuanterWithAbsMaxObserverLayer(BaseQuanter):
    def __init__(self, layer, name=None, moving_rate=0.9, bit_length=8, dtype="float32"):
        super().__init__()
        if not isinstance(bit_length, int) or not 1 < bit_length <= 16:
            raise ValueError(f"FakeQuanterWithAbsMaxObserver: bit_length must be an int in [2, 16], got "
                             f"{bit_length!r}")
        if not 0 < moving_rate < 1:
            raise ValueError(f"FakeQuanterWithAbsMaxObserver: moving_rate must be in (0, 1), got {moving_rate!r}")
        self._moving_rate, self._bit_length = moving_rate, bit_length
        prefix = name or "quant_dequant"

        def state(what, init):
            attr = ParamAttr(name=unique_name.generate(f"{prefix}.{what}"), initializer=Constant(init),
                             trainable=False)
            p = self.create_parameter(shape=[1], attr=attr, dtype=dtype)
            p.stop_gradient = True
            return p
        self._scale, self._state, self._accum = state("scale", 0.001), state("state", 1), state("accum", 1)

    def forward(self, input):
        if not in_dynamic_mode():
            raise NotImplementedError("FakeQuanterWithAbsMaxObserver: torchpaddle runs quantization-aware training "
                                      "in dynamic mode only")
        training = self.training
        out, scale, state, accum = _ops.fake_quantize_dequantize_moving_average_abs_max(
            input, self._scale, self._accum if training else None, self._state if training else None,
            moving_rate=float(self._moving_rate), bit_length=self._bit_length, is_test=not training, round_type=1)
        if training:
            # the op's OutScale/OutState/OutAccum are these parameters in Paddle's programs
            for param, value in ((self._scale, scale), (self._state, state), (self._accum, accum)):
                assign(value, param)
        return out

    def bit_length(self):
        return self._bit_length

    def quant_axis(self):
        return -1

    def scales(self):
        return self._scale

    def zero_points(self):
        return None

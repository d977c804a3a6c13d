"""``paddle.quantization``: QAT and PTQ on fake-quantize ops."""
from . import observers, quanters  # noqa: F401
from .base import BaseObserver, BaseQuanter  # noqa: F401
from .config import QuantConfig  # noqa: F401
from .factory import ObserverFactory, QuanterFactory, quanter  # noqa: F401
from .qat import PTQ, QAT  # noqa: F401

__all__ = ["QuantConfig", "BaseQuanter", "BaseObserver", "quanter", "QAT", "PTQ"]

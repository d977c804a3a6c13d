"""paddle.static's metric layers. ``accuracy`` is paddle.metric.accuracy: one function serves both modes."""
from ...metric import accuracy

__all__ = ["accuracy"]

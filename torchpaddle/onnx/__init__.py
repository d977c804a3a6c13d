"""``paddle.onnx``: export a Layer to ONNX through torch.onnx."""
from .export import export  # noqa: F401

__all__ = ["export"]

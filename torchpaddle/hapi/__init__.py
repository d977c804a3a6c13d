"""paddle.hapi: the high-level Model API, its callbacks, paddle.summary and paddle.flops."""
from . import callbacks, progressbar, static_flops  # noqa: F401
from .dynamic_flops import flops  # noqa: F401
from .model import Model  # noqa: F401
from .model_summary import summary  # noqa: F401

__all__ = []

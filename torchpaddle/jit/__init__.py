"""paddle.jit: to_static (tracing into a static Program), jit.save / jit.load (TranslatedLayer)."""
from .api import (to_static, not_to_static, ignore_module, enable_to_static, set_code_level,  # noqa: F401
                  set_verbosity, StaticFunction)
from .save_load import save, load  # noqa: F401
from .translated_layer import TranslatedLayer  # noqa: F401
from ..static.input import InputSpec  # noqa: F401

__all__ = ["save", "load", "to_static", "ignore_module", "TranslatedLayer", "set_code_level", "set_verbosity",
           "not_to_static", "enable_to_static"]

"""fluid.contrib: the pieces 1.x/2.0 user code still imports -- automatic mixed precision for static programs
(``fluid.contrib.mixed_precision.decorate``, ``AutoMixedPrecisionLists``) on torchpaddle.static.amp."""
from . import mixed_precision  # noqa: F401
from .mixed_precision import AutoMixedPrecisionLists, decorate  # noqa: F401

__all__ = ["mixed_precision", "decorate", "AutoMixedPrecisionLists"]

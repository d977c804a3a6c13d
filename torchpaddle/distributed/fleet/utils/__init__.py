"""paddle.distributed.fleet.utils (the parts model code imports: ``recompute``)."""
from ..recompute import recompute  # noqa: F401

__all__ = ["recompute"]

"""paddle.hapi.static_flops: FLOPs of a static Program (defined with the dynamic counter in dynamic_flops)."""
from .dynamic_flops import Table, static_flops  # noqa: F401

__all__ = []

"""fluid.unique_name: torchpaddle.utils.unique_name (one counter table for every namespace)."""
from ..utils.unique_name import *  # noqa: F401,F403
from ..utils.unique_name import generate, guard, switch  # noqa: F401

__all__ = ["generate", "switch", "guard"]

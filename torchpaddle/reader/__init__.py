"""paddle.reader: Paddle 1.x's reader decorators (pure Python; ``paddle.batch`` is ``reader.batch``)."""
from . import decorator  # noqa: F401
from .decorator import *  # noqa: F401,F403
from .decorator import __all__  # noqa: F401

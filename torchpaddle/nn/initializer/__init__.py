"""paddle.nn.initializer: fills a Parameter in place, with Paddle's fan rules and defaults."""
from .initializers import *  # noqa: F401,F403
from .initializers import __all__  # noqa: F401

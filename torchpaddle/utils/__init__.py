"""paddle.utils."""
from . import unique_name  # noqa: F401

"""Auto-parallel on static programs (Paddle's ``paddle.distributed.auto_parallel.static``): ``to_static`` ->
``DistModel`` (dist_model.py), the ``Strategy`` config (strategy.py), completion of dist attributes with the ops'
SPMD rules (completion.py)."""
from .strategy import Strategy  # noqa: F401
from .dist_model import DistModel, to_static  # noqa: F401
from .completion import complete  # noqa: F401

__all__ = ["Strategy", "DistModel", "to_static", "complete"]

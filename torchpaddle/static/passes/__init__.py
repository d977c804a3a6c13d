"""Program rewrites (passes): plain functions over the static IR, each with the entry point
``apply_<pass>(main_program, startup_program, config)`` that ``paddle.distributed.passes`` and the
auto-parallel Strategy call:

- ``apply_recompute``: forward segments recomputed inside the backward (recompute.py);
- ``apply_gradient_merge``: gradients accumulated over k steps, the optimizer run every k-th (gradient_merge.py);
- ``apply_amp``: O1 casts by op lists, O2 half-precision parameters with float32 master weights (amp.py).

``config`` is a dict with the keys of the matching section of Paddle's auto-parallel Strategy
(``strategy.recompute.to_dict()``...) plus what the pass needs from the program (``loss``, ``params_grads``).
Each returns a dict of what it made; each leaves the program as Paddle's pass leaves it, so the same program
prints, saves and runs as Paddle's does.
"""
from .amp import apply_amp  # noqa: F401
from .gradient_merge import apply_gradient_merge  # noqa: F401
from .recompute import apply_recompute, recompute_backward  # noqa: F401

__all__ = ["apply_recompute", "apply_gradient_merge", "apply_amp"]

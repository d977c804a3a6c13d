"""paddle.nn: Layer, layers, functional, initializer, clip, utils."""
from . import initializer  # noqa: F401
from .layer import *  # noqa: F401,F403
from .layer.layers import Layer  # noqa: F401
from .layer import loss  # noqa: F401  ``paddle.nn.loss`` is the loss layers' module, as in Paddle
import sys as _sys
# Paddle exposes it only as an attribute; registering it also lets ``import paddle.nn.loss`` work.
_sys.modules.setdefault(__name__ + ".loss", loss)
from ..framework.parameter import Parameter  # noqa: F401
from ..framework.param_attr import ParamAttr  # noqa: F401
import importlib as _importlib

# Subpackages written alongside the layers; each is exposed once it exists.
for _name in ("functional", "clip", "utils", "quant"):
    try:
        globals()[_name] = _importlib.import_module(f"{__name__}.{_name}")
    except ModuleNotFoundError as _exc:
        if _exc.name != f"{__name__}.{_name}":
            raise
if "clip" in globals():
    from .clip import ClipGradByValue, ClipGradByNorm, ClipGradByGlobalNorm  # noqa: F401
from .decode import BeamSearchDecoder, dynamic_decode  # noqa: F401,E402

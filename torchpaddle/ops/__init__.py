"""The op registry and every op's eager entry point, by Paddle op type: ``ops.elementwise_add(x, y)``."""
import importlib
import pkgutil
import sys

from ..framework import hooks as _hooks

from .registry import REGISTRY, REQUIRED, OpDef, Slot, get_op, op

for _info in sorted(pkgutil.iter_modules(__path__ and [__path__[0] + "/defs"]), key=lambda m: m.name):
    importlib.import_module(f"{__name__}.defs.{_info.name}")

globals().update({_type: _d.eager for _type, _d in REGISTRY.items() if _type.isidentifier()})

_hooks.provide("ops", sys.modules[__name__])   # static Variables' methods (framework/program.py) append ops

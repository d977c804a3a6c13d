"""``import paddle`` -> torchpaddle: a meta-path finder that maps every ``paddle.X`` to ``torchpaddle.X``.

The same module object is registered under both names, so ``paddle.nn is torchpaddle.nn`` and classes,
isinstance checks and module-level state are shared. A ``paddle.X`` that torchpaddle lacks is a plain
ModuleNotFoundError naming ``paddle.X``.
"""
import importlib
import importlib.abc
import importlib.util
import sys

__all__ = ["install_as_paddle"]

_ALIAS, _TARGET = "paddle", "torchpaddle"


def _target_name(fullname):
    if fullname == _ALIAS or fullname.startswith(_ALIAS + "."):
        return _TARGET + fullname[len(_ALIAS):]
    return None


class _AliasLoader(importlib.abc.Loader):
    """Hands the import system the already-imported torchpaddle module."""

    def __init__(self, module):
        self._module = module
        self._spec = getattr(module, "__spec__", None)

    def create_module(self, spec):
        return self._module

    def exec_module(self, module):
        # The import system stamped the alias spec on the module; keep torchpaddle's own, so that
        # relative imports, reload and pickling still see the module's real identity.
        if self._spec is not None:
            module.__spec__ = self._spec


class _AliasFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        real = _target_name(fullname)
        if real is None:
            return None
        try:
            module = importlib.import_module(real)
        except ModuleNotFoundError as e:
            # torchpaddle has no such submodule: let the normal machinery report ``paddle.X`` missing.
            # (A missing module imported *by* torchpaddle code is a real error and propagates.)
            if e.name is not None and (real == e.name or real.startswith(e.name + ".")):
                return None
            raise
        return importlib.util.spec_from_loader(fullname, _AliasLoader(module),
                                               is_package=hasattr(module, "__path__"))


_FINDER = _AliasFinder()


def _installed():
    return any(f is _FINDER for f in sys.meta_path)


def install_as_paddle():
    """Make ``import paddle`` (and every ``paddle.*`` submodule) import torchpaddle, in this process.

    Idempotent. Refuses (RuntimeError) when a real ``paddle`` package is already imported, since two
    different ``paddle`` modules in one process would silently mix.
    """
    import torchpaddle
    existing = sys.modules.get(_ALIAS)
    if existing is not None and existing is not torchpaddle:
        where = getattr(existing, "__file__", None) or repr(existing)
        raise RuntimeError(f"install_as_paddle: a different 'paddle' module is already imported (from {where}); "
                           "call torchpaddle.install_as_paddle() before anything imports paddle")
    for name, module in list(sys.modules.items()):
        real = _target_name(name)
        if real is not None and module is not None and sys.modules.get(real) is not module:
            raise RuntimeError(f"install_as_paddle: '{name}' is already imported and is not torchpaddle's "
                               f"module; call torchpaddle.install_as_paddle() before anything imports paddle")
    if not _installed():
        sys.meta_path.insert(0, _FINDER)
    # Modules already imported are registered under their paddle names right away.
    for name, module in list(sys.modules.items()):
        if module is not None and (name == _TARGET or name.startswith(_TARGET + ".")):
            sys.modules.setdefault(_ALIAS + name[len(_TARGET):], module)
    return torchpaddle


def _uninstall():
    """Undo install_as_paddle (for tests)."""
    sys.meta_path[:] = [f for f in sys.meta_path if f is not _FINDER]
    for name in [n for n in sys.modules if _target_name(n) is not None]:
        del sys.modules[name]

"""save_dygraph / load_dygraph: ``<prefix>.pdparams`` / ``<prefix>.pdopt`` pickles as Paddle 1.8 writes them
(a dict of numpy arrays plus the ``StructuredToParameterName@@`` name table, pickle protocol 2); loading uses
torchpaddle's allow-list unpickler, so a file never runs code."""
import os
import pickle

from ...framework import atomic as _atomic
from ...framework import io as _io
from ...framework.parameter import Parameter
from ...framework.tensor import Tensor

__all__ = ["save_dygraph", "load_dygraph"]

_NAME_TABLE = "StructuredToParameterName@@"


class _LegacyNumpyPickler(pickle._Pickler):
    """Names NumPy 2's ``numpy._core`` functions by their NumPy 1 path (``numpy.core``), which every NumPy can
    import, so that Paddle 1.8 (NumPy < 1.20) reads the file. The pure-Python pickler allows the override."""

    def save_global(self, obj, name=None):
        module = getattr(obj, "__module__", None) or ""
        if module == "numpy._core" or module.startswith("numpy._core."):
            module = "numpy.core" + module[len("numpy._core"):]
            self.write(pickle.GLOBAL + f"{module}\n{name or obj.__qualname__}\n".encode("utf-8"))
            self.memoize(obj)
            return
        super().save_global(obj, name)


def save_dygraph(state_dict, model_path):
    """Write a layer's state_dict to ``model_path + '.pdparams'``, an optimizer's to ``model_path + '.pdopt'``
    (fluid decides by the first value: a Parameter means a layer)."""
    if not isinstance(model_path, str):
        raise TypeError(f"save_dygraph: model_path must be a str, got {type(model_path).__name__}")
    if os.path.basename(model_path) == "":
        raise AssertionError("The input model_path MUST be format of dirname/filename [dirname\\filename in Windows "
                             "system], but received filename is empty string.")
    if not isinstance(state_dict, dict):
        raise TypeError(f"save_dygraph: state_dict must be a dict, got {type(state_dict).__name__}")
    if len(state_dict) == 0:
        raise AssertionError("state_dict is empty, no need to save")
    first = next(iter(state_dict.values()))
    suffix = ".pdparams" if isinstance(first, Parameter) else ".pdopt"
    saved, names = {}, {}
    for key, value in state_dict.items():
        if isinstance(value, Tensor):
            saved[key] = value.numpy()
            names[key] = value.name
        else:
            saved[key] = value
    saved[_NAME_TABLE] = names
    _atomic.write_file(model_path + suffix, lambda f: _LegacyNumpyPickler(f, protocol=2).dump(saved))


def _read(path):
    return _io.load(path, return_numpy=True, keep_name_table=True)


def load_dygraph(model_path, keep_name_table=False):
    """(parameters, optimizer state or None) from ``model_path`` (with or without its suffix), as numpy arrays."""
    if not isinstance(model_path, str):
        raise TypeError(f"load_dygraph: model_path must be a str, got {type(model_path).__name__}")
    prefix = model_path
    for suffix in (".pdparams", ".pdopt"):
        if prefix.endswith(suffix):
            prefix = prefix[:-len(suffix)]
    params_path = prefix + ".pdparams"
    if not os.path.exists(params_path):
        raise RuntimeError(f"Parameter file [ {params_path} ] not exists")
    params = _read(params_path)
    if not isinstance(params, dict):
        raise ValueError(f"load_dygraph: {params_path} does not hold a state dict")
    if not keep_name_table:
        params.pop(_NAME_TABLE, None)
    opt_path = prefix + ".pdopt"
    return params, (_read(opt_path) if os.path.exists(opt_path) else None)

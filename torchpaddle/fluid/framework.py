"""fluid.framework: the static IR classes, places and process settings under their Paddle 1.x names, and the
rule that puts fluid code in static mode (see the package docstring)."""
import contextlib
import os

from ..framework import mode as _mode
from ..framework.flags import get_flags, set_flags  # noqa: F401
from ..framework.place import CUDAPinnedPlace  # noqa: F401
from ..framework.place import CPUPlace, CUDAPlace, is_compiled_with_cuda  # noqa: F401
from ..framework.program import (Block, Operator, Program, Variable, default_startup_program,  # noqa: F401
                                 default_main_program, grad_var_name, name_scope)
from ..framework.program import StaticParameter as Parameter  # noqa: F401
from ..framework.program import device_guard as _device_guard
from ..framework.program import program_guard as _program_guard
from ..static.input import cpu_places as _cpu_places
from ..static.input import cuda_places  # noqa: F401
from ..utils.version import require_version  # noqa: F401

__all__ = ["Program", "default_startup_program", "default_main_program", "program_guard", "name_scope",
           "cuda_places", "cpu_places", "cuda_pinned_places", "in_dygraph_mode", "is_compiled_with_cuda",
           "Variable", "ComplexVariable", "load_op_library", "require_version", "device_guard", "set_flags",
           "get_flags"]


def enter_static_mode():
    """Paddle 1.x builds programs by default: the first static-only fluid call of a process that never chose a
    mode (enable_static / disable_static / dygraph.guard from static) switches it to static mode."""
    if not _mode.in_static_mode() and not _mode.STATE.chosen:
        _mode.enable_static()


def in_dygraph_mode():
    return _mode.in_dynamic_mode()


@contextlib.contextmanager
def program_guard(main_program, startup_program=None):
    """``static.program_guard``, entering static mode for a fluid program (see enter_static_mode)."""
    enter_static_mode()
    with _program_guard(main_program, startup_program):
        yield


def device_guard(device=None):
    enter_static_mode()
    return _device_guard(device)


def cpu_places(device_count=None):
    """``device_count`` CPUPlaces (default: $CPU_NUM, else the number of cores); 0 gives none, as in 1.x."""
    if device_count == 0 and not isinstance(device_count, bool):
        return []
    return _cpu_places(device_count)


def cuda_pinned_places(device_count=None):
    """``device_count`` CUDAPinnedPlaces (default: $CPU_NUM, else the number of cores), as Paddle 1.x."""
    if not is_compiled_with_cuda():
        raise RuntimeError("cuda_pinned_places: torchpaddle is not running with CUDA (no GPU is visible to torch)")
    if device_count is None:
        device_count = int(os.environ.get("CPU_NUM", os.cpu_count() or 1))
    if not isinstance(device_count, int) or device_count < 1:
        raise ValueError(f"cuda_pinned_places: device_count must be a positive int, got {device_count!r}")
    return [CUDAPinnedPlace() for _ in range(device_count)]


class ComplexVariable:
    """Paddle 1.8's static complex variable (a real/imag pair): torchpaddle's Variables hold complex dtypes
    directly, so this pair type is not built."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError("fluid.ComplexVariable: build the variable with a complex64/complex128 dtype "
                                  "instead (torchpaddle's Variables hold complex values directly)")


def load_op_library(lib_filename):
    """Load a custom-operator library built for torch (``torch.ops.load_library``): its ops are then
    ``torch.ops.<namespace>.<op>``. A library compiled against Paddle's C++ API cannot be loaded here."""
    import torch
    if not isinstance(lib_filename, str):
        raise TypeError(f"load_op_library: lib_filename must be a str, got {type(lib_filename).__name__}")
    if not os.path.isfile(lib_filename):
        raise ValueError(f"load_op_library: no such file {lib_filename!r}")
    try:
        torch.ops.load_library(lib_filename)
    except OSError as e:
        text = str(e)
        hint = (" It was built against PaddlePaddle's C++ library; torchpaddle runs custom ops written for torch "
                "(torch.library / torch.utils.cpp_extension), so rebuild the op as a torch extension.") \
            if "paddle" in text.lower() or "undefined symbol" in text else ""
        raise RuntimeError(f"load_op_library: cannot load {lib_filename!r}: {text}.{hint}") from None

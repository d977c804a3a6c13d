"""paddle.utils: unique names, nested-structure helpers, deprecation and version checks, optional imports,
run_check, DLPack exchange, downloads and (unsupported) custom C++ operators."""
from . import cpp_extension, dlpack, download, unique_name  # noqa: F401
from .deprecated import deprecated  # noqa: F401
from .install_check import run_check  # noqa: F401
from .lazy_import import try_import  # noqa: F401
from .nest import flatten, map_structure, pack_sequence_as  # noqa: F401
from .version import require_version  # noqa: F401

__all__ = ["deprecated", "run_check", "require_version", "try_import"]

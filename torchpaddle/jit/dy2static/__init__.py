"""dy2static: converting a function's Python control flow on Tensors into static control flow (Paddle's AST path,
``to_static(full_graph=True)``). ``convert_to_static`` gives the converted function; to_static traces it."""
from .function import convert_to_static, convert_call, source_note, Switches  # noqa: F401
from .undefined import UndefinedVar  # noqa: F401

__all__ = ["convert_to_static", "convert_call", "source_note", "UndefinedVar"]

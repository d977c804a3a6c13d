"""UndefinedVar: the value of a name that converted code hands around before any code bound it."""

__all__ = ["UndefinedVar"]


def _unbound(self, *args, **kwargs):
    raise UnboundLocalError(f"local variable '{self._name}' is used before it is assigned (dy2static: it is "
                            "assigned in only some branches of an if or inside a loop on a Tensor)")


class UndefinedVar:
    """A name unbound at this point; any use raises UnboundLocalError naming it."""
    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"UndefinedVar({self._name!r})"

    def __getattr__(self, attr):
        if attr.startswith("_"):
            raise AttributeError(attr)
        _unbound(self)

    for _op in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor",
                "lt", "le", "gt", "ge", "getitem", "call", "iter", "len", "neg", "pos", "abs", "invert",
                "radd", "rsub", "rmul", "rtruediv", "rfloordiv", "rmod", "rpow", "rmatmul", "index", "int",
                "float", "bool", "setitem", "contains"):
        locals()[f"__{_op}__"] = _unbound
    del _op

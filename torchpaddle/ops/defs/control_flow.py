"""Ops of static control flow and of ``static.py_func``: ``select_input`` (the result of the branch of a ``cond``
that ran) and ``py_func`` (a Python function called when the program runs). py_func's functions live in a
registry of ``torchpaddle.static``, a higher layer, which provides the call as the hook ``py_func``."""
from ...framework import hooks as _hooks
from ..registry import op


@op("select_input", inputs=["X[]", "Mask"], outputs=["Out"])
def select_input(X, Mask):
    """Out = X[Mask]: the value of the branch that ran (the other entries may be None: never computed)."""
    index = int(Mask.reshape(-1)[0])
    if not 0 <= index < len(X):
        raise ValueError(f"select_input: Mask is {index}, but X holds {len(X)} inputs")
    if X[index] is None:
        raise RuntimeError(f"select_input: input {index} was not computed (its conditional block did not run)")
    return X[index]


@op("py_func", inputs=["X[]"], outputs=["Out[]"],
    attrs={"forward_callable_id": 0, "backward_callable_id": -1, "backward_skip_vars": []})
def py_func(X, *, forward_callable_id, backward_callable_id, backward_skip_vars):
    """Out = the function registered under forward_callable_id, called on X (see static/py_func.py)."""
    return _hooks.get("py_func")(X, forward_callable_id)

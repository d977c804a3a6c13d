"""Ops of static control flow and of ``static.py_func``: ``select_input`` (the result of the branch of a ``cond``
that ran) and ``py_func`` (a Python function called when the program runs). py_func's functions live in a
registry of ``torchpaddle.static``, a higher layer, which provides the call as the hook ``py_func``."""
from ...framework import hooks as _hooks
from ..registry import REQUIRED, op


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


def format_print(name, value, message="", summarize=20, print_tensor_name=True, print_tensor_type=True,
                 print_tensor_shape=True, print_tensor_layout=True, print_tensor_lod=True):
    """The text Paddle's print op writes for one tensor (every element as %.6f, the first ``summarize``; -1:
    all)."""
    lines = [f"Variable: {name}"] if print_tensor_name else []
    if message:
        lines.append(f"  - message: {message}")
    if print_tensor_lod:
        lines.append("  - lod: {}")
    place = "cpu" if value.device.type == "cpu" else f"gpu:{value.device.index or 0}"
    lines.append(f"  - place: Place({place})")
    if print_tensor_shape:
        lines.append(f"  - shape: {list(value.shape)}")
    if print_tensor_layout:
        lines.append("  - layout: NCHW")
    if print_tensor_type:
        lines.append(f"  - dtype: {str(value.dtype).replace('torch.', '')}")
    flat = value.detach().reshape(-1)
    if summarize >= 0:
        flat = flat[:summarize]
    lines.append("  - data: [" + " ".join(f"{float(v):.6f}" for v in flat.cpu().tolist()) + "]")
    return "\n".join(lines)


@op("print", inputs=["In"], outputs=["Out"],
    attrs={"first_n": REQUIRED, "message": REQUIRED, "summarize": REQUIRED, "print_tensor_name": True, "print_tensor_type": True,
           "print_tensor_shape": True, "print_tensor_layout": True, "print_tensor_lod": True,
           "print_phase": "BOTH", "is_forward": True})
def print_op(In, *, first_n, message, summarize, print_tensor_name, print_tensor_type, print_tensor_shape,
             print_tensor_layout, print_tensor_lod, print_phase, is_forward):
    """Out = In, printing In (a program's step prints it under its variable name: static/control_flow_exec.py)."""
    print(format_print("", In, message, summarize, False, print_tensor_type, print_tensor_shape,
                       print_tensor_layout, print_tensor_lod), flush=True)
    return In


def check_assert(Cond, Data, summarize, cond_name="", data_names=()):
    """Raise ValueError (Paddle's InvalidArgumentError) unless the one-element Cond holds, printing Data first."""
    if Cond.numel() != 1:
        raise ValueError(f"assert: the condition {cond_name} must hold one element, got shape {list(Cond.shape)}")
    if bool(Cond.reshape(-1)[0]):
        return
    names = list(data_names) or [""] * len(Data)
    for n, value in zip(names, Data):
        print(format_print(n, value, summarize=summarize, print_tensor_name=bool(n)), flush=True)
    raise ValueError(f"The condition variable '{cond_name}' of AssertOp must be true, but received false")


@op("assert", inputs=["Cond", "Data[]"], outputs=[], attrs={"summarize": -1}, differentiable=False)
def assert_op(Cond, Data, *, summarize):
    """Raise ValueError when Cond is false, printing the first ``summarize`` elements of each Data tensor."""
    check_assert(Cond, Data, summarize)
    return ()

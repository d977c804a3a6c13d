"""Tensor.__repr__ and paddle.set_printoptions, reproducing Paddle 3.3.1's text exactly.

Paddle's quirks kept on purpose: column width and the sign column come from the summarized edges even when
every element is printed; a float with an integral value prints as ``3.`` (so ``inf.`` and ``-inf.``, while
``nan`` keeps no dot); complex values print with full precision in parentheses.
"""
import math
import operator

import torch

__all__ = ["set_printoptions", "tensor_repr"]

_OPTIONS = {"precision": 8, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": False}
_FLOATS = (torch.float16, torch.float32, torch.float64)
_AS_FLOAT32 = (torch.bfloat16, torch.float8_e4m3fn, torch.float8_e5m2)  # no NumPy dtype: printed via float32


def set_printoptions(precision=None, threshold=None, edgeitems=None, sci_mode=None, linewidth=None):
    """Set the options Tensor printing uses; ``None`` keeps the current value."""
    # NOTE: Paddle's eager mode raises RuntimeError from its C++ binding here; TypeError is what its
    # static-mode check_type (and its documentation) gives.
    changes = {}
    for key, value, kind in (("precision", precision, "an int"), ("threshold", threshold, "an int"),
                             ("edgeitems", edgeitems, "an int"), ("linewidth", linewidth, "an int"),
                             ("sci_mode", sci_mode, "a bool")):
        if value is not None:
            try:
                changes[key] = operator.index(value)
            except TypeError:
                raise TypeError(f"set_printoptions: {key} must be {kind}, but received "
                                f"{type(value).__name__}") from None
    if "sci_mode" in changes:
        changes["sci_mode"] = bool(changes["sci_mode"])
    _OPTIONS.update(changes)


def _float_text(value, precision, sci_mode):
    if sci_mode:
        return f"{value:.{precision}e}"
    if math.isinf(value) or value.is_integer():
        return f"{value:.0f}."
    return f"{value:.{precision}f}"


def _complex_text(value, precision, sci_mode):
    kind = "e" if sci_mode else "f"
    re, im = value.real, value.imag
    sign = "+" if im >= 0 else ""
    return f"({re:.{precision}{kind}}{sign}{im:.{precision}{kind}}j)"


def _item_texter(t):
    """(value -> unpadded text, value -> is negative) for the elements of torch tensor ``t``."""
    precision, sci_mode = _OPTIONS["precision"], _OPTIONS["sci_mode"]
    if t.dtype in _FLOATS:
        return (lambda v: _float_text(v, precision, sci_mode)), (lambda v: v < 0)
    if t.is_complex():
        # NumPy orders complex numbers by real part, then imaginary part
        return ((lambda v: _complex_text(v, precision, sci_mode)),
                (lambda v: v.real < 0 or (v.real == 0 and v.imag < 0)))
    return str, (lambda v: v < 0)


def _edges(t, edgeitems):
    """Keep ``edgeitems`` rows at each end of every axis longer than twice that (what the widths come from)."""
    for axis, size in enumerate(t.shape):
        if size > 2 * edgeitems:
            lead = (slice(None),) * axis
            t = torch.cat([t[lead + (slice(None, edgeitems),)], t[lead + (slice(-edgeitems, None),)]], dim=axis)
    return t


def _nest(values, shape, width, summary, edgeitems, linewidth, indent):
    """Paddle's bracketed layout of the already formatted ``values`` (nested lists) of a tensor of ``shape``."""
    size = shape[0]
    elided = summary and size > 2 * edgeitems
    if elided:
        # ``values`` holds only the kept edges here, so its tail is the last ``edgeitems`` rows
        rows = values[:max(edgeitems, 0)] + [None] + (values[len(values) - edgeitems:] if edgeitems > 0 else [])
    else:
        rows = values
    if len(shape) == 1:
        items = ["..." if v is None else v for v in rows]
        per_line = max(1, (linewidth - indent) // (width + 2))
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    parts = ["..." if v is None else _nest(v, shape[1:], width, summary, edgeitems, linewidth, indent + 1)
             for v in rows]
    return "[" + ("," + "\n" * (len(shape) - 1) + " " * (indent + 1)).join(parts) + "]"


def _body(t, indent):
    """The values of torch tensor ``t`` (on any device) laid out as Paddle prints them."""
    if t.dtype in _AS_FLOAT32:
        t = t.float()
    text, negative = _item_texter(t)
    if t.dim() == 0:
        return text(t.item())
    edgeitems = _OPTIONS["edgeitems"]
    summary = t.numel() > _OPTIONS["threshold"]
    edges = _edges(t, edgeitems).cpu()  # cut on the device, so a large tensor is never copied whole
    flat = edges.reshape(-1).tolist()
    width = max(map(len, map(text, flat)), default=0)
    signed = any(map(negative, flat))

    def pad(v):
        s = text(v)
        if width <= len(s):
            return s
        if signed and not negative(v):
            return " " + s.ljust(width - 1)
        return s.ljust(width)

    if summary and edgeitems <= 0:
        values = []  # every element is elided: Paddle prints [...]
    elif summary or edges.shape == t.shape:
        values = edges.tolist()
    else:
        values = t.cpu().tolist()
    return _nest(_map(values, pad), list(t.shape), width, summary, edgeitems, _OPTIONS["linewidth"], indent)


def _map(values, fn):
    return [_map(v, fn) for v in values] if isinstance(values, list) else fn(values)


def tensor_repr(tensor, prefix="Tensor"):
    """``Tensor(shape=[...], dtype=..., place=..., stop_gradient=...,`` then the values, as Paddle prints."""
    t = tensor._t.detach()
    indent = len(prefix) + 1
    if t.layout is not torch.strided:
        return _sparse_repr(tensor, t, prefix, indent)
    dist = ""
    if type(t) is not torch.Tensor and hasattr(t, "full_tensor"):
        # a dist tensor (torch DTensor): Paddle prints its mesh, placements and global value
        dist = (f" process_mesh={tensor.process_mesh._ir_str()}, placements={tensor.placements}, "
                "GlobalDenseTensor=")
        t = t.full_tensor()
    return (f"{prefix}(shape={list(t.shape)}, dtype={tensor.dtype.name}, place={tensor.place}, "
            f"stop_gradient={tensor.stop_gradient},{dist}\n{' ' * indent}{_body(t, indent)})")


def _sparse_repr(tensor, t, prefix, indent):
    """A COO/CSR tensor (paddle.sparse) as Paddle prints it: its index tensors, then its values."""
    if t.layout is torch.sparse_coo:
        parts = [("indices", t._indices()), ("values", t._values())]
    else:
        parts = [("crows", t.crow_indices().reshape(-1)), ("cols", t.col_indices().reshape(-1)),
                 ("values", t.values().reshape(-1))]
    pad = " " * indent
    body = ", \n".join(f"{pad}{key}={_body(value, indent + len(key) + 1)}" for key, value in parts)
    return (f"{prefix}(shape={list(t.shape)}, dtype=paddle.{tensor.dtype.name}, place={tensor.place}, "
            f"stop_gradient={tensor.stop_gradient}, \n{body})")

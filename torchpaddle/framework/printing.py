"""Tensor.__repr__ in Paddle's layout."""
import numpy as np

_OPTIONS = {"precision": 8, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": False}


def set_printoptions(precision=None, threshold=None, edgeitems=None, sci_mode=None, linewidth=None):
    for key, value in (("precision", precision), ("threshold", threshold), ("edgeitems", edgeitems),
                       ("sci_mode", sci_mode), ("linewidth", linewidth)):
        if value is not None:
            _OPTIONS[key] = value


def _format_float(value):
    if float(value).is_integer() and abs(value) < 1e16:
        return f"{value:.0f}."
    return f"{value:.{_OPTIONS['precision']}f}"


def _body(array):
    if array.ndim == 0:
        if array.dtype.kind == "f":
            return f"{float(array):.{_OPTIONS['precision']}f}"
        return str(array.item())
    formatter = {}
    if array.dtype.kind == "f" and not _OPTIONS["sci_mode"]:
        width = max((len(_format_float(v)) for v in array.reshape(-1)[:2000]), default=1)
        formatter = {"float_kind": lambda v: _format_float(v).ljust(width)}
    elif array.dtype.kind == "b":
        formatter = {"bool": lambda v: "True " if v else "False"}
    return np.array2string(array, separator=", ", prefix="       ", threshold=_OPTIONS["threshold"],
                           edgeitems=_OPTIONS["edgeitems"], max_line_width=_OPTIONS["linewidth"],
                           formatter=formatter or None)


def tensor_repr(tensor):
    header = (f"Tensor(shape={list(tensor.shape)}, dtype={tensor.dtype.name}, place={tensor.place}, "
              f"stop_gradient={tensor.stop_gradient},\n       ")
    return header + _body(tensor.numpy()) + ")"

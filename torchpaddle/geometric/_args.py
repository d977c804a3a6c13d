"""Argument checks shared by the paddle.geometric functions."""
from ..framework.tensor import Tensor

_REDUCE = ("sum", "mean", "max", "min")
_MESSAGE = ("add", "sub", "mul", "div")


def check_tensor(api, argument, value, dtypes):
    if not isinstance(value, Tensor):
        # NOTE: Paddle's eager argument parser reports a non-Tensor as ValueError
        raise ValueError(f"{api}: {argument} must be a Tensor, got {type(value).__name__}")
    dtype = str(value.dtype).replace("paddle.", "")
    if dtype not in dtypes:
        raise TypeError(f"{api}: {argument} must be of dtype {'/'.join(dtypes)}, got {dtype}")


def check_choice(api, argument, value, choices):
    if value not in choices:
        raise ValueError(f"{api}: {argument} must be one of {', '.join(choices)}, got {value!r}")
    return value.upper()


def out_size_args(out_size):
    """(Out_size tensor or None, out_size attr) for Paddle's int / Tensor / None ``out_size``."""
    if out_size is None:
        return None, [0]
    if isinstance(out_size, Tensor):
        return out_size, [0]
    return None, [int(out_size)]

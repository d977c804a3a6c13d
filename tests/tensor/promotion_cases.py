"""Binary-op dtype promotion, run on real Paddle 3.3.1 and on torchpaddle, then compared: every pair of dtypes
for Tensor-Tensor ops at ranks 1/0, Tensor-Python scalar operators (both sides), and integer division under a
float64 default dtype. Each outcome is the result dtype (plus a value where a scalar's type matters) or the
error class. Run inside the reference virtualenv: ``python -m tests.tensor.promotion_cases OUT.pkl``.
"""
import pickle
import sys

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
          "complex64", "complex128"]
SHAPES = [([2], [2]), ([2], []), ([], [2]), ([], [])]
# Tensor-Tensor: paddle functions, and the operators that go through Tensor's dunder methods.
BINARY = {
    "add": lambda p: p.add, "subtract": lambda p: p.subtract, "multiply": lambda p: p.multiply,
    "divide": lambda p: p.divide, "pow": lambda p: p.pow, "floor_divide": lambda p: p.floor_divide,
    "remainder": lambda p: p.remainder, "maximum": lambda p: p.maximum, "equal": lambda p: p.equal,
    "not_equal": lambda p: p.not_equal, "less_than": lambda p: p.less_than,
    "greater_equal": lambda p: p.greater_equal, "logical_and": lambda p: p.logical_and,
    "+": lambda p: lambda a, b: a + b, "/": lambda p: lambda a, b: a / b, "<": lambda p: lambda a, b: a < b,
    "==": lambda p: lambda a, b: a == b,
}
SCALARS = {"int": 3, "float": 1.5, "bool": True, "complex": 1 + 2j}
OPERATORS = {
    "x+s": lambda a, s: a + s, "s+x": lambda a, s: s + a, "x-s": lambda a, s: a - s, "s-x": lambda a, s: s - a,
    "x*s": lambda a, s: a * s, "s*x": lambda a, s: s * a, "x/s": lambda a, s: a / s, "s/x": lambda a, s: s / a,
    "x**s": lambda a, s: a ** s, "s**x": lambda a, s: s ** a, "x//s": lambda a, s: a // s,
    "x%s": lambda a, s: a % s, "x<s": lambda a, s: a < s, "x==s": lambda a, s: a == s,
}


def _error(exc):
    # TypeError/ValueError as classes (ours may be both); anything else by name (RuntimeError: no CPU kernel)
    return "TypeError" if isinstance(exc, TypeError) else "ValueError" if isinstance(exc, ValueError) \
        else type(exc).__name__


def _outcome(fn, with_value=False):
    try:
        out = fn()
    except Exception as exc:  # noqa: BLE001 - the error class is the outcome
        return "ERR:" + _error(exc)
    dtype = str(out.dtype)
    if with_value and "complex" not in dtype:
        return f"{dtype}:{round(float(out.astype('float64').numpy().reshape(-1)[0]), 3)}"
    return dtype


def tensor_tensor(paddle):
    out = {}
    for name, get in BINARY.items():
        fn = get(paddle)
        for xs, ys in SHAPES:
            for a in DTYPES:
                for b in DTYPES:
                    out[f"{name}|{xs}|{ys}|{a}|{b}"] = _outcome(
                        lambda: fn(paddle.ones(xs, dtype=a), paddle.ones(ys, dtype=b)))
    return out


def tensor_scalar(paddle):
    out = {}
    for name, fn in OPERATORS.items():
        for shape in ([2], []):
            for a in DTYPES:
                for kind, value in SCALARS.items():
                    out[f"{name}|{shape}|{a}|{kind}"] = _outcome(
                        lambda: fn(paddle.full(shape, 2, dtype=a), value), with_value=True)
    return out


def float64_default(paddle):
    """Paddle computes integers with a float in float32 even when the default dtype is float64."""
    old = paddle.get_default_dtype()
    paddle.set_default_dtype("float64")
    try:
        i32, i64 = paddle.ones([2], "int32"), paddle.full([], 3, "int64")
        cases = {"i/i": lambda: i32 / i32, "divide(i,i)": lambda: paddle.divide(i32, i32),
                 "i/3": lambda: i32 / 3, "3/i": lambda: 3 / i32, "i+1.5": lambda: i32 + 1.5,
                 "1.5*i": lambda: 1.5 * i32, "i*1j": lambda: i32 * 1j, "i/0d_i64": lambda: i32 / i64,
                 "0d/0d": lambda: i64 / i64, "b+1.5": lambda: paddle.ones([2], "bool") + 1.5}
        return {name: _outcome(fn, with_value=True) for name, fn in cases.items()}
    finally:
        paddle.set_default_dtype(old)


def run(paddle):
    return {"tensor_tensor": tensor_tensor(paddle), "tensor_scalar": tensor_scalar(paddle),
            "float64_default": float64_default(paddle)}


if __name__ == "__main__":
    import warnings
    warnings.filterwarnings("ignore")
    import paddle as _paddle
    with open(sys.argv[1], "wb") as f:
        pickle.dump({"results": run(_paddle)}, f)

"""In-place variants (``x.add_(y)``, ``paddle.tanh_(x)``) derived from the out-of-place functions.

When autograd is involved the Tensor is rebound to the new result (so torch records the op correctly and the
old value stays available to backward); otherwise the result is copied into the existing storage, so views
and holders of the storage see the change as in Paddle.
"""
import torch

from ..framework.tensor import Tensor

# Paddle names whose out-of-place function has another name.
_ALIASES = {"mul": "multiply", "sub": "subtract", "div": "divide", "clamp": "clip", "less": "less_than"}
# Paddle 3.3.1's in-place Tensor methods and paddle.* functions (a superset is harmless: only names whose base
# function exists get a variant).
_NAMES = """abs acos acosh add addmm asin asinh atan atanh bitwise_and bitwise_left_shift bitwise_not bitwise_or
bitwise_right_shift bitwise_xor cast ceil clamp clip copysign cos cosh cumprod cumsum digamma div divide equal erf
erfinv exp expm1 flatten floor floor_divide floor_mod frac gcd greater_equal greater_than hypot i0 index_add
index_fill index_put lcm ldexp lerp less less_equal less_than lgamma log10 log1p log2 log logical_and logical_not
logical_or logical_xor logit masked_fill masked_scatter mod mul multiply nan_to_num neg not_equal pow
put_along_axis reciprocal remainder renorm round rsqrt scale scatter scatter_add sigmoid sin sinc sinh sqrt square
sub subtract t tan tanh transpose tril triu trunc where""".split()
# paddle.<name>_ functions in 3.3.1 (the rest are Tensor methods only).
_FUNCTIONS = """abs acos acosh addmm asin asinh atan atanh bitwise_and bitwise_left_shift bitwise_not bitwise_or
bitwise_right_shift bitwise_xor cast copysign cos cosh cumprod cumsum digamma div divide equal erf expm1 flatten
floor_divide floor_mod frac gcd greater_equal greater_than hypot i0 index_add index_fill index_put lcm ldexp less
less_equal less_than lgamma log10 log1p log2 log logical_and logical_not logical_or logical_xor logit masked_fill
masked_scatter mod multiply nan_to_num neg not_equal pow remainder renorm reshape scatter scatter_add sin sinc
sinh square squeeze sub subtract t tan tanh transpose tril triu trunc unsqueeze where""".split()
# in-place forms of the special functions and torch-style names (tensor/math_special.py, compat_aliases.py)
_NEW = "baddbmm bitwise_invert gammainc gammaincc gammaln multigammaln polygamma".split()
_NAMES += _NEW
_FUNCTIONS += _NEW


def commit(x, out, api):
    """Make Tensor ``x`` hold ``out``'s value, as Paddle's in-place ops do."""
    t, new = x._t, out._t
    if t.requires_grad and t.is_leaf and torch.is_grad_enabled():
        raise ValueError(f"{api}: Leaf Tensor ({x.name}) that doesn't stop gradient can't use inplace strategy.")
    if new.shape != t.shape:
        raise ValueError(f"{api}: the result's shape {list(new.shape)} differs from the input's shape "
                         f"{list(t.shape)}; an in-place op cannot change it")
    if (t.requires_grad or new.requires_grad) and torch.is_grad_enabled():
        x._t = new
    elif new.dtype is not t.dtype and api not in ("cast_",):
        x._t = new
    else:
        t.copy_(new)
    return x


def _make(fn, api):
    def inplace(x, *args, **kwargs):
        return commit(x, fn(x, *args, **kwargs), api)
    inplace.__name__ = inplace.__qualname__ = api
    inplace.__doc__ = f"In-place version of {fn.__name__}."
    return inplace


def install(namespace, exported):
    """Add ``name_`` variants to Tensor and, for Paddle's in-place functions, to ``namespace``."""
    functions = set(_FUNCTIONS)
    for name in _NAMES + [n for n in _FUNCTIONS if n not in _NAMES]:
        api = name + "_"
        base = namespace.get(_ALIASES.get(name, name))
        if base is None or not callable(base):
            continue
        fn = namespace.get(api) or getattr(Tensor, api, None) or _make(base, api)
        if api not in Tensor.__dict__:
            setattr(Tensor, api, fn)
        if name in functions and api not in namespace:
            namespace[api] = fn
            exported.append(api)
    for alias, target in _ALIASES.items():
        if alias not in Tensor.__dict__ and target in namespace:
            setattr(Tensor, alias, namespace[target])

"""Where paddle.amp meets the op registry: while auto_cast, operator-stats collection or the tensor checker is on,
every op's eager kernel is routed through a wrapper that casts its inputs (Paddle's AMP rules), counts the call
and checks its outputs. Nothing is installed otherwise, so the eager path pays nothing for AMP.

The cast rules are Paddle 3.3.1's eager ones: a white-listed op computes in the AMP dtype, a black-listed one
in float32; any other op computes in float32 when one of its float inputs is float32 ("promote"), else in the
AMP dtype (O2 with use_promote=False: always the AMP dtype; OD: always float32). Only float32, float16 and
bfloat16 inputs are cast; batch_norm and layer_norm look at and cast X alone.
"""
import torch

from ..framework.place import get_device, is_compiled_with_rocm
from ..ops.registry import AMP as _HOOKS, REGISTRY

__all__ = ["STATE", "refresh", "eager_name", "canonical", "dest_dtype", "unsupported_reason"]

FLOATS = (torch.float32, torch.float16, torch.bfloat16)
_FP32 = torch.float32

# Paddle's eager (PIR) name of a legacy op type where they differ: the lists hold both kinds of names and
# Paddle matches ``elementwise_add`` in a custom list to the ``add`` that ``a + b`` runs.
_PIR_NAMES = {
    "matmul_v2": "matmul", "elementwise_add": "add", "elementwise_sub": "subtract", "elementwise_mul": "multiply",
    "elementwise_div": "divide", "elementwise_max": "maximum", "elementwise_min": "minimum",
    "elementwise_floordiv": "floor_divide", "elementwise_mod": "remainder", "elementwise_fmax": "fmax",
    "elementwise_fmin": "fmin", "reduce_sum": "sum", "reduce_mean": "mean", "reduce_prod": "prod",
    "reduce_max": "max", "reduce_min": "min", "reduce_all": "all", "reduce_any": "any",
    "lookup_table_v2": "embedding", "softmax_with_cross_entropy": "cross_entropy_with_softmax",
    "linear_interp_v2": "linear_interp", "bilinear_interp_v2": "bilinear_interp",
    "trilinear_interp_v2": "trilinear_interp", "nearest_interp_v2": "nearest_interp",
    "bicubic_interp_v2": "bicubic_interp", "transpose2": "transpose", "reshape2": "reshape", "squeeze2": "squeeze",
    "unsqueeze2": "unsqueeze", "flatten_contiguous_range": "flatten", "top_k_v2": "topk", "expand_v2": "expand",
    "expand_as_v2": "expand_as", "fill_constant": "full", "gaussian_random": "gaussian",
    "uniform_random": "uniform", "hard_swish": "hardswish", "hard_sigmoid": "hardsigmoid",
    "hard_shrink": "hardshrink", "arg_max": "argmax", "arg_min": "argmin", "one_hot_v2": "one_hot",
}
# the legacy ``sum`` op type is add_n; a list naming ``sum`` means the reduction, as in Paddle 3
_OP_NAMES = dict(_PIR_NAMES, sum="add_n")

_X_ONLY = {"batch_norm", "layer_norm", "sync_batch_norm"}
# should an eager conv op take the bias (Paddle adds it with a separate op), that add keeps its own rule
_CONV_BIAS = {"conv2d", "depthwise_conv2d", "conv3d"}
# no AMP for casts and the loss-scaling ops (Paddle: "No AMP for ... cast api"); optimizer ops are skipped too
_NO_AMP = {"cast", "check_finite_and_unscale", "update_loss_scaling"}


def unsupported_reason(api, dtype=None):
    """Why AMP cannot act on the current place (a warning text), or None when it can."""
    device = get_device()
    if not device.startswith("gpu"):
        place = f"Place({device})"
        if api == "AmpScaler":
            return (f"AmpScaler can only be enabled on CUDAPlace, XPUPlace and CustomPlace, current place is "
                    f"{place}, so it makes no effect.")
        return (f"{api} can only be enabled on CUDAPlace, XPUPlace, and CustomPlace, current place is {place}, "
                "so it makes no effect.")
    if dtype is None or is_compiled_with_rocm():
        return None
    major, minor = torch.cuda.get_device_capability()
    name = torch.cuda.get_device_name()
    if dtype == "float16" and major < 7:
        return (f"For float16, amp only support NVIDIA GPU with Compute Capability 7.0 or higher, current GPU is: "
                f"{name}, with Compute Capability: {major}.{minor}.")
    if dtype == "bfloat16" and major < 8:
        return (f"For bfloat16, amp only support NVIDIA GPU with Compute Capability 8.0 or higher and CUDA Version "
                f"11.0 or higher, current GPU is: {name}, with Compute Capability: {major}.{minor}, current CUDA "
                f"Version is: {torch.version.cuda}.")
    return None


def eager_name(op_type):
    """The name Paddle's eager AMP knows the op by."""
    return _OP_NAMES.get(op_type, op_type)


def canonical(name):
    """A name from a white/black list, in eager terms."""
    return _PIR_NAMES.get(name, name)


class _State:
    """AMP: ``level`` ('O0' when off), ``dtype`` (torch), ``white``/``black`` (eager names), ``use_promote``,
    ``place_rule`` (inputs that all live on the CPU compute in float32, as in Paddle's GPU AMP).
    Debugging: ``stats`` ({op type: [fp16, bf16, fp32, other]}) and ``checker`` (a callable) or None."""
    __slots__ = ("level", "dtype", "white", "black", "use_promote", "place_rule", "stats", "checker")

    def __init__(self):
        self.level, self.dtype, self.white, self.black = "O0", _FP32, frozenset(), frozenset()
        self.use_promote, self.place_rule, self.stats, self.checker = True, False, None, None


STATE = _State()
_ORIGINAL = {}   # op type -> its kernel, while the wrappers are installed


def _float_tensors(values):
    found = []
    for v in values:
        if isinstance(v, torch.Tensor):
            if v.dtype in FLOATS:
                found.append(v)
        elif isinstance(v, (list, tuple)):
            found.extend(t for t in v if isinstance(t, torch.Tensor) and t.dtype in FLOATS)
    return found


def dest_dtype(state, name, tensors):
    """The torch dtype op ``name`` computes in under ``state``, given its float input tensors."""
    amp = state.dtype
    if name in state.white:
        dst = amp
    elif name in state.black:
        return _FP32
    elif not state.use_promote:
        dst = amp
    elif state.level == "OD" or any(t.dtype == _FP32 for t in tensors):
        return _FP32
    else:
        dst = amp
    if state.place_rule and all(t.device.type == "cpu" for t in tensors):
        return _FP32
    return dst


def _cast(value, dst):
    if isinstance(value, torch.Tensor):
        return value.to(dst) if value.dtype in FLOATS and value.dtype != dst else value
    if isinstance(value, list):
        return [_cast(v, dst) for v in value]
    if isinstance(value, tuple):
        return tuple(_cast(v, dst) for v in value)
    return value


def _kind(args, out):
    """Stats column of a call: the dtype of its first input tensor, else of its first output."""
    for v in args:
        if isinstance(v, (list, tuple)):
            v = next((t for t in v if isinstance(t, torch.Tensor)), None)
        if isinstance(v, torch.Tensor):
            return v.dtype
    first = out[0] if isinstance(out, (list, tuple)) and out else out
    if isinstance(first, (list, tuple)):
        first = first[0] if first else None
    return first.dtype if isinstance(first, torch.Tensor) else None


_COLUMN = {torch.float16: 0, torch.bfloat16: 1, torch.float32: 2}


def _wrap(d, kernel):
    name, op_type = eager_name(d.type), d.type
    casts = op_type not in _NO_AMP and not any(s.name in ("Param", "MasterParam") for s in d.inputs)
    x_only = op_type in _X_ONLY
    conv_bias = op_type in _CONV_BIAS and len(d.inputs) > 2 and d.inputs[2].name == "Bias"

    def call(*args, **attrs):
        state = STATE
        if casts and state.level != "O0":
            if conv_bias and args[2] is not None:
                return _conv_with_bias(call, args, attrs, state)
            if x_only:
                floats = _float_tensors(args[:1])
                if floats:
                    args = (_cast(args[0], dest_dtype(state, name, floats)),) + args[1:]
            else:
                floats = _float_tensors(args)
                if floats:
                    args = _cast(args, dest_dtype(state, name, floats))
        out = kernel(*args, **attrs)
        if state.stats is not None:
            counts = state.stats.setdefault(op_type, [0, 0, 0, 0])
            counts[_COLUMN.get(_kind(args, out), 3)] += 1
        if state.checker is not None:
            state.checker(op_type, out)
        return out
    return call


def _conv_with_bias(call, args, attrs, state):
    # Paddle: conv2d (white) without the bias, then add(out, bias), which promotes to float32 for a float32 bias
    out = call(args[0], args[1], None, *args[3:], **attrs)
    bias = args[2]
    dst = dest_dtype(state, "add", _float_tensors([out, bias]))
    out, bias = _cast(out, dst), _cast(bias, dst)
    channel_last = attrs.get("data_format", "NCHW") in ("NHWC", "NDHWC")
    return out + (bias if channel_last else bias.reshape([-1] + [1] * (out.dim() - 2)))


linear_hook = None   # what nn.functional.linear calls while AMP is on (auto_cast sets it)


def refresh():
    """Install the wrappers while some feature needs them, remove them when none does."""
    wanted = STATE.level != "O0" or STATE.stats is not None or STATE.checker is not None
    if wanted and not _ORIGINAL:
        for op_type, d in REGISTRY.items():
            _ORIGINAL[op_type] = kernel = d.call_kernel
            d.call_kernel = _wrap(d, kernel)
    elif not wanted and _ORIGINAL:
        for op_type, kernel in _ORIGINAL.items():
            REGISTRY[op_type].call_kernel = kernel
        _ORIGINAL.clear()
    _HOOKS.linear = linear_hook if STATE.level != "O0" else None

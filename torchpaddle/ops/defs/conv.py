"""Convolution ops: conv2d, depthwise_conv2d, conv3d and their transposes, on torch's conv kernels.

Attributes are Paddle's legacy ones: ``strides``, ``paddings`` (one int per spatial dim, or two per dim as
[before0, after0, before1, after1, ...]), ``padding_algorithm`` ("EXPLICIT", "SAME", "VALID"), ``dilations``,
``groups``, ``data_format``. Conv weights are [out_c, in_c / groups, k...]; transposed-conv weights are
[in_c, out_c / groups, k...], the same layouts as torch. Channel-last inputs are viewed as channel-first
(a permute, which torch runs as channels_last memory format) and permuted back.
"""
import torch
import torch.nn.functional as F

from ...framework.dtype import from_torch_dtype
from ..registry import op

_CHANNEL_LAST = ("NHWC", "NDHWC", "NLC", "NWC")
_FLOAT_DTYPES = (torch.float32, torch.float64, torch.float16, torch.bfloat16)


class KernelDtypeError(TypeError, RuntimeError):
    """No kernel for this dtype. Paddle raises RuntimeError (NotFound); Python convention says TypeError."""


def check_float(op_type, slot, t):
    if t.dtype not in _FLOAT_DTYPES:
        raise KernelDtypeError(f"{op_type}: input {slot} has dtype {from_torch_dtype(t.dtype).name}, which this "
                               f"op does not support (use float32 or float64)")


def check_rank(op_type, slot, t, ranks):
    if t.dim() not in ranks:
        want = " or ".join(f"{r}-D" for r in ranks)
        raise ValueError(f"{op_type}: input {slot} must be a {want} tensor, got shape {list(t.shape)}")


def to_channel_first(t, data_format):
    return t.movedim(-1, 1) if data_format in _CHANNEL_LAST else t


def from_channel_first(t, data_format):
    return t.movedim(1, -1) if data_format in _CHANNEL_LAST else t


def check_positive(op_type, name, values):
    for v in values:
        if v <= 0:
            raise ValueError(f"{op_type}: every {name} must be larger than 0, got {name}={list(values)}")


def padding_pairs(op_type, in_sizes, ksize, strides, dilations, paddings, algorithm):
    """Paddle's padding resolution -> ([(before, after)] per spatial dim, dilations)."""
    n = len(ksize)
    if algorithm == "SAME":
        pairs = []
        for i in range(n):
            out = (in_sizes[i] + strides[i] - 1) // strides[i]
            total = max((out - 1) * strides[i] + ksize[i] - in_sizes[i], 0)
            pairs.append((total // 2, total - total // 2))
        # NOTE: Paddle resets the dilation to 1 under SAME padding.
        return pairs, [1] * n
    if algorithm == "VALID":
        return [(0, 0)] * n, list(dilations)
    if algorithm != "EXPLICIT":
        raise ValueError(f"{op_type}: padding_algorithm must be EXPLICIT, SAME or VALID, got {algorithm!r}")
    paddings = list(paddings)
    if len(paddings) == n:
        pairs = [(p, p) for p in paddings]
    elif len(paddings) == 2 * n:
        pairs = [(paddings[2 * i], paddings[2 * i + 1]) for i in range(n)]
    else:
        raise ValueError(f"{op_type}: paddings must hold {n} or {2 * n} ints for {n} spatial dims, "
                         f"got {paddings}")
    for p in paddings:
        if p < 0:
            raise ValueError(f"{op_type}: paddings must be non-negative, got {paddings}")
    return pairs, list(dilations)


def torch_pad(pairs):
    """[(before, after)] per spatial dim, first dim first -> torch's F.pad list (last dim first)."""
    out = []
    for lo, hi in reversed(pairs):
        out += [lo, hi]
    return out


def _conv_forward(op_type, nd, Input, Filter, strides, paddings, padding_algorithm, groups, dilations,
                  data_format):
    check_rank(op_type, "Input", Input, (nd + 2,))
    if Filter.dim() != nd + 2:
        raise ValueError(f"{op_type}: Filter must have the rank of Input ({nd + 2}), got Filter "
                         f"{list(Filter.shape)} for Input {list(Input.shape)}")
    check_float(op_type, "Input", Input)
    if Filter.dtype is not Input.dtype:
        raise ValueError(f"{op_type}: Filter has dtype {from_torch_dtype(Filter.dtype).name} but Input has "
                         f"{from_torch_dtype(Input.dtype).name}; they must match")
    check_positive(op_type, "stride", strides)
    check_positive(op_type, "dilation", dilations)
    if groups <= 0:
        raise ValueError(f"{op_type}: groups must be larger than 0, got {groups}")
    x = to_channel_first(Input, data_format)
    channels = x.shape[1]
    if channels != Filter.shape[1] * groups:
        raise ValueError(f"{op_type}: Input has {channels} channels (shape {list(Input.shape)}, data_format "
                         f"{data_format}) but Filter {list(Filter.shape)} with groups={groups} expects "
                         f"{Filter.shape[1] * groups}")
    if Filter.shape[0] % groups:
        raise ValueError(f"{op_type}: the number of filters ({Filter.shape[0]}) must be divisible by "
                         f"groups={groups}")
    ksize = list(Filter.shape[2:])
    in_sizes = list(x.shape[2:])
    if 0 in ksize or Filter.shape[0] == 0:
        raise ValueError(f"{op_type}: Filter {list(Filter.shape)} has an empty kernel or no filters")
    pairs, dilations = padding_pairs(op_type, in_sizes, ksize, strides, dilations, paddings, padding_algorithm)
    for i in range(nd):
        extent = dilations[i] * (ksize[i] - 1) + 1
        if in_sizes[i] + pairs[i][0] + pairs[i][1] < extent:
            raise ValueError(f"{op_type}: the (dilated) kernel {ksize} is larger than the padded input: spatial "
                             f"dim {i} has size {in_sizes[i]} with padding {list(pairs[i])} and needs {extent}")
    if all(lo == hi for lo, hi in pairs):
        padding = [lo for lo, _ in pairs]
    else:
        x = F.pad(x, torch_pad(pairs))
        padding = 0
    fn = F.conv2d if nd == 2 else F.conv3d
    out = fn(x, Filter, None, list(strides), padding, list(dilations), groups)
    return from_channel_first(out, data_format)


def _conv_transpose_forward(op_type, nd, Input, Filter, output_padding, output_size, strides, paddings,
                            padding_algorithm, groups, dilations, data_format):
    check_rank(op_type, "Input", Input, (nd + 2,))
    if Filter.dim() != nd + 2:
        raise ValueError(f"{op_type}: Filter must have the rank of Input ({nd + 2}), got Filter "
                         f"{list(Filter.shape)} for Input {list(Input.shape)}")
    check_float(op_type, "Input", Input)
    if Filter.dtype is not Input.dtype:
        raise ValueError(f"{op_type}: Filter has dtype {from_torch_dtype(Filter.dtype).name} but Input has "
                         f"{from_torch_dtype(Input.dtype).name}; they must match")
    check_positive(op_type, "stride", strides)
    check_positive(op_type, "dilation", dilations)
    if groups <= 0:
        raise ValueError(f"{op_type}: groups must be larger than 0, got {groups}")
    x = to_channel_first(Input, data_format)
    if x.shape[1] != Filter.shape[0]:
        raise ValueError(f"{op_type}: Input has {x.shape[1]} channels (shape {list(Input.shape)}, data_format "
                         f"{data_format}) but Filter {list(Filter.shape)} expects {Filter.shape[0]}")
    if x.shape[1] % groups:
        raise ValueError(f"{op_type}: the input channels ({x.shape[1]}) must be divisible by groups={groups}")
    ksize = list(Filter.shape[2:])
    in_sizes = list(x.shape[2:])
    if 0 in ksize or Filter.shape[1] == 0:
        raise ValueError(f"{op_type}: Filter {list(Filter.shape)} has an empty kernel or no output channels")
    pairs, dilations = padding_pairs(op_type, in_sizes, ksize, strides, dilations, paddings, padding_algorithm)
    if output_size and output_padding and any(output_padding):
        raise ValueError(f"{op_type}: output_padding is mutually exclusive with output_size")
    extra, base = [], []
    for i in range(nd):
        full = (in_sizes[i] - 1) * strides[i] + dilations[i] * (ksize[i] - 1) + 1
        b = full - pairs[i][0] - pairs[i][1]
        if b <= 0:
            raise ValueError(f"{op_type}: padding {list(pairs[i])} leaves no output in spatial dim {i} "
                             f"(input size {in_sizes[i]}, kernel {ksize[i]}, stride {strides[i]})")
        base.append(b)
        if output_size:
            if len(output_size) != nd:
                raise ValueError(f"{op_type}: output_size must hold {nd} ints, got {list(output_size)}")
            want = output_size[i]
            if not b <= want < b + strides[i]:
                raise ValueError(f"{op_type}: output_size {list(output_size)} is out of range in dim {i}: it must "
                                 f"be in [{b}, {b + strides[i]}) for input {list(Input.shape)}")
            extra.append(want - b)
        elif output_padding:
            if len(output_padding) != nd:
                raise ValueError(f"{op_type}: output_padding must hold {nd} ints, got {list(output_padding)}")
            p = output_padding[i]
            # NOTE: Paddle's kernel only accepts output_padding below the stride (its bound says "stride or
            # dilation", but its col2im check then rejects the dilation-only case).
            if not 0 <= p < strides[i]:
                raise ValueError(f"{op_type}: output_padding {list(output_padding)} must be non-negative and less "
                                 f"than the stride {list(strides)}")
            extra.append(p)
        else:
            extra.append(0)
    fn = F.conv_transpose2d if nd == 2 else F.conv_transpose3d
    if all(lo == hi for lo, hi in pairs):
        out = fn(x, Filter, None, list(strides), [lo for lo, _ in pairs], extra, groups, list(dilations))
    else:
        full = fn(x, Filter, None, list(strides), 0, 0, groups, list(dilations))
        # crop the asymmetric padding; output_padding rows past the full output are zeros
        crop = [(-lo, base[i] + extra[i] + lo - full.shape[2 + i]) for i, (lo, _) in enumerate(pairs)]
        out = F.pad(full, torch_pad(crop))
    return from_channel_first(out, data_format)


_CONV_ATTRS = {"strides": [1, 1], "paddings": [0, 0], "padding_algorithm": "EXPLICIT", "groups": 1,
               "dilations": [1, 1], "data_format": "NCHW"}
_CONV_TRANSPOSE_ATTRS = dict(_CONV_ATTRS, output_padding=[], output_size=[])


def _register_conv(op_type, nd):
    attrs = dict(_CONV_ATTRS)
    if nd == 3:
        attrs.update(strides=[1, 1, 1], paddings=[0, 0, 0], dilations=[1, 1, 1], data_format="NCDHW")

    def kernel(Input, Filter, *, strides, paddings, padding_algorithm, groups, dilations, data_format):
        return _conv_forward(op_type, nd, Input, Filter, strides, paddings, padding_algorithm, groups, dilations,
                             data_format)
    kernel.__doc__ = (f"{op_type}: {nd}-D convolution; the bias is a separate elementwise_add, as in Paddle "
                      "(dygraph too).")
    registered = op(op_type, inputs=["Input", "Filter"], outputs=["Output"], attrs=attrs)(kernel)

    @registered.grad(uses=["Input", "Filter"], autograd=False)
    def grad(Input, Filter, Output_grad, *, strides, paddings, padding_algorithm, groups, dilations, data_format,
             needs):
        # The grad op's kernel when it runs on its own: torch's convolution backward from Input, Filter and
        # Output@GRAD, without recomputing Output; channel-last inputs and uneven paddings take the vjp instead.
        if Output_grad is None or data_format in _CHANNEL_LAST or Input.dim() != nd + 2:
            return None
        pairs, dilations = padding_pairs(op_type, list(Input.shape[2:]), list(Filter.shape[2:]), strides,
                                         dilations, paddings, padding_algorithm)
        if any(lo != hi for lo, hi in pairs):
            return None
        dx, dw, _ = torch.ops.aten.convolution_backward(
            Output_grad, Input, Filter, None, list(strides), [lo for lo, _ in pairs], list(dilations), False,
            [0] * nd, groups, ["Input" in needs, "Filter" in needs, False])
        return {k: v for k, v in (("Input", dx), ("Filter", dw)) if v is not None}
    return registered


def _register_conv_transpose(op_type, nd):
    attrs = dict(_CONV_TRANSPOSE_ATTRS)
    if nd == 3:
        # NOTE: Paddle's conv3d_transpose defaults data_format to "NCHW" too (it reads it as channel-first)
        attrs.update(strides=[1, 1, 1], paddings=[0, 0, 0], dilations=[1, 1, 1])

    def kernel(Input, Filter, *, output_padding, output_size, strides, paddings, padding_algorithm, groups,
               dilations, data_format):
        return _conv_transpose_forward(op_type, nd, Input, Filter, output_padding, output_size, strides,
                                       paddings, padding_algorithm, groups, dilations, data_format)
    kernel.__doc__ = f"{op_type}: {nd}-D transposed convolution (weight [in_c, out_c / groups, k...])."
    return op(op_type, inputs=["Input", "Filter"], outputs=["Output"], attrs=attrs)(kernel)


for _type, _nd in [("conv2d", 2), ("depthwise_conv2d", 2), ("conv3d", 3)]:
    _register_conv(_type, _nd)
for _type, _nd in [("conv2d_transpose", 2), ("depthwise_conv2d_transpose", 2), ("conv3d_transpose", 3)]:
    _register_conv_transpose(_type, _nd)

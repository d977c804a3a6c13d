"""paddle._legacy_C_ops: fluid-style op calls by Paddle op type over the op registry.

``_legacy_C_ops.<type>(*inputs, 'attr', value, 'attr', value, ...)``: the op's input tensors positionally in
Paddle's order (None for an absent optional one), then attributes as name/value pairs. Attributes the op
does not have are ignored (Paddle ignores them too: ``use_mkldnn``, ``use_cudnn``...). One output is
returned as a Tensor, several as a tuple, in Paddle's order. Where Paddle's legacy call takes an output
tensor positionally (``assign(x, out)``, ``concat(xs, out)``) the result is also written into it.
A ``<type>_`` name runs the op in place on its first input.
"""
from .framework import dtype as _dtype
from .framework.tensor import Tensor as _Tensor
from .ops.registry import REGISTRY as _REGISTRY
from .tensor.creation import _write_out

# Paddle's positional arguments and returned outputs where they differ from the registry's slots.
_ARGS = {
    "assign": ["X", "Out"], "concat": ["X", "Out"], "split": ["X", "Out"], "matmul": ["X", "Y", "Out"],
    "fill_constant": ["Out"], "assign_value": ["Out"], "reshape2": ["X", "Shape"], "top_k_v2": ["X"],
    "dropout": ["X"], "conv2d": ["Input", "Filter"], "depthwise_conv2d": ["Input", "Filter"],
    "conv3d": ["Input", "Filter"], "scale": ["X"], "clip": ["X"], "pad3d": ["X"], "expand_as_v2": ["X"],
    "sigmoid_cross_entropy_with_logits": ["X", "Label"], "gather": ["X", "Index", "Axis"],
    "slice": ["Input", "StartsTensor", "EndsTensor", "StartsTensorList", "EndsTensorList"],
    "strided_slice": ["Input", "StartsTensor", "StartsTensorList", "EndsTensor", "EndsTensorList", "StridesTensor",
                      "StridesTensorList"],
    "batch_norm": ["X", "Scale", "Bias", "Mean", "Variance", "MomentumTensor", "MeanOut", "VarianceOut"],
    "group_norm": ["X", "Scale", "Bias", "Mean", "Variance"],
    "unbind": ["X", "OutNum"], "unstack": ["X", "YNum"], "meshgrid": ["X", "OutNum"],
    "broadcast_tensors": ["X", "OutNum"], "searchsorted": ["SortedSequence", "Values"],
    "affine_grid": ["Theta"], "histogram": ["X"],
    **{f"{m}_interp_v2": ["X"] for m in ("linear", "bilinear", "trilinear", "nearest", "bicubic")},
}
_XSHAPE = {"reshape2", "transpose2", "squeeze2", "unsqueeze2", "flatten_contiguous_range"}
# Tensor arguments that carry an attribute's value: name -> (attribute, convert)
_TENSOR_ATTRS = {
    "Shape": ("shape", "ints"), "StartsTensor": ("starts", "ints"), "StartsTensorList": ("starts", "ints"),
    "EndsTensor": ("ends", "ints"), "EndsTensorList": ("ends", "ints"), "StridesTensor": ("strides", "ints"),
    "StridesTensorList": ("strides", "ints"), "MomentumTensor": ("momentum", "float"), "Axis": ("axis", "int"),
}
# Integer arguments that only tell Paddle how many outputs to make
_COUNTS = {"OutNum", "YNum"}


def _as_attr(value, kind):
    if isinstance(value, (list, tuple)):
        flat = [v for item in value for v in (item.reshape([-1]).tolist() if isinstance(item, _Tensor) else [item])]
    else:
        flat = value.reshape([-1]).tolist()
    if kind == "ints":
        return [int(v) for v in flat]
    return float(flat[0]) if kind == "float" else int(flat[0])


def _attr_value(value):
    # Paddle accepts dtypes (and VarTypes) where the op attribute is the proto enum
    return value.proto if isinstance(value, _dtype.dtype) else value


def _split_call(op_type, args):
    """(positional inputs, {attr: value}) from a legacy call's arguments."""
    n = 0
    while n < len(args) and not isinstance(args[n], str):
        n += 1
    pairs = args[n:]
    if len(pairs) % 2:
        raise ValueError(f"_legacy_C_ops.{op_type}: attributes come as name/value pairs, got an odd number of "
                         f"{len(pairs)} arguments after the inputs")
    attrs = {}
    for i in range(0, len(pairs), 2):
        if not isinstance(pairs[i], str):
            raise TypeError(f"_legacy_C_ops.{op_type}: attribute name at position {n + i} must be a str, got "
                            f"{type(pairs[i]).__name__}")
        attrs[pairs[i]] = _attr_value(pairs[i + 1])
    return args[:n], attrs


def _make(op_type):
    d = _REGISTRY[op_type]
    slot_names = [s.name for s in d.inputs]
    arg_names = _ARGS.get(op_type, slot_names)
    out_names = [s.name for s in d.outputs]
    eager = d.eager

    def call(*args):
        given, attrs = _split_call(op_type, args)
        if len(given) > len(arg_names):
            raise TypeError(f"_legacy_C_ops.{op_type}: takes {len(arg_names)} input arguments {arg_names}, got "
                            f"{len(given)}")
        inputs, passed_outs = {}, {}
        for name, value in zip(arg_names, given):
            if value is None or name in _COUNTS:
                continue
            if name in out_names:
                passed_outs[name] = value
            elif name in _TENSOR_ATTRS:
                attr, kind = _TENSOR_ATTRS[name]
                attrs[attr] = _as_attr(value, kind)
            elif name in slot_names:
                inputs[name] = value
            else:
                raise NotImplementedError(f"_legacy_C_ops.{op_type}: argument {name} is not supported by "
                                          "torchpaddle; pass None")
        known = {k: v for k, v in attrs.items() if k in d.attrs}
        result = eager(*[inputs.get(s) for s in slot_names], **known)
        outs = list(result) if len(out_names) > 1 else [result]
        for i, name in enumerate(out_names):
            target = passed_outs.get(name)
            if target is None:
                continue
            if isinstance(outs[i], list):
                if len(target) != len(outs[i]):
                    raise ValueError(f"_legacy_C_ops.{op_type}: {name} holds {len(target)} tensors, the op makes "
                                     f"{len(outs[i])}")
                outs[i] = [_write_out(t, o, op_type) for t, o in zip(target, outs[i])]
            else:
                outs[i] = _write_out(target, outs[i], op_type)
        if op_type in _XSHAPE:
            # Paddle's XShape: a zero-size tensor recording the input's shape for the backward
            from .tensor.creation import empty
            outs.append(empty([0] + list(inputs["X"].shape), dtype=inputs["X"].dtype))
        return outs[0] if len(outs) == 1 else tuple(outs)

    call.__name__ = call.__qualname__ = op_type
    call.__doc__ = f"Legacy call of Paddle op {op_type!r}: inputs {arg_names}, then 'attr', value pairs."
    return call


def _make_inplace(op_type):
    run = _make(op_type)

    def call(x, *args):
        return _write_out(x, _first(run(x, *args)), op_type + "_")

    call.__name__ = call.__qualname__ = op_type + "_"
    return call


def _first(result):
    return result[0] if isinstance(result, tuple) else result


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    if name in _REGISTRY:
        fn = _make(name)
    elif name.endswith("_") and name[:-1] in _REGISTRY:
        fn = _make_inplace(name[:-1])
    else:
        raise AttributeError(f"module 'paddle._legacy_C_ops' has no op {name!r}: torchpaddle registers no op of "
                             "that type")
    globals()[name] = fn
    return fn


def __dir__():
    return sorted(n for n in _REGISTRY if n.isidentifier())

"""SPMD rule of conv2d (Paddle 3.3.1's Conv2dInferSpmd): Input ``nchw``, Filter ``mchw``, Output ``nmhw``: the
filter's spatial dims carry the same letters as the input's, so sharding one shards the other alike.

Input's and Filter's in-channels must be sharded alike (else ValueError, as Paddle's InvalidArgument); sharded
in-channels leave Output partial (sum) there. Paddle's rule also carries Input's H/W sharding to Output's, which
a convolution wider than 1x1 cannot compute shard by shard without halo exchange: reproduced for conformance,
the partitioner must not rely on it. Paddle reads every layout as NCHW with groups 1; ours reads NHWC as such,
and with groups > 1 replicates both channel dims (a channel shard would split groups).
"""
from ...registry import spmd_rule
from ._common import dims_for, merge, new_attr, partial_dims


def _axes(attrs):
    if attrs.get("data_format", "NCHW") in ("NHWC", "NDHWC"):
        return "nhwc", "mchw", "nhwm"
    return "nchw", "mchw", "nmhw"


def _check(x, w):
    if len(x.shape) != 4 or len(w.shape) != 4:
        raise ValueError(f"conv2d spmd rule: Input and Filter must be 4-D, got {x.shape} and {w.shape}")


def _conv_forward(inputs, attrs):
    x, w = inputs[0], inputs[1]
    _check(x, w)
    x_axes, w_axes, out_axes = _axes(attrs)
    x_dims, w_dims = list(x.dims_mapping), list(w.dims_mapping)
    if attrs.get("groups", 1) != 1:
        x_dims[x_axes.index("c")] = -1
        w_dims[0] = w_dims[1] = -1
    if x_dims[x_axes.index("c")] != w_dims[1]:
        raise ValueError(f"conv2d spmd rule: Input's channel dim is sharded on mesh dim {x_dims[x_axes.index('c')]}"
                         f" but Filter's on {w_dims[1]}; they must agree")
    mapping = merge([(x_axes, x_dims), (w_axes, w_dims)])
    out = new_attr(x, dims_for(out_axes, mapping), partial_dims(mapping, out_axes))
    return [[new_attr(x, dims_for(x_axes, mapping)), new_attr(w, dims_for(w_axes, mapping))], [out]]


def _conv_backward(inputs, outputs, attrs):
    x, w, out = inputs[0], inputs[1], outputs[0]
    _check(x, w)
    x_axes, w_axes, out_axes = _axes(attrs)
    mapping = merge([(out_axes, out.dims_mapping)], merge_conflicts=False)
    if attrs.get("groups", 1) != 1:
        mapping["m"] = -1
    return [[new_attr(x, dims_for(x_axes, mapping)), new_attr(w, dims_for(w_axes, mapping))],
            [new_attr(out, out.dims_mapping if attrs.get("groups", 1) == 1 else dims_for(out_axes, mapping))]]


spmd_rule("conv2d", backward=_conv_backward)(_conv_forward)

"""SPMD rules of optimizer updates and pooling; Paddle 3.3.1 has no phi rule for either (hand-worked in the tests).

Optimizer ops: every input shaped like Param (Grad, moments, velocity, master weight) and every parameter-shaped
output follows Param's layout; the learning rate and the beta-power accumulators are replicated. Grad's partial
status is dropped: the caller reduces it first (the gradient synchronization before the update). They have no
reverse inference: Grad is an input, and nothing downstream wants a layout of their outputs.
Pooling: batch and channel dims keep their sharding, the pooled spatial dims are replicated.
"""
from ...registry import spmd_rule
from ._common import flatten, new_attr, regroup

# per output slot: "p" shaped and laid out like Param, "r" replicated (a beta power)
_OUTPUTS = {"optimizer_sgd": "pp", "optimizer_momentum": "ppp", "optimizer_adam": "ppppr" "rp"}


def _update(pattern):
    def forward(inputs, attrs):
        param = inputs[0]
        dims = list(param.dims_mapping)
        ins = [new_attr(s, dims if list(s.shape) == list(param.shape) else [-1] * len(s.shape))
               for s in flatten(inputs)]
        outs = [new_attr(param, dims) if kind == "p" else new_attr(param, [-1]) for kind in pattern]
        return [regroup(inputs, ins), outs]
    return forward


for _name, _pattern in _OUTPUTS.items():
    spmd_rule(_name)(_update(_pattern))


def _pool_dims(x, attrs):
    channel_last = attrs.get("data_format", "NCHW") in ("NHWC", "NDHWC", "NLC")
    keep = {0, len(x.shape) - 1} if channel_last else {0, 1}
    return [d if i in keep else -1 for i, d in enumerate(x.dims_mapping)]


def _pool_forward(inputs, attrs):
    x = inputs[0]
    dims = _pool_dims(x, attrs)
    return [[new_attr(x, dims)], [new_attr(x, dims)] * 1]


def _pool_backward(inputs, outputs, attrs):
    x, out = inputs[0], outputs[0]
    dims = _pool_dims(out, attrs)
    return [[new_attr(x, dims)], [new_attr(out, dims) for _ in outputs]]


spmd_rule("pool", backward=_pool_backward)(_pool_forward)

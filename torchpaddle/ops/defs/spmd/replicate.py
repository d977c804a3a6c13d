"""The fallback rule: every input and output replicated (Paddle's ``replicated`` rule). Always correct, slower.

An op with no rule (``OpDef.spmd_rule is None``) is completed with it. Its forward inference cannot see the
outputs, so it answers no output layouts (every output is replicated); the backward one answers both.
"""
from ...registry import spmd_rule
from ._common import replicate_slots


def _backward(inputs, outputs, attrs):
    return [replicate_slots(inputs), replicate_slots(outputs)]


@spmd_rule("replicated", backward=_backward)
def _forward(inputs, attrs):
    return [replicate_slots(inputs), []]

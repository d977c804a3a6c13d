"""SPMD rules (see registry.SpmdRule), one module per op family, and the table of which op types each serves.

Each rule gives Paddle 3.3.1's answer (``core.get_phi_spmd_rule(name).infer_forward / infer_backward``), checked
case by case in tests/static/test_spmd_rules.py and tests/static/test_dist_attr.py. Inputs' partial status is
dropped (the caller reduces them first). An op with no rule replicates every input and output ("replicated").
"""
from ...registry import REGISTRY, SPMD_OPS
from . import (broadcast, concat, conv, elementwise, embedding, indexing, manipulation, matmul, norm,  # noqa: F401
               optimizer, reduction, replicate, reshape, softmax)

# op type -> rule, where the @op tag is missing or coarser than the family's rule
_FAMILIES = {
    "reduction": ["reduce_sum", "nansum"],
    "reduction_mean": ["reduce_mean", "nanmean", "mean"],
    "reduction_max": ["reduce_max", "reduce_amax"],
    "reduction_min": ["reduce_min", "reduce_amin"],
    "reduction_prod": ["reduce_prod"],
    "reduction_all": ["reduce_all"],
    "reduction_any": ["reduce_any"],
    "reduction_nonlinear": ["logsumexp", "var", "quantile", "count_nonzero"],
    "reduction_nonlinear_indexed": ["median", "nanmedian", "kthvalue", "mode"],
    "softmax": ["softmax", "log_softmax"],
    "cross_entropy_with_softmax": ["softmax_with_cross_entropy"],
    "layer_norm": ["layer_norm"],
    "embedding": ["lookup_table_v2"],
    "c_embedding": ["c_embedding"],
    "index_select": ["index_select"],
    "scatter": ["scatter"],
    "argmax": ["arg_max", "arg_min"],
    "triu": ["tril_triu"],
    "one_hot": ["one_hot_v2"],
    "elementwise": ["dropout", "cast"],
    "optimizer_sgd": ["sgd"],
    "optimizer_momentum": ["momentum"],
    "optimizer_adam": ["adam", "adamw"],
    "pool": ["pool2d", "pool3d", "max_pool2d_with_index"],
    "where": ["where"],
    "expand_as": ["expand_as_v2"],
    "conv2d": ["conv2d"],
}
for _rule, _types in _FAMILIES.items():
    for _type in _types:
        SPMD_OPS[_type] = _rule


def grad_rule_of(op_type):
    """``(forward op type, SpmdRule)`` for a gradient op type (``matmul_v2_grad``), or None when ``op_type`` is no
    gradient op of a registered op or its forward op has no rule.

    Paddle 3.3.1 registers no separate static rule for ``*_grad`` ops: the completion lays a gradient out from the
    forward op's rule, its reverse inference (``rule.backward(inputs, outputs, attrs)``, with the forward op's
    input and output specs) giving each ``<slot>@GRAD`` the layout of its forward slot."""
    forward = _GRAD_OF.get(op_type)
    if forward is None:
        for definition in list(REGISTRY.values()):
            if definition.grad_type:
                _GRAD_OF.setdefault(definition.grad_type, definition.type)
        forward = _GRAD_OF.get(op_type)
    rule = REGISTRY[forward].spmd_rule if forward is not None else None
    return None if rule is None else (forward, rule)


_GRAD_OF = {}

"""``paddle.static.nn.static_pylayer``: ``forward_fn(*inputs)`` built into a sub-block, with an optional
``backward_fn`` (built into a second sub-block) that gives the inputs' gradients from the outputs' gradients.

The op is ``pylayer`` with the forward block as ``sub_block`` and the backward block's index as
``backward_block_idx``; control_flow_exec.py runs it (the backward block inside a torch.autograd.Function, so the
program's grad ops reach it like any other op).
"""
from ...framework.program import Variable, default_main_program
from ...utils import unique_name
from .common import static_only
from ...utils.nest import flatten as _flatten, pack_sequence_as as _pack_as
from .control_flow import _block_io, _copy_to_parent, _scope_var

__all__ = ["static_pylayer"]


def static_pylayer(forward_fn, inputs, backward_fn=None, name=None):
    """Returns ``forward_fn(*inputs)``; ``backward_fn(*output grads)`` returns one gradient (or None) per input."""
    api = "paddle.static.nn.static_pylayer"
    static_only("static_pylayer")
    if not callable(forward_fn):
        raise TypeError(f"{api}: forward_fn must be callable, got {type(forward_fn).__name__}")
    if backward_fn is not None and not callable(backward_fn):
        raise TypeError(f"{api}: backward_fn must be callable or None, got {type(backward_fn).__name__}")
    if not isinstance(inputs, (list, tuple)):
        raise TypeError(f"{api}: inputs must be a list or tuple of Variables, got {type(inputs).__name__}")
    for v in inputs:
        if not isinstance(v, Variable):
            raise TypeError(f"{api}: inputs must hold static Variables, got {type(v).__name__}")
    program = default_main_program()
    prefix = name or unique_name.generate("pylayer")
    forward_block = program._create_block()
    try:
        result = forward_fn(*inputs)
        if result is None:
            raise ValueError(f"{api}: forward_fn must return Variables, got None")
        outputs = [_copy_to_parent(v, forward_block, prefix, api, "forward_fn") for v in _flatten(result)]
    finally:
        program._rollback()
    attrs = {"sub_block": forward_block, "forward_outs": [o.name for o in outputs], "backward_block_idx": -1,
             "backward_douts": [], "backward_grads": []}
    if backward_fn is not None:
        backward_block = program._create_block()
        try:
            douts = [backward_block.create_var(name=unique_name.generate(f"{prefix}.dout"), shape=o.shape,
                                               dtype=o.dtype, stop_gradient=False) for o in outputs]
            grads = backward_fn(*douts)
            grads = list(grads) if isinstance(grads, (list, tuple)) else [grads]
            if len(grads) != len(inputs):
                raise ValueError(f"{api}: backward_fn returns {len(grads)} gradient(s) for {len(inputs)} input(s)")
            for g in grads:
                if g is not None and not isinstance(g, Variable):
                    raise TypeError(f"{api}: backward_fn must return Variables (or None), got {type(g).__name__}")
        finally:
            program._rollback()
        attrs.update(backward_block_idx=backward_block.idx, backward_douts=[d.name for d in douts],
                     backward_grads=["" if g is None else g.name for g in grads])
    reads, writes = _block_io(forward_block)
    explicit = [v.name for v in inputs]
    parent = program.current_block()
    parent.append_op("pylayer", {"Ins": explicit + [n for n in reads if n not in explicit]},
                     {"Outs": writes, "Scope": [_scope_var(parent).name]}, dict(attrs, num_inputs=len(explicit)))
    return _pack_as(result, outputs)

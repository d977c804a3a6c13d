"""Partition a completed program for this rank: data parallel.

A mesh dim that shards a feed's batch dim (dim 0) is a data-parallel dim: each rank runs the program on its own
micro-batch (the batch dim is unknown, -1, in the program, so shapes need no change) and every gradient of a
parameter not sharded on that dim is averaged over it before anything reads it: a ``c_allreduce_sum`` on the
dim's communication group and a ``scale`` by 1/size, as Paddle's data-parallel partition inserts them.
Not done: sharded parameters (tensor parallel: local shapes, reshard ops), sharding stages, pipeline.
"""
from ....framework.dist_attr import OperatorDistAttr, TensorDistAttr
from ....framework.program import GRAD_SUFFIX, OpRole

__all__ = ["data_parallel_dims", "partition"]


def data_parallel_dims(program, feed_names):
    """Mesh dims sharding the batch dim of a feed (and of size > 1)."""
    dims = []
    block = program.global_block()
    for name in feed_names:
        attr = block.var(name)._dist_attr
        if attr is None or not attr.dims_mapping:
            continue
        d = attr.dims_mapping[0]
        if d >= 0 and attr.process_mesh.shape[d] > 1 and d not in dims:
            dims.append(d)
    return dims


def _params_grads(program):
    pairs = []
    for op in (op for block in program.blocks for op in block.ops):
        pair = op.attrs.get("op_role_var")
        if op.attrs.get("op_role", 0) & OpRole.Optimize and pair and len(pair) == 2 and tuple(pair) not in pairs:
            pairs.append(tuple(pair))
    return pairs


def partition(program, mesh, feed_names):
    """Insert the gradient averaging of data parallel into ``program`` (completed) in place; -> the mesh dims
    it averages over."""
    dims = data_parallel_dims(program, feed_names)
    block = program.global_block()
    # NOTE: the parameter's own gradient, not what the optimizer reads (gradient merge: the merged sum)
    pairs = [(p, p + GRAD_SUFFIX if block.has_var(p + GRAD_SUFFIX) else g) for p, g in _params_grads(program)]
    pairs = [(p, g) for p, g in dict(pairs).items() if block.has_var(g)]
    if not dims or not pairs:
        return dims
    grads = {g for _, g in pairs}
    last = max(i for i, op in enumerate(block.ops) if grads & set(op.output_arg_names))
    new_ops = []
    for param, grad in pairs:
        var = block.var(param)
        mapping = var.dist_attr.dims_mapping if var._dist_attr is not None else []
        for d in dims:
            if d in mapping:
                continue   # a parameter sharded on the dim has its own gradient there
            group = mesh.get_group(mesh.dim_names[d])
            size = mesh.shape[d]
            new_ops.append(("c_allreduce_sum", {"X": [grad]}, {"Out": [grad]},
                            {"ring_id": group.id, "use_calc_stream": True, "use_model_parallel": False,
                             "op_role": OpRole.Backward, "op_role_var": [param, grad]}))
            new_ops.append(("scale", {"X": [grad]}, {"Out": [grad]},
                            {"scale": 1.0 / size, "bias": 0.0, "bias_after_scale": True,
                             "op_role": OpRole.Backward, "op_role_var": [param, grad]}))
    for k, (op_type, inputs, outputs, attrs) in enumerate(new_ops):
        op = block._insert_op(last + 1 + k, type=op_type, inputs=inputs, outputs=outputs, attrs=attrs)
        attr = OperatorDistAttr(op)
        attr.process_mesh = mesh
        grad = inputs["X"][0]
        replicated = TensorDistAttr(block.var(grad).dist_attr)
        owed = TensorDistAttr(replicated)
        if op_type == "c_allreduce_sum":   # each rank's gradient is a partial sum over the dp dims
            owed._set_partial_dims(dims)
        attr.set_input_dist_attr(grad, owed)
        attr.set_output_dist_attr(grad, replicated)
        op.dist_attr = attr
    return dims

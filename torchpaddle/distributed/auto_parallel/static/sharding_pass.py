"""``Strategy.sharding`` as a rewrite of a partitioned per-rank train program (after partitioner.py), on the data
parallel mesh dim, whose ranks hold equal parts of each parameter along its axis 0:

- stage 1: each optimizer op updates this rank's part of the parameter from the part of its (all-reduced)
  gradient, with optimizer state shaped as the part; ``c_allgather`` then gives every rank the whole parameter.
- stage 2: as stage 1, and the gradient is reduce-scattered (``reduce_scatter``) instead of all-reduced, so a rank
  only ever holds the summed part it updates.
- stage 3: as stage 2, and the program's parameter variable is this rank's part: a ``c_allgather`` before the
  forward makes the whole one its ops read. Its gradient then comes back as the sum of the ranks' parts (the
  all-gather's adjoint is a reduce-scatter), which the optimizer updates in place; a last ``c_allgather`` writes
  the whole updated parameter to ``<param>@SHARDING_FULL`` for the DistModel to hand back to the Layer.
A parameter whose axis 0 does not divide over the ranks (or a scalar) is kept whole and updated on every rank,
as without sharding. The trained values equal data-parallel training's: only where state and work live changes.
"""
from ....framework import hooks as _hooks
from ....framework.program import OpRole

__all__ = ["apply_sharding", "FULL_SUFFIX"]

FULL_SUFFIX = "@SHARDING_FULL"


def _optimizer_ops(block):
    return [op for op in block.ops if op.attrs.get("op_role", 0) & OpRole.Optimize and op.inputs.get("Param")
            and op.inputs.get("Grad")]


def _new_var(block, name, like, shape, persistable=False):
    var = block.create_var(name=name, shape=list(shape), dtype=like.dtype, persistable=persistable)
    var.desc_shape = tuple(shape)
    return var


def _insert(block, index, op_type, inputs, outputs, attrs, role):
    return block._insert_op(index, type=op_type, inputs=inputs, outputs=outputs, attrs=dict(attrs, op_role=role))


def _sync_ops(block, grad, ring):
    """Indices of the gradient sync ops partitioner.py put on ``grad`` for the data-parallel dim's ring."""
    ranks = list(_hooks.get("collective_group")("c_allreduce_sum", ring).ranks)
    # NOTE: each mesh.get_group call makes a new group id over the same ranks: compare the ranks
    return [i for i, op in enumerate(block.ops) if op.type == "c_allreduce_sum" and op.input_arg_names == [grad]
            and op.attrs.get("op_role", 0) & OpRole.Backward
            and list(_hooks.get("collective_group")("c_allreduce_sum", op.attrs.get("ring_id", 0)).ranks) == ranks]


def _in_place_syncs(block, grad, start):
    """The sync ops from ``start`` on updating ``grad`` in place (the scales, other mesh dims' all-reduces)."""
    return [op for op in block.ops[start:] if op.type in ("scale", "c_allreduce_sum")
            and op.input_arg_names == [grad] and op.output_arg_names == [grad]
            and op.attrs.get("op_role", 0) & OpRole.Backward]


def apply_sharding(program, mesh, coord, dp_dim, stage):
    """Rewrite ``program`` (this rank's, partitioned) in place for sharding ``stage`` (1, 2 or 3) over mesh dim
    ``dp_dim``; -> ({parameter: (start, stop, whole-parameter variable)} of the stage-3 parameters (their rows
    this rank holds, and where the program leaves the whole updated value), {optimizer state: (start, stop)}
    (the rows of the sharded state this rank holds), the data-parallel group)."""
    if stage not in (1, 2, 3):
        raise ValueError(f"DistModel: strategy.sharding.stage must be 1, 2 or 3, got {stage!r}")
    block = program.global_block()
    n, k = mesh.shape[dp_dim], coord[dp_dim]
    group = mesh.get_group(mesh.dim_names[dp_dim])
    ring = group.id
    sharded3, states = {}, {}
    for op in _optimizer_ops(block):
        param, grad = op.inputs["Param"][0], op.inputs["Grad"][0]
        if op.inputs.get("MasterParam") and op.inputs["MasterParam"]:
            raise NotImplementedError("DistModel: strategy.sharding with float32 master weights (amp O2) is not "
                                      "supported yet")
        pvar = block.var(param)
        shape = list(pvar.desc_shape)
        if not shape or shape[0] <= 0 or shape[0] % n:
            continue   # kept whole (see the module note)
        rows = shape[0] // n
        start, stop = k * rows, (k + 1) * rows
        part_shape = [rows] + shape[1:]
        # the optimizer state shaped as the parameter becomes the part's (localize_startup follows)
        for slot, names in list(op.inputs.items()):
            if slot in ("Param", "Grad"):
                continue
            for name in names:
                var = block._find_var_recursive(name)
                if var is not None and var.persistable and list(var.desc_shape) == shape:
                    if getattr(var, "_global_shape", None) is None:
                        var._global_shape = tuple(var.desc_shape)
                    var.desc_shape = tuple(part_shape)
                    states[name] = (start, stop)
        grad_part = _shard_gradient(block, op, grad, ring, n, start, stop, part_shape, stage)
        index = block.ops.index(op)
        if stage == 3:
            sharded3[param] = (start, stop, _shard_parameter(block, param, ring, n, part_shape))
            op._rename_input(grad, grad_part)
            continue
        part = f"{param}@SHARD"
        _new_var(block, part, pvar, part_shape)
        _insert(block, index, "slice", {"Input": [param]}, {"Out": [part]},
                {"axes": [0], "starts": [start], "ends": [stop], "infer_flags": [1], "decrease_axis": []},
                OpRole.Optimize)
        index += 1
        op._rename_input(param, part)
        op._rename_input(grad, grad_part)
        op._rename_output(param, part)
        _insert(block, index + 1, "c_allgather", {"X": [part]}, {"Out": [param]},
                {"ring_id": ring, "nranks": n, "use_calc_stream": True}, OpRole.Optimize)
    for param, (_, _, full) in sharded3.items():
        _insert(block, len(block.ops), "c_allgather", {"X": [param]}, {"Out": [full]},
                {"ring_id": ring, "nranks": n, "use_calc_stream": True}, OpRole.Optimize)
    return sharded3, states, group


def _shard_gradient(block, op, grad, ring, n, start, stop, part_shape, stage):
    """The name of this rank's part of ``grad``, summed (and scaled) as the optimizer needs it."""
    gvar = block.var(grad)
    readers = [o for o in block.ops if o is not op and grad in o.input_arg_names
               and o.attrs.get("op_role", 0) & OpRole.Optimize]
    if stage > 1 and readers:
        raise NotImplementedError(f"DistModel: strategy.sharding stage {stage} with ops reading the gradient "
                                  f"{grad} before the optimizer (gradient clipping, regularization) is not "
                                  "supported yet; use stage 1")
    part = f"{grad}@SHARD"
    if stage == 1:
        _new_var(block, part, gvar, part_shape)
        _insert(block, block.ops.index(op), "slice", {"Input": [grad]}, {"Out": [part]},
                {"axes": [0], "starts": [start], "ends": [stop], "infer_flags": [1], "decrease_axis": []},
                OpRole.Optimize)
        return part
    syncs = _sync_ops(block, grad, ring)
    if stage == 3:
        # the gradient of the part arrives summed over the ranks (the forward all-gather's adjoint)
        for i in reversed(syncs):
            block._remove_op(i)
        if getattr(gvar, "_global_shape", None) is None:
            gvar._global_shape = tuple(gvar.desc_shape)
        gvar.desc_shape = tuple(part_shape)
        return grad
    if len(syncs) != 1:
        raise NotImplementedError(f"DistModel: strategy.sharding stage 2 found {len(syncs)} all-reduces of {grad} "
                                  "on the data-parallel ring, expected one")
    sync = block.ops[syncs[0]]
    _new_var(block, part, gvar, part_shape)
    block._remove_op(syncs[0])
    new = _insert(block, syncs[0], "reduce_scatter", {"x": [grad]}, {"out": [part]},
                  {"ring_id": ring, "nranks": n}, sync.attrs.get("op_role", OpRole.Backward))
    new.attrs["op_role_var"] = sync.attrs.get("op_role_var", [])
    for later in _in_place_syncs(block, grad, syncs[0] + 1):
        later._rename_input(grad, part)
        later._rename_output(grad, part)
    return part


def _shard_parameter(block, param, ring, n, part_shape):
    """Stage 3: ``param`` becomes this rank's part, gathered whole before the forward reads it."""
    pvar = block.var(param)
    whole = list(pvar.desc_shape)
    if getattr(pvar, "_global_shape", None) is None:
        pvar._global_shape = tuple(pvar.desc_shape)
    pvar.desc_shape = tuple(part_shape)
    gathered = f"{param}@GATHERED"
    _new_var(block, gathered, pvar, whole)
    for op in block.ops:
        if not op.attrs.get("op_role", 0) & (OpRole.Backward | OpRole.Optimize) and param in op.input_arg_names:
            op._rename_input(param, gathered)
            if op.dist_attr is not None:
                op.dist_attr.rename_input(param, gathered)
    _insert(block, 0, "c_allgather", {"X": [param]}, {"Out": [gathered]},
            {"ring_id": ring, "nranks": n, "use_calc_stream": True}, OpRole.Forward)
    full = param + FULL_SUFFIX
    _new_var(block, full, pvar, whole, persistable=True)
    return full

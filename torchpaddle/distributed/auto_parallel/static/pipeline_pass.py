"""``Strategy.pipeline`` as a rewrite of the serial train program into this rank's stage program (FThenB).

Stages: parameters on several meshes; the stage of a forward op is its parameters' stage, or else the latest
stage of its inputs (an op reading only feeds is stage 0). A variable one stage makes and a later one reads is
sent (``send_v2``) and received (``recv_v2``), and its gradient goes back the same way. The stage program
holds, for each of the ``k`` micro-batches, a copy of the stage's forward ops with the micro-batch's variables
renamed ``<name>@MB<i>`` (the parameters and their gradients keep their names); then the received gradients;
then the copies of the stage's grad ops, which the Executor takes as one autograd step (so each parameter's
gradient is the sum over the micro-batches; each copy's loss gradient is seeded with 1/k, the serial loss being
the mean of equal micro-batch means); then the sent gradients and the stage's optimizer ops, run once.
That is the FThenB schedule: every forward, then every backward. Each stage mesh holds one process.
"""
from ....framework.program import GRAD_SUFFIX, OpRole
from ....static.backward import _snapshot

__all__ = ["apply_pipeline", "micro_name"]


def micro_name(name, i, persistable):
    """``name`` in micro-batch ``i``: ``x`` -> ``x@MB0``, ``x@GRAD`` -> ``x@MB0@GRAD``; a persistable variable's
    (and its gradient's) name is kept."""
    base, sep, rest = name.partition(GRAD_SUFFIX)
    if base in persistable:
        return name
    return f"{base}@MB{i}{sep}{rest}"


def _role(op):
    return op.attrs.get("op_role", 0)


def _forward_of(name):
    return name.partition(GRAD_SUFFIX)[0]


def apply_pipeline(program, param_stage, stage_ranks, rank, k, feed_names, loss_name):
    """``program`` (serial, with backward and optimizer) made this rank's stage program, in place;
    -> (feeds: per micro-batch {serial feed name: its name here}, fetch: the micro-batch losses here, or [])."""
    block = program.global_block()
    stage = next((s for s, ranks in enumerate(stage_ranks) if rank in ranks), None)
    if stage is None:
        raise NotImplementedError(f"DistModel: rank {rank} holds no pipeline stage (stages on ranks {stage_ranks})")
    last = len(stage_ranks) - 1
    persistable = {n for n, v in block.vars.items() if v.persistable}
    ops = list(block.ops)
    forward = [op for op in ops if not _role(op) & (OpRole.Backward | OpRole.Optimize)]
    backward = [op for op in ops if _role(op) & OpRole.Backward and not _role(op) & OpRole.Optimize]
    optimize = [op for op in ops if _role(op) & OpRole.Optimize]
    feeds = set(feed_names)

    # the stage of each forward op and the home stage of each value it makes
    home, op_stage = dict(param_stage), {}
    for op in forward:
        found = [home[n] for n in op.input_arg_names if n in home and n not in feeds]
        op_stage[id(op)] = max(found, default=0)
        for n in op.output_arg_names:
            home[n] = op_stage[id(op)]
    # what crosses stages: (value, from stage, to stage), in the order the forward reads them
    crossing = []
    for op in forward:
        b = op_stage[id(op)]
        for n in op.input_arg_names:
            a = home.get(n)
            if n in feeds or n in persistable or a is None or a == b:
                continue
            if a > b:
                raise NotImplementedError(f"DistModel: pipeline stage {b} reads {n} of the later stage {a}")
            if (n, a, b) not in crossing:
                crossing.append((n, a, b))
    for n in {c[0] for c in crossing}:
        if len({c[2] for c in crossing if c[0] == n}) > 1:
            raise NotImplementedError(f"DistModel: pipeline value {n} is read by several later stages")

    def stage_of_grad(op):
        names = [_forward_of(n) for n in op.input_arg_names + op.output_arg_names]
        return max((home[n] for n in names if n in home and n not in feeds), default=0)

    mine_fwd = [op for op in forward if op_stage[id(op)] == stage]
    mine_bwd = [op for op in backward if stage_of_grad(op) == stage]
    mine_opt = [op for op in optimize if not op.inputs.get("Param") or home.get(op.inputs["Param"][0]) == stage]
    seeds = [op for op in mine_bwd if not hasattr(op, "_made_by") and not op.type.endswith("_grad")]
    runs = [op for op in mine_bwd if op not in seeds]
    grads = {n for op in backward for n in op.output_arg_names}

    block.ops.clear()
    for name in list(block.vars):
        if name not in persistable:
            var = block.vars[name]
            for i in range(k):
                copy = block.create_var(name=micro_name(name, i, persistable), shape=list(var.desc_shape),
                                        dtype=var.dtype, persistable=False)
                copy.stop_gradient = var.stop_gradient

    def emit(op, i, role=None):
        inputs = {s: [micro_name(n, i, persistable) for n in ns] for s, ns in op.inputs.items()}
        outputs = {s: [micro_name(n, i, persistable) for n in ns] for s, ns in op.outputs.items()}
        attrs = dict(op.attrs)
        if role is not None:
            attrs["op_role"] = role
        return block.append_op(type=op.type, inputs=inputs, outputs=outputs, attrs=attrs)

    def p2p(kind, name, peer_stage, role):
        peer = stage_ranks[peer_stage][0]
        var = block.var(name)
        shape = list(var.desc_shape)
        if kind == "send_v2":   # a shape the trace left unknown (the batch dim) travels first: both sides know
            return block.append_op(type="send_v2", inputs={"X": [name]}, outputs={},
                                   attrs={"ring_id": 0, "peer": peer, "use_calc_stream": True,
                                          "dynamic_shape": any(s < 0 for s in shape), "op_role": role})
        return block.append_op(type="recv_v2", inputs={}, outputs={"Out": [name]},
                               attrs={"ring_id": 0, "peer": peer, "dtype": var.dtype.proto, "out_shape": shape,
                                      "use_calc_stream": True, "dynamic_shape": any(s < 0 for s in shape),
                                      "op_role": role})

    for i in range(k):
        for n, a, b in crossing:
            if b == stage:
                p2p("recv_v2", micro_name(n, i, persistable), a, OpRole.Forward)
        for op in mine_fwd:
            emit(op, i)
        for n, a, b in crossing:
            if a == stage:
                p2p("send_v2", micro_name(n, i, persistable), b, OpRole.Forward)
    for i in range(k):
        for op in seeds:   # the loss gradient's seed: 1/k of the serial one
            new = emit(op, i)
            if new.type == "fill_constant":
                new.attrs["value"] = float(new.attrs.get("value", 1.0)) / k
        for n, a, b in crossing:
            if a == stage and n + GRAD_SUFFIX in grads:
                p2p("recv_v2", micro_name(n + GRAD_SUFFIX, i, persistable), b, OpRole.Backward)
    for i in range(k):
        copies = [emit(op, i) for op in runs]
        token = object()
        for j, new in enumerate(copies):
            new._made_by = (token, j, len(copies), _snapshot(new))
    for i in range(k):
        for n, a, b in crossing:
            if b == stage and n + GRAD_SUFFIX in grads:
                p2p("send_v2", micro_name(n + GRAD_SUFFIX, i, persistable), a, OpRole.Backward)
    for op in mine_opt:
        block.ops.append(op)
    program._invalidate()
    used = {n for op in block.ops for n in op.input_arg_names}
    micro_feeds = [{f: micro_name(f, i, persistable) for f in feed_names if micro_name(f, i, persistable) in used}
                   for i in range(k)]
    fetch = [micro_name(loss_name, i, persistable) for i in range(k)] if stage == last else []
    return micro_feeds, fetch

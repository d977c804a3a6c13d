"""Recompute: forward segments re-run inside the backward, so their intermediate values need not live from the
forward to their grad ops. The rewrite is Paddle's (``append_backward(loss, checkpoints=...)`` and the
``auto_parallel_recompute`` pass build the same structure) and works on a program whose backward is appended:

- segments: the forward ops between consecutive checkpoints (sorted by where they are computed), plus the ops
  before the first one; the ops after the last checkpoint are not recomputed. Without checkpoints, the ops
  marked by a ``/auto_parallel/rc_<k>`` name scope, one segment per mark;
- kept: checkpoints, persistables, the program's inputs and every variable read across a segment boundary;
  each other variable a segment touches is renamed ``<name>.subprog_<i>`` (i counts segments from the last);
- each segment op writing a variable that is not kept is copied, with op_role Backward and the renamed names,
  right before the segment's first grad op, and the segment's grad ops read the renamed variables;
- each ``dropout`` without a Seed input gets a ``seed`` op, so that its recomputation draws the same mask.

The Executor runs such a program's grad ops one by one (static/backward.py ``as_made``): the recompute ops
compute the renamed values in the backward and the forward's intermediates die after their last forward reader.
"""
import re

from ...framework.program import GRAD_SUFFIX, OpRole, Variable
from ...utils import unique_name

__all__ = ["apply_recompute", "recompute_backward"]

_SUFFIX = ".subprog_"
_RC_SCOPE = re.compile(r"/auto_parallel/rc_\d+")
_NOT_FORWARD = OpRole.Backward | OpRole.Optimize


def _name(value, what):
    if isinstance(value, Variable):
        return value.name
    if isinstance(value, str):
        return value
    raise TypeError(f"recompute: {what} must hold Variables or names, got {type(value).__name__}")


def _is_forward(op):
    return not op.attrs.get("op_role", 0) & _NOT_FORWARD


def _loss_name(block, loss):
    if loss is not None:
        return _name(loss, "loss")
    for op in block.ops:
        if op.attrs.get("op_role", 0) & OpRole.Loss and _is_forward(op) and op.output_arg_names:
            return op.output_arg_names[0]
    raise ValueError("recompute: config['loss'] is required: the program has no op with the Loss role")


def _op_path(block, loss):
    """The forward ops the loss depends on, in program order."""
    needed, path = {loss}, []
    for op in reversed([op for op in block.ops if _is_forward(op)]):
        if needed.intersection(op.output_arg_names):
            path.append(op)
            needed.update(op.input_arg_names)
    path.reverse()
    return path


class _Stats:
    """Which ops (indices in the op path) read and write each variable."""

    def __init__(self, ops):
        self.ops = ops
        self.readers, self.writers = {}, {}
        for i, op in enumerate(ops):
            for n in op.input_arg_names:
                self.readers.setdefault(n, []).append(i)
                self.writers.setdefault(n, [])
            for n in op.output_arg_names:
                self.writers.setdefault(n, []).append(i)
                self.readers.setdefault(n, [])

    def sort(self, names):
        known = [n for n in dict.fromkeys(names) if n in self.writers]
        return sorted(known, key=lambda n: max(self.writers[n], default=-1))

    def crossing(self, begin, end):
        """Variables a segment [begin, end) shares with the ops outside it."""
        out = []
        for op in self.ops[begin:end]:
            out += [n for n in op.output_arg_names if any(i >= end for i in self.readers[n])]
            out += [n for n in op.input_arg_names if any(i < begin for i in self.writers[n])]
        return out

    def inputs(self, block):
        """Variables read but computed by no op of the path (fed data, or computed before it)."""
        out = []
        for n, writers in self.writers.items():
            var = block._find_var_recursive(n)
            if not writers and self.readers[n] and not (var is not None and var.persistable):
                out.append(n)
        return out


def _segments_between(stats, checkpoints):
    """Paddle's segments for sorted ``checkpoints``: [first reader of one, last writer of the next + 1)."""
    if len(checkpoints) == 1:
        last = max(stats.writers[checkpoints[0]], default=-1)
        return [[0, last + 1]] if last > 0 else []
    segments = []
    for a, b in zip(checkpoints, checkpoints[1:]):
        start = min(stats.readers[a], default=len(stats.ops))
        end = max(stats.writers[b], default=-1)
        if start >= end:
            continue
        # the casts of persistables that AMP put in front of the segment belong to it
        while start > 0 and _is_amp_cast(stats.ops[start - 1]):
            start -= 1
        segments.append([start, end + 1])
    return segments


def _is_amp_cast(op):
    if op.type != "cast":
        return False
    var = op.block._find_var_recursive(op.input_arg_names[0])
    return var is not None and var.persistable


def _marked_segments(ops):
    """Segments from ``/auto_parallel/rc_<k>`` name-scope marks: the contiguous ops of each mark."""
    found = {}
    for i, op in enumerate(ops):
        mark = _RC_SCOPE.search(op.attrs.get("op_namescope", "") or "")
        if mark:
            found.setdefault(mark.group(0), []).append(i)
    return [[idx[0], idx[-1] + 1] for idx in found.values() if len(idx) > 1]


def _add_seeds(block, path):
    """Give each dropout without a Seed input a ``seed`` op (Paddle's recompute does: the recomputed dropout must
    draw the mask of the forward one); -> the dropout ops given one."""
    i, seeded = 0, []
    while i < len(path):
        op = path[i]
        if op.type != "dropout" or op.inputs.get("Seed"):
            i += 1
            continue
        name = unique_name.generate("seed")
        var = block.create_var(name=unique_name.generate(name + ".tmp"), dtype="int32", shape=[1],
                               stop_gradient=False)
        seed = int(op.attrs.get("seed", 0)) if op.attrs.get("fix_seed", False) else 0
        attrs = {"seed": seed, "deterministic": False, "rng_name": "", "force_cpu": True,
                 "op_role": op.attrs.get("op_role", OpRole.Forward)}
        for key in ("op_device", "op_namescope"):
            if key in op.attrs:
                attrs[key] = op.attrs[key]
        seed_op = block._insert_op(block.ops.index(op), "seed", {}, {"Out": [var.name]}, attrs)
        op.inputs["Seed"] = [var.name]
        op.attrs.pop("seed", None)
        op.attrs.pop("fix_seed", None)
        path.insert(i, seed_op)
        seeded.append(op)
        i += 2
    return seeded


def _grad_ops_of(block, path):
    """{id(forward op): [its grad ops]}: a grad op belongs to the last forward op of its type (before it) that
    writes the variables whose gradients it reads."""
    owners = {}
    fwd = [op for op in block.ops if _is_forward(op)]
    taken = set()
    for op in block.ops:
        if not (op.attrs.get("op_role", 0) & OpRole.Backward and op.type.endswith("_grad")):
            continue
        grads = {n[:n.index(GRAD_SUFFIX)] for slot, names in op.inputs.items() if slot.endswith(GRAD_SUFFIX)
                 for n in names if GRAD_SUFFIX in n}
        base = op.type[:-len("_grad")]
        candidates = [f for f in fwd if f.type == base and grads <= set(f.output_arg_names)]
        if not grads or not candidates:
            continue
        free = [f for f in candidates if id(f) not in taken] or candidates
        owner = free[-1]
        taken.add(id(owner))
        owners.setdefault(id(owner), []).append(op)
    return owners


def _rename(op, renames):
    for slots in (op.inputs, op.outputs):
        for names in slots.values():
            names[:] = [renames.get(n, n) for n in names]


def _renamed(slots, renames):
    return {slot: [renames.get(n, n) for n in names] for slot, names in slots.items()}


def recompute_backward(block, loss, checkpoints=(), no_recompute_segments=()):
    """Rewrite the appended backward of ``loss`` (a name) in ``block`` to recompute the segments that
    ``checkpoints`` (Variables or names) delimit (or the ``rc`` name-scope marks); -> the segments, as
    [begin, end) indices into the loss's forward op path."""
    checkpoints = [_name(c, "checkpoints") for c in checkpoints]
    path = _op_path(block, loss)
    for op in path:
        if "sub_block" in op.attrs:
            raise NotImplementedError(f"recompute: op {op.type} holds a sub-block; recompute does not support "
                                      "control flow in the recomputed program")
    owners = _grad_ops_of(block, path)
    if not owners:
        raise ValueError(f"recompute: the program holds no backward of {loss!r}; append it first "
                         "(paddle.static.append_backward or optimizer.minimize)")
    seeded = _add_seeds(block, path)
    for op in seeded:
        for g in owners.get(id(op), ()):
            # the grad op reads what its forward op now reads
            g.inputs["Seed"] = list(op.inputs["Seed"])
            g.attrs.pop("seed", None)
            g.attrs.pop("fix_seed", None)
    stats = _Stats(path)
    checkpoints = stats.sort(checkpoints)
    segments = _segments_between(stats, checkpoints) if checkpoints else _marked_segments(path)
    if segments and segments[0][0] != 0 and checkpoints:
        segments.insert(0, [0, segments[0][0]])
    for i in sorted(set(no_recompute_segments), reverse=True):
        if not 0 <= i < len(segments):
            raise ValueError(f"recompute: no_recompute_segments index {i} is out of range; the program has "
                             f"{len(segments)} segments")
        segments.pop(i)
    if not segments:
        return []
    kept = set(checkpoints)
    for begin, end in segments:
        kept.update(stats.crossing(begin, end))
        kept.update(n for op in path[begin:end] for n in op.output_arg_names if op.type == "seed")
    kept.update(stats.inputs(block))

    renames = {}
    for i, (begin, end) in enumerate(reversed(segments)):
        ops = path[begin:end]
        suffix = f"{_SUFFIX}{i}"
        for op in ops:
            for n in op.input_arg_names + op.output_arg_names:
                var = block._find_var_recursive(n)
                if n in kept or n in renames or var is None or var.persistable:
                    continue
                renames[n] = n + suffix
                block.create_var(name=renames[n], shape=list(var.desc_shape), dtype=var.dtype,
                                 persistable=False, stop_gradient=var.stop_gradient)
        grad_ops = [g for op in ops for g in owners.get(id(op), ())]
        if not grad_ops:
            continue
        for g in grad_ops:
            _rename(g, renames)
        where = min(block.ops.index(g) for g in grad_ops)
        needed = [op for op in ops if any(n not in kept and not _persistable(block, n) for n in op.output_arg_names)]
        for k, op in enumerate(needed):
            attrs = dict(op.attrs, op_role=OpRole.Backward)
            block._insert_op(where + k, op.type, _renamed(op.inputs, renames), _renamed(op.outputs, renames),
                             attrs)
    block.program._invalidate()
    return segments


def _persistable(block, name):
    var = block._find_var_recursive(name)
    return var is not None and var.persistable


def apply_recompute(main_program, startup_program=None, config=None):
    """The recompute pass. ``main_program`` holds the backward of the loss (``append_backward``); ``config``:

    - ``checkpoints``: Variables or names delimiting the segments (Paddle's recompute strategy); empty: the ops
      under ``/auto_parallel/rc_<k>`` name scopes;
    - ``loss``: the Variable (or name) whose backward is rewritten; default: the output of the Loss-role op;
    - ``no_recompute_segments``: indices of segments to leave alone.

    ``startup_program`` is not changed. Returns {"segments": [[begin, end), ...]} (indices into the loss's
    forward op path)."""
    config = dict(config or {})
    block = main_program.global_block()
    segments = recompute_backward(block, _loss_name(block, config.get("loss")), config.get("checkpoints") or (),
                                  config.get("no_recompute_segments") or ())
    return {"segments": segments}

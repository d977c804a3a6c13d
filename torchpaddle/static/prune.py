"""normalize_program: the inference form of a program, as Paddle saves it.

A copy without feed/fetch ops, pruned to the ops the fetch targets need (walking back from the targets,
stopping at fed variables, so backward and optimizer ops drop out), ``is_test`` set on every op that has
it, then a ``feed`` op per feed target (column i) in front and a ``fetch`` op per fetch target at the end.
"""
from ..framework.program import Block, Program, Variable
from ..ops.registry import REGISTRY

__all__ = ["normalize_program", "is_persistable", "persistable_vars"]

# variables that hold no tensor value to save
_NOT_VALUES = frozenset(["FEED_MINIBATCH", "FETCH_LIST", "READER", "RAW"])


def is_persistable(var):
    """Paddle's is_persistable: persistable, and not a feed/fetch holder or a reader."""
    return bool(var.persistable) and str(var.var_type) not in _NOT_VALUES


def persistable_vars(program, unique=True):
    """The program's persistable variables (each name once unless ``unique`` is false), in block order."""
    out, seen = [], set()
    for var in program.list_vars():
        if is_persistable(var) and not (unique and var.name in seen):
            seen.add(var.name)
            out.append(var)
    return out


def _as_list(value, name):
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    if not all(isinstance(v, Variable) for v in items):
        raise TypeError(f"{name} type must be a Variable or a list of Variable.")
    return items


def normalize_program(program, feed_vars, fetch_vars, **kwargs):
    """The program to save for inference: pruned to ``fetch_vars`` given ``feed_vars``, with feed/fetch ops."""
    if not isinstance(program, Program):
        raise TypeError(f"program type must be `paddle.static.Program`, but received `{type(program)}`")
    feed_vars = _as_list(feed_vars, "feed_vars")
    fetch_vars = _as_list(fetch_vars, "fetch_vars")
    if not program.global_block().ops:
        raise ValueError("program must not be empty. at least one operator is required!")
    copy = program.clone()
    block = copy.global_block()
    block.ops = [op for op in block.ops if op.type not in ("feed", "fetch")]
    for op in block.ops:
        op.attrs["op_device"] = ""
    feed_names = [v.name for v in feed_vars]
    fetch_names = [v.name for v in fetch_vars]
    for name in fetch_names:
        if block._find_var_recursive(name) is None:
            raise ValueError(f"fetch_vars: variable {name!r} is not in the program")
    if not kwargs.get("skip_prune_program", False):
        _prune(copy, feed_names, fetch_names)
    _inference_optimize(copy)
    _add_feed_fetch(copy, feed_names, fetch_names)
    copy._invalidate()
    return copy


def _reads(op, program):
    """Every variable ``op`` reads, sub-blocks included (a control-flow op reads what its body reads)."""
    names = set(op.input_arg_names)
    for value in op.attrs.values():
        blocks = [value] if isinstance(value, Block) else \
            [v for v in value if isinstance(v, Block)] if isinstance(value, list) else []
        for sub in blocks:
            for inner in sub.ops:
                names |= _reads(inner, program)
    return names


def _prune(program, feed_names, fetch_names):
    block = program.global_block()
    feeds = set(feed_names)
    needed = set(fetch_names)
    kept = []
    # walking back from the targets: an op is kept when it writes something a kept op (or a target) reads;
    # what is fed is not computed, and ops after a target that update its inputs (optimizers) never match
    for op in reversed(block.ops):
        if any(n in needed and n not in feeds for n in op.output_arg_names):
            kept.append(op)
            needed |= _reads(op, program)
    kept.reverse()
    block.ops = kept
    used = set(fetch_names)
    for op in kept:
        used |= _reads(op, program) | set(op.output_arg_names)
    for name in list(block.vars):
        if name not in used:
            del block.vars[name]
    for i, name in enumerate(feed_names):
        if name not in block.vars:
            raise ValueError(f"The feeded_var_names[{i}]: '{name}' doesn't exist in pruned inference program. "
                             f"Please check whether '{name}' is a valid feed_var name, or remove it from "
                             f"feeded_var_names if '{name}' is not involved in the target_vars calculation.")


def _inference_optimize(program):
    for block in program.blocks:
        for op in block.ops:
            opdef = REGISTRY.get(op.type)
            if "is_test" in op.attrs or (opdef is not None and "is_test" in opdef.attrs):
                op.attrs["is_test"] = True
            if op.type == "batch_norm":
                op.outputs.pop("ReserveSpace", None)
    program._is_test = True


def _add_feed_fetch(program, feed_names, fetch_names):
    block = program.global_block()
    for i, name in enumerate(feed_names):
        if name not in block.vars:
            raise ValueError(f"The feeded_var_names[{i}]: '{name}' doesn't exist in pruned inference program.")
    if feed_names:
        block.create_var(name="feed", type="FEED_MINIBATCH", persistable=True)
    for i, name in enumerate(feed_names):
        # each one in front, as Paddle prepends them: the last column ends up first
        block._prepend_op("feed", {"X": ["feed"]}, {"Out": [name]}, {"col": i})
    block.create_var(name="fetch", type="FETCH_LIST", persistable=True)
    for i, name in enumerate(fetch_names):
        block.append_op("fetch", {"X": [name]}, {"Out": ["fetch"]}, {"col": i})

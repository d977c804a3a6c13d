"""Program rewrites of static AMP: insert ``cast`` ops so that white-list ops compute in float16/bfloat16 and
black-list ops in float32 (O1), or make the whole model half precision but the black list (O2).

The rewrite walks the forward ops of the global block in order. Each op gets a compute dtype; a float input
of another dtype is cast before it (one cast per variable and dtype, reused until the variable is written
again), and its outputs take the dtypes the op's kernel produces (inferred on meta tensors).
"""
import contextlib

import torch

from ...framework import dtype as _dtype
from ...framework.program import OpRole, Variable, name_scope
from ...ops.registry import REGISTRY
from ...utils import unique_name
from .fp16_lists import AutoMixedPrecisionLists

__all__ = ["fp16_guard", "rewrite_program", "cast_model_to_fp16", "cast_parameters_to_fp16"]

_GUARD = "__use_fp16__"
_FP32 = _dtype.DTYPES["float32"]
_SKIPPED = {"feed", "fetch", "cast"}
# inputs that stay float32 when their op computes in half precision (Paddle's kernels take them so)
_KEEP_FP32 = {("batch_norm", "Scale"), ("batch_norm", "Bias"), ("batch_norm", "Mean"), ("batch_norm", "Variance"),
              ("layer_norm", "Scale"), ("layer_norm", "Bias"), ("instance_norm", "Scale"),
              ("instance_norm", "Bias"), ("group_norm", "Scale"), ("group_norm", "Bias")}
_SUFFIX = {"float16": "fp16", "bfloat16": "bf16", "float32": "fp32"}


@contextlib.contextmanager
def fp16_guard():
    """Ops built inside run in half precision when the rewrite uses the guard (O2's ``use_fp16_guard``)."""
    with name_scope(_GUARD):
        yield


def _low_dtype(dest_type):
    d = _dtype.convert_dtype(dest_type)
    if d.name not in ("float16", "bfloat16"):
        raise ValueError(f"static AMP: dest_type must be float16 or bfloat16, got {d.name}")
    return d


def _in_guard(op):
    return _GUARD in op.attrs.get("op_namescope", "")


def _is_float(var):
    return isinstance(var, Variable) and var.dtype.name in ("float32", "float16", "bfloat16")


class _Rewriter:
    def __init__(self, program, amp_lists, low, level, use_guard):
        self.block = program.global_block()
        self.lists = amp_lists
        self.low = low
        self.level = level
        self.use_guard = use_guard
        self.cache = {}   # (var name, dtype name) -> name of its cast

    def _var(self, name):
        return self.block._find_var_recursive(name)

    def _float_inputs(self, op):
        for slot, names in op.inputs.items():
            for name in names:
                var = self._var(name)
                if _is_float(var):
                    yield slot, name, var

    def compute_dtype(self, op):
        """The dtype ``op`` computes in, or None to leave it as it is."""
        lists, t = self.lists, op.type
        names = set(op.input_arg_names) | set(op.output_arg_names)
        if names & lists.black_varnames or "sub_block" in op.attrs or t in lists.unsupported_list:
            return _FP32
        if self.level == "O2":
            if t in lists.black_list or (self.use_guard and not _in_guard(op)):
                return _FP32
            return self.low
        if t in lists.white_list:
            return self.low
        if t in lists.black_list:
            return _FP32
        if t in lists.gray_list:
            if any(var.dtype == self.low for _, _, var in self._float_inputs(op)):
                return self.low
            return None
        return _FP32

    def run(self, to_low_params=()):
        block, i = self.block, 0
        while i < len(block.ops):
            op = block.ops[i]
            if op.type in _SKIPPED or op.attrs.get("op_role", 0) & (OpRole.Backward | OpRole.Optimize):
                self._written(op)
                i += 1
                continue
            target = self.compute_dtype(op)
            if target is not None:
                i += self._cast_inputs(i, op, target, to_low_params)
                self._retype_outputs(op, target)
            self._written(op)
            i += 1

    def _cast_inputs(self, index, op, target, to_low_params):
        inserted = 0
        for slot, name, var in list(self._float_inputs(op)):
            if var.dtype == target or (op.type, slot) in _KEEP_FP32:
                continue
            if name in to_low_params and target == self.low:
                continue   # O2: the parameter itself becomes half precision
            key = (name, target.name)
            cast = self.cache.get(key)
            if cast is None:
                cast = unique_name.generate(f"{name}.cast_{_SUFFIX[target.name]}")
                self.block.create_var(name=cast, shape=list(var.desc_shape), dtype=target, persistable=False,
                                      stop_gradient=var.stop_gradient)
                self.block._insert_op(index + inserted, "cast", {"X": [name]}, {"Out": [cast]},
                                      {"in_dtype": var.dtype.proto, "out_dtype": target.proto,
                                       "op_role": op.attrs.get("op_role", OpRole.Forward)})
                inserted += 1
                self.cache[key] = cast
            op._rename_input(name, cast)
        return inserted

    def _retype_outputs(self, op, target):
        d = REGISTRY.get(op.type)
        described = None
        if d is not None:
            from ..append import infer_outputs
            args = []
            for slot in d.inputs:
                vs = [self._var(n) for n in op.inputs.get(slot.name, [])]
                args.append(vs if slot.is_list else (vs[0] if vs else None))
            attrs = dict(d.attrs)
            attrs.update({k: v for k, v in op.attrs.items() if k in d.attrs})
            try:
                described = infer_outputs(d, args, attrs)
                described = [described] if len(d.outputs) == 1 else list(described)
                described = dict(zip([s.name for s in d.outputs], described))
            except Exception:  # noqa: BLE001 - fall back to the compute dtype below
                described = None
        for slot, names in op.outputs.items():
            descs = None if described is None else described.get(slot)
            if descs is not None and not isinstance(descs, list):
                descs = [descs]
            for k, name in enumerate(names):
                var = self._var(name)
                if not _is_float(var) or var.persistable:
                    continue
                if descs is not None and k < len(descs) and descs[k] is not None:
                    new = descs[k][1]
                    if new.name in ("float32", "float16", "bfloat16"):
                        var._dtype = new
                else:
                    var._dtype = target

    def _written(self, op):
        outs = set(op.output_arg_names)
        if outs:
            for key in [k for k in self.cache if k[0] in outs]:
                del self.cache[key]


def rewrite_program(main_prog, amp_lists=None, dest_type="float16"):
    """O1: white-list ops compute in ``dest_type``, black-list ops in float32, gray ops follow their inputs."""
    low = _low_dtype(dest_type)
    amp_lists = amp_lists or AutoMixedPrecisionLists(dtype=low.name)
    _Rewriter(main_prog, amp_lists, low, "O1", False).run()


def _params_for_low(program, rewriter):
    """O2: the parameters read only by ops that will compute in half precision (outside the keep-fp32 slots)."""
    block = program.global_block()
    params = {p.name for p in block.all_parameters()}
    keep = set()
    wanted = set()
    for op in block.ops:
        if op.type in _SKIPPED or op.attrs.get("op_role", 0) & (OpRole.Backward | OpRole.Optimize):
            continue
        low = rewriter.compute_dtype(op) == rewriter.low
        for slot, names in op.inputs.items():
            for n in names:
                if n in params:
                    if low and (op.type, slot) not in _KEEP_FP32:
                        wanted.add(n)
                    else:
                        keep.add(n)
    return sorted(wanted - keep)


def cast_model_to_fp16(program, amp_lists=None, use_fp16_guard=True, dest_type="float16", level="O2",
                       use_promote=False):
    """Rewrite ``program`` for AMP at ``level``; at O2 its half-precision parameters are returned by name
    (their values become half precision with ``cast_parameters_to_fp16`` or the decorator's ``amp_init``)."""
    low = _low_dtype(dest_type)
    amp_lists = amp_lists or AutoMixedPrecisionLists(dtype=low.name)
    level = level.upper()
    if level not in ("O1", "O2"):
        raise ValueError(f"cast_model_to_fp16: level must be 'O1' or 'O2', got {level!r}")
    rewriter = _Rewriter(program, amp_lists, low, level, bool(use_fp16_guard) and level == "O2")
    to_low = _params_for_low(program, rewriter) if level == "O2" else []
    block = program.global_block()
    for name in to_low:
        block.var(name)._dtype = low
    rewriter.run(set(to_low))
    return to_low


def cast_parameters_to_fp16(place, program, scope=None, to_fp16_var_names=None, dest_type="float16",
                            rewrite_master_weight=False, master_weights=None):
    """Cast the scope values of ``program``'s parameters (those named, or all) to ``dest_type`` in place."""
    from ..scope import global_scope
    low = _low_dtype(dest_type)
    scope = scope or global_scope()
    names = set(to_fp16_var_names) if to_fp16_var_names is not None else \
        {p.name for p in program.global_block().all_parameters()}
    for name in sorted(names):
        var = scope.find_var(name)
        if var is None:
            continue
        tensor = var.get_tensor()
        t = tensor._t
        if t is None or not t.is_floating_point() or t.dtype == low.torch:
            continue
        if master_weights is not None:
            master_weights[name] = t.to(torch.float32).clone()
        tensor.set(t.to(low.torch), place)

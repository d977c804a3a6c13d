"""paddle.static.amp.debugging.collect_operator_stats: how many ops of each type a program runs in float16,
bfloat16, float32 and other dtypes (the dtype of an op's first floating input, else of its first output)."""
import collections

__all__ = ["collect_operator_stats", "OperatorStatsUnit"]

_COLUMNS = {"float16": 0, "bfloat16": 1, "float32": 2}


class OperatorStatsUnit:
    def __init__(self):
        self.op_type = None
        self.fp32_calls = self.fp16_calls = self.bf16_calls = self.other_calls = 0

    def update(self, dtype):
        name = getattr(dtype, "name", None)
        attr = {"float32": "fp32_calls", "float16": "fp16_calls", "bfloat16": "bf16_calls"}.get(name,
                                                                                               "other_calls")
        setattr(self, attr, getattr(self, attr) + 1)

    def addto(self, another):
        for attr in ("fp32_calls", "fp16_calls", "bf16_calls", "other_calls"):
            setattr(self, attr, getattr(self, attr) + getattr(another, attr))

    def convert_to_list(self):
        return [self.fp16_calls, self.bf16_calls, self.fp32_calls, self.other_calls]


def _compute_dtype(op, block):
    def dtype_of(name):
        var = block._find_var_recursive(name)
        return None if var is None else var.dtype
    inputs = [d for d in map(dtype_of, op.input_arg_names) if d is not None]
    floats = [d for d in inputs if d.is_floating_point]
    if floats:
        return floats[0]
    if inputs:
        return inputs[0]
    outputs = [d for d in map(dtype_of, op.output_arg_names) if d is not None]
    return outputs[0] if outputs else None


def _stats(program, print_subblocks):
    per_block = []
    for block in program.blocks:
        stats = collections.defaultdict(OperatorStatsUnit)
        for op in block.ops:
            unit = stats[op.type]
            unit.op_type = op.type
            unit.update(_compute_dtype(op, block))
        per_block.append(dict(stats))
    if print_subblocks:
        return per_block
    merged = {}
    for stats in per_block:
        for op_type, unit in stats.items():
            merged.setdefault(op_type, OperatorStatsUnit()).addto(unit)
            merged[op_type].op_type = op_type
    return [merged]


def collect_operator_stats(program=None, print_subblocks=False):
    """Print, per op type, the number of calls in float16, bfloat16, float32 and other dtypes."""
    from ...framework.program import default_main_program
    program = program or default_main_program()
    for i, stats in enumerate(_stats(program, print_subblocks)):
        title = f"<--------------- Op List of Block {i} --------------->" if print_subblocks else \
            "<------------------------------------------------ op list -------------------------------------------->"
        print(title)
        print(f"{'Op Name':<40}|  {'FP16 Calls':<20}|  {'BF16 Calls':<20}|  {'FP32 Calls':<20}|  Other Calls")
        for op_type in sorted(stats):
            fp16, bf16, fp32, other = stats[op_type].convert_to_list()
            print(f"  {op_type:<38}|  {fp16:<20}|  {bf16:<20}|  {fp32:<20}|  {other}")
        print(f"<{'-' * 40} op count: {len(stats)} {'-' * 40}>")

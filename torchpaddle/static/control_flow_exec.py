"""The executor's steps for ops that hold a sub-block (``conditional_block``, ``while``, ``pylayer``), and for
ops that need more than their kernel (``OP_STEPS``: ``write_to_array`` changes its array in place, ``print`` and
``assert`` name the variables they print).

A step runs the sub-block's ops on the run's own name -> tensor dict (variable names are unique in a Program,
so the sub-block's variables cannot clash with the parent's), then drops the sub-block's temporaries. The
ops run in whatever autograd mode the plan runs its forward in, so a program with a backward records the
executed branch of a ``cond`` and its grad ops get gradients through it.
"""

from ..ops.defs.array import write_array
from ..ops.defs.control_flow import check_assert, format_print

__all__ = ["control_flow_step", "check_grad_ops", "autograd_can", "OP_STEPS", "ARRAY_TYPES"]

# the var types of LoDTensorArrays: a plan starts them as empty lists, as Paddle's scope creates them
ARRAY_TYPES = frozenset(["LOD_TENSOR_ARRAY", "DENSE_TENSOR_ARRAY"])

def autograd_can(ops):
    """Whether one autograd step over the forward's graph can give the gradients of these grad ops (else the
    Executor runs them one by one, and a while_grad recomputes its loop from the values it started from)."""
    try:
        check_grad_ops(ops)
    except NotImplementedError:
        return False
    return True


def check_grad_ops(ops):
    """Refuse a gradient autograd cannot give. A ``while`` op rewrites its loop variables in place, so autograd
    (which records every iteration) gives gradients to everything the loop's first iteration depends on, except
    the gradient with respect to a loop variable itself: that name holds the final value. It matters when the loop
    variable is a leaf (fed, or a parameter): its gradient would be wrong, so it is refused."""
    for op in ops:
        if op.type != "while_grad":
            continue
        block = op.block
        forward = next((o for o in block.ops if o.type == "while" and
                        o.attrs.get("sub_block") is op.attrs.get("sub_block")), None)
        if forward is None:
            continue
        written_before = set()
        for o in block.ops:
            if o is forward:
                break
            written_before.update(o.output_arg_names)
        carried = set(forward.input("X")) & set(forward.output("Out"))
        for name in op.output("X@GRAD"):
            var = name[:-len("@GRAD")]
            if var in carried and var not in written_before:
                raise NotImplementedError(
                    f"Executor: the gradient with respect to {var!r}, a while_loop variable that the loop rewrites "
                    "in place, is not supported by torchpaddle; start the loop from a copy (paddle.assign(x)) or "
                    "give it stop_gradient=True")


class _SubBlockStep:
    """Shared part: the sub-block's steps, the outer names read and written, and the temporaries to drop."""

    def __init__(self, op, make_step, read_slots, write_slots):
        self.op = op
        block = op.attrs["sub_block"]
        self.steps = [make_step(o) for o in block.ops if o.type not in ("feed", "fetch")]
        self.reads = [n for s in read_slots for n in op.input(s)]
        self.writes = [n for s in write_slots for n in op.output(s)]
        outer = set(self.writes)
        self.temps = sorted({n for s in self.steps for n in s.writes if n not in outer})

    def _run_block(self, env):
        for step in self.steps:
            step(env)
        for n in self.temps:
            env.pop(n, None)


def _truth(value, what):
    if value.numel() != 1:
        raise ValueError(f"Executor: {what} must hold one element, got shape {list(value.shape)}")
    return bool(value.reshape(-1)[0])


class _ConditionalBlockStep(_SubBlockStep):
    def __init__(self, op, make_step):
        super().__init__(op, make_step, ("Cond", "Input"), ("Out",))
        self.cond = op.input("Cond")
        self.scalar = bool(op.attrs.get("is_scalar_condition", False))

    def __call__(self, env):
        if self.scalar:
            run = _truth(env[self.cond[0]], f"the condition {self.cond[0]} of conditional_block")
        else:
            # Paddle: a non-scalar condition runs the block when every condition tensor is non-empty
            run = all(env[n].numel() > 0 for n in self.cond)
        if run:
            self._run_block(env)
        else:
            # outputs the skipped block would have computed: None, so select_input can tell them apart
            for n in self.writes:
                env.setdefault(n, None)


class _WhileStep(_SubBlockStep):
    def __init__(self, op, make_step):
        super().__init__(op, make_step, ("X", "Condition"), ("Out",))
        self.cond = op.input("Condition")[0]

    def __call__(self, env):
        what = f"the condition {self.cond} of while"
        while _truth(env[self.cond], what):
            self._run_block(env)


class _PyLayerStep(_SubBlockStep):
    """static_pylayer: the forward block; with a backward block, inside an autograd.Function whose backward runs
    that block on the outputs' gradients."""

    def __init__(self, op, make_step):
        super().__init__(op, make_step, ("Ins",), ("Outs",))
        self.inputs = op.input("Ins")[:op.attrs.get("num_inputs", 0)]
        self.outs = list(op.attrs.get("forward_outs", ()))
        index = op.attrs.get("backward_block_idx", -1)
        self.backward = None
        if index >= 0:
            block = op.block.program.blocks[index]
            self.backward = [make_step(o) for o in block.ops]
            produced = set(block.vars)
            # outer values the backward block reads: kept from the forward, the plan may free them before backward
            self.backward_reads = sorted({n for s in self.backward for n in s.reads if n not in produced} -
                                         set(op.attrs["backward_douts"]))
            self.douts = list(op.attrs["backward_douts"])
            self.grads = list(op.attrs["backward_grads"])

    def __call__(self, env):
        import torch
        if self.backward is None or not torch.is_grad_enabled():
            self._run_block(env)
            return
        step = self

        class _Fn(torch.autograd.Function):
            @staticmethod
            def forward(ctx, *values):
                ctx.kept = {n: env[n] for n in step.backward_reads if n in env}
                step._run_block(env)
                return tuple(env[n] for n in step.outs)

            @staticmethod
            def backward(ctx, *grads):
                local = dict(ctx.kept)
                local.update(zip(step.douts, grads))
                with torch.no_grad():
                    for s in step.backward:
                        s(local)
                return tuple(None if not g else local[g] for g in step.grads)

        results = _Fn.apply(*[env[n] for n in self.inputs])
        for n, value in zip(self.outs, results):
            env[n] = value


class _WriteToArrayStep:
    """Out[I] = X on the array Out in place (a while loop's body appends to the loop's array)."""

    def __init__(self, op, make_step):
        self.op = op
        self.x, self.i, self.array = op.input("X")[0], op.input("I")[0], op.output("Out")[0]
        # the array is read too: it must live until here, and an unwritten one starts empty
        self.reads = [self.x, self.i, self.array]
        self.writes = [self.array]

    def __call__(self, env):
        array = env.get(self.array)
        if array is None:
            array = env[self.array] = []
        write_array(array, env[self.x], env[self.i])


class _PrintStep:
    """print: Out = In, printing In under its variable name (the first ``first_n`` runs only, when >= 0)."""

    def __init__(self, op, make_step):
        self.op = op
        self.name, self.out = op.input("In")[0], op.output("Out")[0] if op.output("Out") else None
        self.reads, self.writes = [self.name], [self.out] if self.out else []
        a = op.attrs
        self.first_n = a.get("first_n", -1)
        self.count = 0
        self.options = dict(message=a.get("message", "") or "", summarize=a.get("summarize", 20),
                            print_tensor_name=a.get("print_tensor_name", True),
                            print_tensor_type=a.get("print_tensor_type", True),
                            print_tensor_shape=a.get("print_tensor_shape", True),
                            print_tensor_layout=a.get("print_tensor_layout", True),
                            print_tensor_lod=a.get("print_tensor_lod", True))

    def __call__(self, env):
        value = env[self.name]
        if self.first_n < 0 or self.count < self.first_n:
            self.count += 1
            print(format_print(self.name, value, **self.options), flush=True)
        if self.out:
            env[self.out] = value


class _AssertStep:
    def __init__(self, op, make_step):
        self.op = op
        self.cond, self.data = op.input("Cond")[0], list(op.input("Data"))
        self.summarize = op.attrs.get("summarize", 20)
        self.reads, self.writes = [self.cond] + self.data, []

    def __call__(self, env):
        check_assert(env[self.cond], [env[n] for n in self.data], self.summarize, self.cond, self.data)


OP_STEPS = {"write_to_array": _WriteToArrayStep, "print": _PrintStep, "assert": _AssertStep}
_STEPS = {"conditional_block": _ConditionalBlockStep, "while": _WhileStep, "pylayer": _PyLayerStep, **OP_STEPS}


def control_flow_step(op, make_step):
    """The step running ``op`` (an op with a ``sub_block`` attribute, or one of ``OP_STEPS``); ``make_step(op)``
    builds inner steps."""
    cls = _STEPS.get(op.type)
    if cls is None:
        raise NotImplementedError(f"Executor: op type {op.type!r} with a sub-block is not supported by torchpaddle")
    return cls(op, make_step)

"""fluid.layers: control_flow. Comparisons (writing into ``cond`` when given), increment, the While and Switch
block builders (static only, as in fluid) on the ``while`` / ``conditional_block`` ops that static.nn's
while_loop and cond use, and paddle.tensor's tensor arrays."""
import contextlib

from ... import ops as _ops
from ... import tensor as _T
from ...framework.mode import STATE as _MODE
from ...framework.program import default_main_program
from ...static.nn import case, cond, switch_case, while_loop  # noqa: F401
from ...static.nn.control_flow import _block_io, _scope_var
from ...tensor import array as _array
from ...utils import unique_name
from ._helper import check_variable, layer_prefix, needs_lod, tmp_names

__all__ = ["less_than", "less_equal", "greater_than", "greater_equal", "equal", "not_equal", "increment",
           "is_empty", "cond", "case", "switch_case", "while_loop", "While", "Switch", "IfElse", "StaticRNN",
           "DynamicRNN", "reorder_lod_tensor_by_rank", "create_array", "array_write", "array_read", "array_length",
           "Print"]


def _into(result, target, api):
    if target is None:
        return result
    check_variable(target, api, "cond")
    _T.assign(result, target)
    return target


def _compare(op_type):
    kernel = getattr(_ops, op_type)

    def layer(x, y, cond=None, force_cpu=None):
        check_variable(x, op_type, "x")
        check_variable(y, op_type, "y")
        with tmp_names(layer_prefix(op_type)):
            result = kernel(x, y, axis=-1, force_cpu=bool(force_cpu))
        return _into(result, cond, op_type)
    layer.__name__ = layer.__qualname__ = op_type
    layer.__doc__ = f"fluid.layers.{op_type}(x, y, cond=None): a bool Variable, written into ``cond`` if given."
    return layer


less_than = _compare("less_than")
less_equal = _compare("less_equal")
greater_than = _compare("greater_than")
greater_equal = _compare("greater_equal")
equal = _compare("equal")
not_equal = _compare("not_equal")


def increment(x, value=1.0, in_place=True):
    """x + value for a one-element ``x``; ``in_place`` writes the result into ``x`` itself."""
    check_variable(x, "increment", "x")
    if _MODE.static and in_place:
        block = default_main_program().current_block()
        block.append_op("increment", {"X": [x.name]}, {"Out": [x.name]}, {"step": float(value)})
        return x
    if in_place:
        return _T.increment(x, value)
    return _ops.increment(x, step=float(value))


def is_empty(x, cond=None):
    check_variable(x, "is_empty", "x")
    result = _ops.is_empty(x)
    if len(result.shape) == 0:
        result = _T.reshape(result, [1])
    return _into(result, cond, "is_empty")


def _static_only(api):
    if not _MODE.static:
        raise AssertionError(f"fluid.layers.{api} is only supported in static graph mode")


class While:
    """``with While(cond).block():`` -- the ops appended inside run while ``cond`` (a bool [1] Variable that the
    block must update, e.g. ``less_than(i, n, cond=cond)``) holds."""

    def __init__(self, cond, is_test=False, name=None):
        _static_only("While")
        check_variable(cond, "While", "cond")
        if cond.dtype.name != "bool":
            raise TypeError(f"While: cond must be a bool Variable, got {cond.dtype.name}")
        if list(cond.shape) not in ([1], []):
            raise TypeError(f"While: cond must hold one element (shape [1]), got shape {list(cond.shape)}")
        self.cond_var = cond
        self.is_test = bool(is_test)
        self.name = name

    @contextlib.contextmanager
    def block(self):
        program = default_main_program()
        sub = program._create_block()
        try:
            yield
        finally:
            program._rollback()
        reads, writes = _block_io(sub)
        parent = program.current_block()
        parent.append_op("while", {"X": reads, "Condition": [self.cond_var.name]},
                         {"Out": writes, "StepScopes": [_scope_var(parent).name]},
                         {"sub_block": sub, "is_test": self.is_test})


def _conditional(program, cond_var):
    @contextlib.contextmanager
    def run():
        sub = program._create_block()
        try:
            yield
        finally:
            program._rollback()
        reads, writes = _block_io(sub)
        parent = program.current_block()
        parent.append_op("conditional_block", {"Cond": [cond_var.name], "Input": reads},
                         {"Out": writes, "Scope": [_scope_var(parent).name]},
                         {"sub_block": sub, "is_scalar_condition": True})
    return run()


class Switch:
    """``with Switch() as s: with s.case(c1): ...; with s.default(): ...`` -- the first case whose condition
    holds runs (its ops write outer variables, e.g. with ``assign``), else the default."""

    def __init__(self, name=None):
        _static_only("Switch")
        self._inside = False
        self._not_before = None

    def __enter__(self):
        self._inside = True
        return self

    def __exit__(self, *exc):
        self._inside = False
        return False

    def case(self, condition):
        if not self._inside:
            raise ValueError("Switch.case must be used inside 'with Switch() as switch:'")
        check_variable(condition, "Switch.case", "condition")
        if self._not_before is None:
            now, self._not_before = condition, _ops.logical_not(condition)
        else:
            now = _ops.logical_and(self._not_before, condition)
            self._not_before = _ops.logical_and(self._not_before, _ops.logical_not(condition))
        return _conditional(default_main_program(), now)

    def default(self):
        if not self._inside:
            raise ValueError("Switch.default must be used inside 'with Switch() as switch:'")
        if self._not_before is None:
            raise ValueError("Switch.default needs at least one case before it")
        return _conditional(default_main_program(), self._not_before)


IfElse = needs_lod("IfElse")
DynamicRNN = needs_lod("DynamicRNN")
reorder_lod_tensor_by_rank = needs_lod("reorder_lod_tensor_by_rank")


@contextlib.contextmanager
def _building_in(program, block_idx):
    old = program._current_block_idx
    program._current_block_idx = block_idx
    try:
        yield
    finally:
        program._current_block_idx = old


class StaticRNN:
    """A recurrent network over a fixed number of steps (the first dimension of its step inputs):
    ``with rnn.step():`` declares one step with step_input / memory / update_memory / step_output; ``rnn()``
    returns the step outputs stacked on axis 0.
    NOTE: torchpaddle unrolls the step into the main block, one copy of its ops per time step (fluid ran them in
    a ``recurrent`` op); the values and gradients are the same, the program holds more ops."""

    def __init__(self, name=None):
        _static_only("StaticRNN")
        self._inputs, self._memories, self._outputs, self._results = [], {}, [], None
        self._block = None
        self._steps = None

    def _in_step(self, api):
        if self._block is None or self._results is not None:
            raise ValueError(f"StaticRNN.{api} must be called inside 'with rnn.step():'")

    @contextlib.contextmanager
    def step(self):
        if self._block is not None:
            raise ValueError("StaticRNN.step() can be entered only once")
        program = default_main_program()
        self._block = program._create_block()
        try:
            yield
        finally:
            program._rollback()
        self._unroll(program)

    def step_input(self, x):
        self._in_step("step_input")
        check_variable(x, "StaticRNN.step_input", "x")
        steps = x.shape[0]
        if steps < 0:
            raise ValueError(f"StaticRNN.step_input: the number of steps (x's first dimension) must be known, got "
                             f"shape {list(x.shape)}")
        if self._steps is not None and steps != self._steps:
            raise ValueError(f"StaticRNN.step_input: every step input needs {self._steps} steps, got {steps}")
        self._steps = steps
        inner = self._block.create_var(name=unique_name.generate("static_rnn_input"), shape=list(x.shape[1:]),
                                       dtype=x.dtype, stop_gradient=x.stop_gradient)
        self._inputs.append((inner, x))
        return inner

    def memory(self, init=None, shape=None, batch_ref=None, init_value=0.0, init_batch_dim_idx=0,
               ref_batch_dim_idx=1):
        """The state carried between steps: ``init`` or, without it, ``init_value`` of ``shape`` with the batch
        dimension of ``batch_ref`` (a step input)."""
        self._in_step("memory")
        program = default_main_program()
        if init is None:
            if shape is None or batch_ref is None:
                raise ValueError("StaticRNN.memory: without init, shape and batch_ref must be given")
            outer = next((x for inner, x in self._inputs if inner is batch_ref), batch_ref)
            with _building_in(program, self._block.parent_idx):
                init = _T.assign(_ops.fill_constant_batch_size_like(
                    outer, shape=[int(d) for d in shape], value=float(init_value), dtype=outer.dtype.proto,
                    input_dim_idx=int(ref_batch_dim_idx), output_dim_idx=int(init_batch_dim_idx),
                    force_cpu=False))
        check_variable(init, "StaticRNN.memory", "init")
        inner = self._block.create_var(name=unique_name.generate("static_rnn_memory"), shape=list(init.shape),
                                       dtype=init.dtype, stop_gradient=init.stop_gradient)
        self._memories[inner.name] = [init, None]
        return inner

    def update_memory(self, mem, var):
        self._in_step("update_memory")
        if mem.name not in self._memories:
            raise ValueError("StaticRNN.update_memory: mem must be a memory of this StaticRNN")
        check_variable(var, "StaticRNN.update_memory", "var")
        self._memories[mem.name][1] = var.name

    def step_output(self, o):
        self._in_step("step_output")
        check_variable(o, "StaticRNN.step_output", "o")
        self._outputs.append(o.name)

    def output(self, *outputs):
        for o in outputs:
            self.step_output(o)

    def __call__(self, *args, **kwargs):
        if self._results is None:
            raise ValueError("StaticRNN: call it after its 'with rnn.step():' block")
        return self._results[0] if len(self._results) == 1 else self._results

    def _unroll(self, program):
        if self._steps is None:
            raise ValueError("StaticRNN: the step needs at least one step_input")
        for name, (init, update) in self._memories.items():
            if update is None:
                raise ValueError(f"StaticRNN: memory {name} is never given update_memory")
        sub, parent = self._block, program.current_block()
        local = set(sub.vars)
        state = {name: init.name for name, (init, _) in self._memories.items()}
        per_step = []
        for t in range(self._steps):
            mapping = dict(state)
            for inner, x in self._inputs:
                mapping[inner.name] = _T.squeeze(_T.slice(x, [0], [t], [t + 1]), [0]).name
            for op in sub.ops:
                outputs = {}
                for slot, names in op.outputs.items():
                    renamed = []
                    for n in names:
                        if n in local:
                            var = sub.vars[n]
                            new = parent.create_var(name=f"{n}@step{t}", shape=list(var.shape), dtype=var.dtype,
                                                    stop_gradient=var.stop_gradient)
                            mapping[n] = new.name
                        renamed.append(mapping.get(n, n))
                    outputs[slot] = renamed
                inputs = {slot: [mapping.get(n, n) for n in names] for slot, names in op.inputs.items()}
                parent.append_op(op.type, inputs, outputs, dict(op.attrs))
            state = {name: mapping[update] for name, (_, update) in self._memories.items()}
            per_step.append([parent.var(mapping[o]) for o in self._outputs])
        self._results = [_T.stack([step[k] for step in per_step], axis=0) for k in range(len(self._outputs))]
        if sub.idx == program.num_blocks - 1:
            program.blocks.pop()


# -- tensor arrays: paddle.tensor's (a LOD_TENSOR_ARRAY Variable in static mode, a list in dygraph) ---------------
def create_array(dtype):
    return _array.create_array(dtype)


def array_write(x, i, array=None):
    """array[i] = x (growing the array as needed); returns the array."""
    return _array.array_write(x, i, array)


def array_read(array, i):
    return _array.array_read(array, i)


def array_length(array):
    """The number of entries, int64 of shape [1]."""
    return _array.array_length(array)


def Print(input, first_n=-1, message=None, summarize=20, print_tensor_name=True, print_tensor_type=True,
          print_tensor_shape=True, print_tensor_lod=True, print_phase="both"):
    """Prints ``input`` when the program runs (static.Print); returns it."""
    from ...static import Print as _print
    return _print(input, first_n, message, summarize, print_tensor_name, print_tensor_type, print_tensor_shape,
                  True, print_tensor_lod, print_phase)

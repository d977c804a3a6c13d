"""Tracing a dygraph function into a static Program, and running that Program on eager tensors.

Tracing turns static mode on under a fresh ``program_guard`` and calls the function once with a ``data``
Variable for every tensor argument. An eager Tensor the function touches (a Layer's parameters and buffers,
a captured tensor) becomes a persistable variable of the same name, bound to that tensor when the program
runs, so nothing is baked in as a constant: a training step that changes a parameter is seen by the next
call, and an op that updates a buffer in place (batch_norm's running statistics) updates the eager one.

A run feeds the call's torch tensors and the bound tensors into the executor's plan and runs its steps with
autograd recording (when grad mode is on), so gradients flow back to the eager arguments and parameters.
"""
from ..framework import mode as _mode
from ..framework.parameter import Parameter
from ..framework.program import Program, StaticParameter, Variable, program_guard
from ..framework.tensor import Tensor, wrap
from ..utils import unique_name

__all__ = ["ConcreteProgram", "trace", "flatten", "pack", "run_plan"]


# -- nested structures ------------------------------------------------------------------------------------------
def flatten(value, is_leaf):
    """(template, leaves): ``value`` (nested lists, tuples, dicts) with each leaf replaced by its index."""
    leaves = []

    def walk(v):
        if is_leaf(v):
            leaves.append(v)
            return _Slot(len(leaves) - 1)
        if isinstance(v, (list, tuple)):
            items = [walk(x) for x in v]
            return type(v)(items) if not hasattr(v, "_fields") else type(v)(*items)
        if isinstance(v, dict):
            return type(v)((k, walk(x)) for k, x in v.items())
        return v
    return walk(value), leaves


class _Slot:
    __slots__ = ("index",)

    def __init__(self, index):
        self.index = index

    def __repr__(self):
        return f"<input {self.index}>"


def pack(template, leaves):
    """The inverse of ``flatten``: ``template`` with slot i replaced by ``leaves[i]``."""
    if isinstance(template, _Slot):
        return leaves[template.index]
    if isinstance(template, (list, tuple)):
        items = [pack(x, leaves) for x in template]
        return type(template)(items) if not hasattr(template, "_fields") else type(template)(*items)
    if isinstance(template, dict):
        return type(template)((k, pack(x, leaves)) for k, x in template.items())
    return template


# -- the traced program ----------------------------------------------------------------------------------------
class ConcreteProgram:
    """A function traced for one input signature: the Program, its feed variables, its outputs and the eager
    tensors bound to its persistable variables."""

    def __init__(self, main_program, startup_program, inputs, outputs_template, outputs, bindings, function):
        self.main_program = main_program
        self.startup_program = startup_program
        self.inputs = inputs                      # the data Variables, in argument order
        self.outputs_template = outputs_template  # the function's return structure, slots for ``outputs``
        self.outputs = outputs                    # leaves of the return value: Variables or other values
        self.bindings = bindings                  # [(variable name, eager Tensor)]
        self.function = function
        self._plan = None
        self._compiled = False   # set by to_static: run through torch.compile

    @property
    def parameters(self):
        return [t for _, t in self.bindings if isinstance(t, Parameter)]

    @property
    def fetch_vars(self):
        return [v for v in self.outputs if isinstance(v, Variable)]

    def _get_plan(self):
        if self._plan is None:
            from ..static.executor import Plan
            self._plan = Plan(self.main_program, [v.name for v in self.inputs],
                              [v.name for v in self.fetch_vars])
            if self._compiled:
                from ..static.compiled_plan import CompiledPlan
                self._plan = CompiledPlan(self._plan, executor=False)
        return self._plan

    def run(self, tensors):
        """Run on ``tensors`` (eager Tensors, one per input); returns the function's output structure."""
        plan = self._get_plan()
        env = {}
        for var, t in zip(self.inputs, tensors):
            value = t._t
            if value.dtype != var.dtype.torch:
                raise TypeError(f"to_static: input {var.name!r} was traced as {var.dtype.name}, got "
                                f"{t.dtype.name}")
            env[var.name] = value
        for name, t in self.bindings:
            env[name] = t._t
        missing = [n for n in plan.from_scope if n not in env]
        if missing:
            raise RuntimeError(f"to_static: the traced program of {self.function} reads {missing}, which have no "
                               "value (variables created while tracing, e.g. a Layer built inside forward, are "
                               "not supported; build Layers in __init__)")
        values = run_plan(plan, env)
        values = iter(values)
        results = [next(values) if isinstance(out, Variable) else out for out in self.outputs]
        return pack(self.outputs_template, results)


def run_plan(plan, env):
    """Run an executor Plan's steps over ``env`` (name -> torch tensor); returns its fetches as Tensors.
    NOTE: unlike Executor.run, autograd records here (when grad mode is on): an eager backward() goes through
    the program's kernels to the eager inputs and parameters."""
    plan.run_steps(env)
    return [wrap(env[n]) for n in plan.fetch_names]


class _Capture:
    """Eager Tensor -> persistable Variable of the traced program (the ``append.capture_tensor`` hook)."""

    def __init__(self, block):
        self.block = block
        self.vars = {}
        self.bindings = []

    def __call__(self, tensor):
        found = self.vars.get(id(tensor))
        if found is not None:
            return found[0]
        name = tensor.name
        if name in self.block.vars:
            name = unique_name.generate(name)
        shape, dt = list(tensor.shape), tensor.dtype
        if isinstance(tensor, Parameter):
            var = self.block.create_parameter(shape, dt, name=name, trainable=not tensor.stop_gradient,
                                              need_clip=getattr(tensor, "need_clip", True))
        else:
            var = self.block.create_var(name=name, shape=shape, dtype=dt, persistable=True,
                                        stop_gradient=tensor.stop_gradient)
        self.vars[id(tensor)] = (var, tensor)   # the tensor is kept alive so its id stays unique
        self.bindings.append((var.name, tensor))
        return var


def _is_tensor_input(value):
    return isinstance(value, Tensor) and not isinstance(value, Variable)


def _is_input(value):
    from ..static.input import InputSpec
    return isinstance(value, InputSpec) or _is_tensor_input(value)


def trace(function, args, kwargs, specs, names):
    """Trace ``function(*args, **kwargs)``; ``specs`` gives, per tensor leaf of (args, kwargs) in order, an
    InputSpec-like (shape, dtype, name, stop_gradient) for its data Variable; ``names`` the default names."""
    from ..static import append as _append
    from ..static.input import data
    template, leaves = flatten((args, kwargs), _is_input)
    main, startup = Program(), Program()
    was_static = _mode.STATE.static
    capture = _Capture(main.global_block())
    previous_hook = _append.capture_tensor
    _mode.enable_static()
    try:
        with program_guard(main, startup), unique_name.guard():
            inputs, used = [], set()
            for spec, default in zip(specs, names):
                shape, dtype, name, stop_gradient = spec
                name = name or default
                while name in used:
                    name = unique_name.generate(name)
                used.add(name)
                var = data(name, [-1 if s is None else s for s in shape], dtype)
                var.stop_gradient = stop_gradient
                inputs.append(var)
            _append.capture_tensor = capture
            main._trace_dims = True   # x.shape[i] of an unknown dim follows the input at run time
            call_args, call_kwargs = pack(template, inputs)
            feed_names = [v.name for v in inputs]
            result = function(*call_args, **call_kwargs)
            # by name: an input the function assigned into (x[i] = v) is another Variable object now
            inputs = [main.global_block().var(name) for name in feed_names]
    finally:
        main._trace_dims = False
        _append.capture_tensor = previous_hook
        if not was_static:
            _mode.disable_static()
    out_template, outputs = flatten(result, lambda v: isinstance(v, Tensor))
    for out in outputs:
        if isinstance(out, Variable) and out.block.program is not main:
            raise ValueError(f"to_static: {getattr(function, '__name__', function)} returned Variable {out.name}, "
                             "which is not part of the traced program")
    if any(isinstance(v, StaticParameter) and v.name not in dict(capture.bindings)
           for v in main.global_block().vars.values()):
        created = [v.name for v in main.global_block().all_parameters() if v.name not in dict(capture.bindings)]
        raise RuntimeError(f"to_static: {getattr(function, '__name__', function)} created parameters {created} while "
                           "it was traced; create parameters (and Layers) in __init__, not in forward")
    # an output that is an eager tensor (returned untouched) is fed from its binding
    outputs = [capture(v) if _is_tensor_input(v) else v for v in outputs]
    return ConcreteProgram(main, startup, inputs, out_template, outputs, capture.bindings, function)

"""The op registry: each op is defined once, with Paddle's op type, slots and attributes.

``@op(...)`` turns a kernel over torch tensors into an ``OpDef`` and generates its eager entry point: a
small function, compiled from source per op, that unwraps the input slots, calls the kernel and wraps the
outputs, so the hot path does no dict walking. In static mode the same entry point hands the call to the
static layer (``mode.STATE.static_append``), which appends an OpDesc instead.
"""
import inspect
import keyword

import numpy as np
import torch

from ..framework.place import current_torch_device
from ..framework.mode import ANY_STATIC as _ANY_STATIC, STATE as _MODE
from ..framework.tensor import InputTypeError, Tensor, _new
from . import paddle_op_protos as _protos

__all__ = ["op", "OpDef", "Slot", "REGISTRY", "REQUIRED", "get_op", "InputTypeError"]

REGISTRY = {}


class _AmpHooks:
    """Set by torchpaddle.amp while auto_cast is on, None otherwise. ``linear(x, weight, bias)``: Paddle runs
    nn.functional.linear as one white-listed op, not as its matmul and add."""
    __slots__ = ("linear",)


AMP = _AmpHooks()
AMP.linear = None
SPMD_RULES = {}   # spmd tag -> SpmdRule, registered with @spmd_rule (ops/defs/spmd/)
SPMD_OPS = {}     # op type -> spmd tag from the family tables of ops/defs/spmd/; wins over @op's coarser tag


class _Required:
    def __repr__(self):
        return "REQUIRED"


REQUIRED = _Required()


class Slot:
    """An input or output slot: ``"X"`` one tensor, ``"X[]"`` a list, ``"X?"`` optional, ``"X[]?"`` an
    optional list (a size given as a list of tensors, as reshape2's ShapeTensor)."""
    __slots__ = ("name", "is_list", "optional")

    def __init__(self, spec):
        self.is_list = spec.rstrip("?").endswith("[]")
        self.optional = spec.endswith("?")
        self.name = spec.rstrip("[]?")

    def __repr__(self):
        return self.name + ("[]" if self.is_list else "?" if self.optional else "")


class OpDef:
    """Everything known about one op type; ``eager`` is its generated entry point.

    The schema (type, slots, attribute names and defaults) is Paddle 3.3.1's OpProto, checked against the
    generated ``paddle_op_protos`` table by tests/test_op_schema.py, unless ``own`` gives the reason the op is
    torchpaddle's own (Paddle composes it from other ops, or dropped it): then Paddle cannot load a program
    holding it. ``grad_type`` is the op static backward appends for it (None: no gradient); ``spmd`` names the
    SPMD rule of the auto-parallel completion; ``pir`` holds the rows of ``static.pir_op_map`` that write and
    read it as a PIR op (filled in when ``torchpaddle.static`` is imported)."""

    def __init__(self, type, inputs, outputs, attrs, kernel, spmd, differentiable, doc, own=None, grad_type=None):
        self.type = type
        self.inputs = tuple(Slot(s) for s in inputs)
        self.outputs = tuple(Slot(s) for s in outputs)
        self.attrs = dict(attrs or {})
        self.kernel = kernel
        self.spmd = spmd
        self.differentiable = differentiable
        self.own = own
        self.grad_type = (grad_type or type + "_grad") if differentiable else None
        self.grad_kernel = None
        self.grad_uses = ()
        self.grad_needs = False
        self.infer_meta = None
        self.pir = ()
        self.doc = doc
        self._namespace = None
        self.eager = None

    @property
    def attr_types(self):
        """{attribute: Paddle's AttrType code} of the op's attributes in Paddle's OpProto ({} for an own op)."""
        entry = _protos.OPS.get(self.type)
        return dict(entry[0]) if entry else {}

    @property
    def pir_name(self):
        """The PIR op (``pd_op.*``) this op is written as in a `.json` program, or None."""
        written = [row.pir for row in self.pir if row.write]
        return written[0] if written else None

    def __repr__(self):
        return f"OpDef({self.type}, inputs={list(self.inputs)}, outputs={list(self.outputs)}, attrs={self.attrs})"

    def run(self, inputs, attrs):
        """Run the kernel on torch tensors given by slot name; returns {output slot: torch value}."""
        args = [inputs.get(s.name) for s in self.inputs]
        full = dict(self.attrs)
        full.update(attrs)
        out = self.call_kernel(*args, **full)
        if len(self.outputs) == 1:
            out = (out,)
        return {s.name: v for s, v in zip(self.outputs, out)}

    @property
    def call_kernel(self):
        return self._namespace["_k"]

    @call_kernel.setter
    def call_kernel(self, fn):
        # paddle.amp routes eager calls through its casts this way while auto_cast is on, so the eager
        # entry point itself does no AMP work
        self._namespace["_k"] = fn

    def grad(self, uses=(), autograd=True):
        """Register a hand-written gradient: fn(**used slots, <Out>_grad..., **attrs) -> {input slot: grad}.

        It is the kernel of the op's ``<type>_grad`` op when a program's grad ops run one by one
        (static/grad_ops.py); ``uses`` names the forward slots it reads (a missing <Out>_grad is None). With
        ``autograd=True`` eager calls and the fused static backward use it too: torch's gradient is wrong for
        the op, or not Paddle's. With ``autograd=False`` they keep torch's autograd (which agrees), and the
        function only spares the grad op a recompute of the forward; it may then return None to ask for that
        recompute after all. A parameter ``needs`` receives the input slots whose gradient is wanted."""
        def register(fn):
            self.grad_kernel = fn
            self.grad_uses = tuple(uses)
            self.grad_needs = "needs" in inspect.signature(fn).parameters
            if autograd:
                self._namespace["_k"] = _custom_grad_kernel(self)
            return fn
        return register

    def infer(self, fn):
        """Register the static shape inference for calls whose output shape the kernel cannot tell from meta
        tensors (sizes given as tensors): fn(*input Variables, **attrs) -> what ``static.append.infer_outputs``
        returns, or None to infer from the kernel as usual."""
        self.infer_meta = fn
        return fn

    @property
    def spmd_rule(self):
        """The SpmdRule of this op's ``spmd`` tag, or None: then every input is replicated (always correct)."""
        return SPMD_RULES.get(SPMD_OPS.get(self.type, self.spmd))




def _unwrap_slow(value, op_type, slot):
    if isinstance(value, Tensor):
        return value._t
    if isinstance(value, (bool, int, float, complex)):
        return value
    # NumPy and list operands go to the current device, as Paddle converts them (no-op on the CPU)
    if isinstance(value, np.ndarray):
        return torch.from_numpy(value).to(current_torch_device())
    if isinstance(value, torch.Tensor):
        return value
    if isinstance(value, (list, tuple)):
        try:
            return torch.as_tensor(np.asarray(value), device=current_torch_device())
        except (TypeError, ValueError):
            pass
    raise InputTypeError(f"{op_type}: input {slot} must be a Tensor, got {type(value).__name__}")


def _unwrap_list(values, op_type, slot):
    if isinstance(values, Tensor) or not isinstance(values, (list, tuple)):
        raise InputTypeError(f"{op_type}: input {slot} must be a list or tuple of Tensors, "
                             f"got {type(values).__name__}")
    out = []
    for v in values:
        try:
            out.append(v._t)
        except AttributeError:
            out.append(_unwrap_slow(v, op_type, slot))
    return out


def _wrap_seq(values):
    out = []
    for t in values:
        o = _new(Tensor)
        o._t = t
        o._name = None
        out.append(o)
    return out


def _make_eager(d):
    """Compile the eager entry point of ``d`` from source; attrs become keyword-only parameters."""
    params, unwrap, kernel_args = [], [], []
    # trailing optional inputs default to None, so that adding one to an op leaves its callers as they are
    required = max([i + 1 for i, s in enumerate(d.inputs) if not s.optional], default=0)
    for i, s in enumerate(d.inputs):
        name = s.name
        params.append(name if i < required else f"{name}=None")
        local = f"_a{i}"
        if s.is_list:
            line = f"    {local} = _ul({name}, _op, {name!r})"
        else:
            # isinstance, not try/except: a caught AttributeError (Python scalars) costs ~0.7us.
            line = f"    {local} = {name}._t if isinstance({name}, _T) else _us({name}, _op, {name!r})"
        if s.optional:
            line = f"    if {name} is None:\n        {local} = None\n    else:\n" + \
                   "\n".join("    " + ln for ln in line.splitlines())
        unwrap.append(line)
        kernel_args.append(local)
    attr_params = []
    namespace = {"_us": _unwrap_slow, "_ul": _unwrap_list, "_new": _new, "_T": Tensor, "_S": _MODE, "_A": _ANY_STATIC,
                 "_D": d, "_op": d.type, "_k": d.kernel, "_ws": _wrap_seq, "_defaults": {}}
    # an attribute named by a Python keyword (softshrink's ``lambda``) is the parameter ``lambda_``
    py_names = {key: key + "_" if keyword.iskeyword(key) else key for key in d.attrs}
    for key, default in d.attrs.items():
        py = py_names[key]
        if default is REQUIRED:
            attr_params.append(py)
        else:
            namespace["_defaults"][key] = default
            attr_params.append(f"{py}=_defaults[{key!r}]")
        kernel_args.append(f"{key}={py}" if py == key else f"**{{{key!r}: {py}}}")
    signature = ", ".join(params + (["*"] + attr_params if attr_params else []))
    static_inputs = "{" + ", ".join(f"{s.name!r}: {s.name}" for s in d.inputs) + "}"
    static_attrs = "{" + ", ".join(f"{k!r}: {py_names[k]}" for k in d.attrs) + "}"
    call = f"_k({', '.join(kernel_args)})"
    outs = d.outputs
    if len(outs) == 1 and not outs[0].is_list:
        ret = (f"    _r = {call}\n    if _r is None:\n        return None\n"
               "    o = _new(_T)\n    o._t = _r\n    o._name = None\n    return o")
    elif len(outs) == 1:
        ret = f"    return _ws({call})"
    else:
        ret = (f"    return tuple(_ws(v) if v.__class__ is list else (None if v is None else _ws((v,))[0]) "
               f"for v in {call})")
    pyname = d.type if d.type.isidentifier() and not keyword.iskeyword(d.type) else "_op_fn"
    source = (f"def {pyname}({signature}):\n"
              f"    if _A.on and _S.static:\n        return _S.static_append(_D, {static_inputs}, {static_attrs})\n"
              + "\n".join(unwrap) + ("\n" if unwrap else "") + ret + "\n")
    exec(compile(source, f"<op {d.type}>", "exec"), namespace)
    fn = namespace[pyname]
    fn.opdef = d
    fn.grad = d.grad
    fn.infer = d.infer
    fn.__doc__ = d.doc
    fn.__qualname__ = fn.__name__ = d.type
    d._namespace = namespace
    d.eager = fn
    return fn


def op(type, inputs=("X",), outputs=("Out",), attrs=None, spmd=None, differentiable=True, own=None, grad_type=None,
       shape=None):
    """Register a kernel as Paddle op ``type``; returns the op's eager entry point. ``own``: the reason an op
    type Paddle 3.3.1 does not have is registered; ``grad_type``: the gradient op when it is not
    ``<type>_grad``; ``shape``: a static shape rule, as ``infer`` registers."""
    if own is not None and not (isinstance(own, str) and own):
        raise TypeError(f"op {type!r}: own= must be a non-empty string giving the reason")

    def register(kernel):
        if type in REGISTRY:
            raise ValueError(f"op {type!r} is registered twice")
        d = OpDef(type, inputs, outputs, attrs, kernel, spmd, differentiable, kernel.__doc__, own, grad_type)
        d.infer_meta = shape
        REGISTRY[type] = d
        return _make_eager(d)
    return register


def get_op(type):
    try:
        return REGISTRY[type]
    except KeyError:
        raise ValueError(f"op type {type!r} is not registered in torchpaddle") from None


class SpmdRule:
    """How the dist attributes of an op's tensors propagate (Paddle's InferSpmd pair), shared by the ops whose
    ``spmd`` tag is ``name``.

    ``forward(inputs, attrs)``: ``inputs`` has one entry per input slot in slot order (a DistTensorSpec, a list
    of them for an ``X[]`` slot, None for an absent optional one), ``attrs`` the op's attributes with their
    defaults. Returns ``(inputs, outputs)``: per input slot the TensorDistAttr the input must be resharded to,
    per output slot the TensorDistAttr the output gets (lists and None as in ``inputs``).
    ``backward(inputs, outputs, attrs)``: the reverse inference (Paddle's ``infer_backward``): from the layouts
    wanted for the outputs (``outputs`` as ``inputs``, per output slot), the same pair. None if not written."""
    __slots__ = ("name", "forward", "backward")

    def __init__(self, name, forward, backward=None):
        self.name, self.forward, self.backward = name, forward, backward

    def __repr__(self):
        return f"SpmdRule({self.name!r})"


def spmd_rule(name, backward=None):
    """Register the decorated function as the forward rule of the ops tagged ``spmd=name`` (see SpmdRule)."""
    def register(forward):
        if name in SPMD_RULES:
            raise ValueError(f"spmd rule {name!r} is registered twice")
        SPMD_RULES[name] = SpmdRule(name, forward, backward)
        return forward
    return register


def _custom_grad_kernel(d):
    """Route the kernel through a torch.autograd.Function that calls the op's own gradient."""
    in_names = [s.name for s in d.inputs]
    out_names = [s.name for s in d.outputs]
    kernel = d.kernel

    class _Fn(torch.autograd.Function):
        @staticmethod
        def forward(ctx, attrs, *inputs):
            out = kernel(*inputs, **attrs)
            outs = out if isinstance(out, tuple) else (out,)
            saved = {}
            for use in d.grad_uses:
                if use in in_names:
                    saved[use] = inputs[in_names.index(use)]
                else:
                    saved[use] = outs[out_names.index(use)]
            ctx.names = list(saved)
            ctx.save_for_backward(*saved.values())
            ctx.attrs = attrs
            ctx.needs = [isinstance(x, torch.Tensor) and x.requires_grad for x in inputs]
            return out

        @staticmethod
        def backward(ctx, *grads):
            kwargs = dict(zip(ctx.names, ctx.saved_tensors))
            for name, g in zip(out_names, grads):
                kwargs[name + "_grad"] = g
            if d.grad_needs:
                kwargs["needs"] = tuple(n for n, need in zip(in_names, ctx.needs) if need)
            result = d.grad_kernel(**kwargs, **ctx.attrs)
            return (None,) + tuple(result.get(n) if need else None for n, need in zip(in_names, ctx.needs))

    def call(*inputs, **attrs):
        if torch.is_grad_enabled() and any(isinstance(x, torch.Tensor) and x.requires_grad for x in inputs):
            return _Fn.apply(attrs, *inputs)
        return kernel(*inputs, **attrs)
    return call

"""Distributed attributes of the static IR: how a Variable is laid out over a ProcessMesh, and how an Operator runs.

``TensorDistAttr`` (Paddle's ``core.TensorDistAttr``): the process mesh, a dims mapping (tensor dim -> the mesh
dim that shards it, or -1) and the partial status (mesh dim -> the reduction still owed, ``ReduceType``).
``OperatorDistAttr``: the op's mesh plus one TensorDistAttr per input and output argument name. Both are
checked when set (rank, mesh dims, no mesh dim used twice, a partial dim never also sharding) and raise a
ValueError naming what is wrong, where Paddle accepts anything and reports ``verify() == False`` later (or
crashes). A Variable's attribute lives on the Variable (``Variable.dist_attr``), an op's on the Operator; both
survive ``Program.clone`` and print with the program. Paddle's legacy ProgramDesc has no field for them
(VarDesc/OpDesc in framework.proto), so ``.pdmodel`` files do not carry them, there as here.

Not modelled: co-sharding one tensor dim over several mesh dims (``multi_dims_mapping``), ``split_factor``.
"""
import enum

from .process_mesh import ProcessMesh

__all__ = ["ReduceType", "TensorDistAttr", "OperatorDistAttr", "DistTensorSpec"]


class ReduceType(enum.IntEnum):
    """The reduction a partial tensor still owes over a mesh dim (Paddle's ``core.ReduceType``)."""
    kRedSum = 0
    kRedMax = 1
    kRedMin = 2
    kRedProd = 3
    kRedAvg = 4
    kRedAny = 5
    kRedAll = 6

    def __str__(self):
        return f"ReduceType.{self.name}"


_REDUCE_NAMES = {ReduceType.kRedSum: "SUM", ReduceType.kRedMax: "MAX", ReduceType.kRedMin: "MIN",
                 ReduceType.kRedProd: "PRODUCT", ReduceType.kRedAvg: "AVG", ReduceType.kRedAny: "ANY",
                 ReduceType.kRedAll: "ALL"}
_EMPTY_MESH = ProcessMesh._empty()


def _int_list(value, what):
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, int) and not isinstance(v, bool)
                                                       for v in value):
        raise TypeError(f"{what} must be a list of ints, got {value!r}")
    return [int(v) for v in value]


def _int_property(slot):
    """A property stored in ``slot`` that takes anything int() takes (Paddle's dist attrs hold C++ ints)."""
    return property(lambda self: getattr(self, slot), lambda self, value: setattr(self, slot, int(value)))


class TensorDistAttr:
    """``TensorDistAttr()``, ``TensorDistAttr(variable)`` (dims mapping all -1, checked against its rank) or
    ``TensorDistAttr(other)`` (a copy)."""

    def __init__(self, source=None):
        self._owner = None   # the Variable whose rank and name the checks use
        self.reset()
        if isinstance(source, TensorDistAttr):
            self._assign(source)
        elif source is not None:
            if not hasattr(source, "desc_shape"):
                raise TypeError(f"TensorDistAttr: expected a Variable or a TensorDistAttr, got "
                                f"{type(source).__name__}")
            self._owner = source

    def reset(self):
        self._mesh = _EMPTY_MESH
        self._dims_mapping = None   # None: replicated, as long as the owner's rank
        self._partial = {}
        self._batch_dim = 0
        self._chunk_id = 0
        self._dynamic_dims = None
        self._annotated = {}

    def _assign(self, other):
        self._mesh = other._mesh
        self._dims_mapping = None if other._dims_mapping is None else list(other._dims_mapping)
        self._partial = dict(other._partial)
        self._batch_dim, self._chunk_id = other._batch_dim, other._chunk_id
        self._dynamic_dims = None if other._dynamic_dims is None else list(other._dynamic_dims)
        self._annotated = dict(other._annotated)

    def _copy(self, owner=None):
        """A copy bound to ``owner`` (checked against its rank), or unbound."""
        new = TensorDistAttr(self)
        if owner is not None:
            new._owner = owner
            new._check(new._dims_mapping, new._mesh, new._partial)
        return new

    __copy__ = _copy

    def __deepcopy__(self, memo):
        return self._copy()

    # -- checks ----------------------------------------------------------------------------------------
    def _where(self):
        return f"TensorDistAttr of {self._owner.name}" if self._owner is not None else "TensorDistAttr"

    def _rank(self):
        return None if self._owner is None else len(self._owner.desc_shape)

    def _check(self, dims_mapping, mesh, partial, rank=None):
        """Raise ValueError if this combination is not a valid layout."""
        where = self._where()
        rank = self._rank() if rank is None else rank
        ndim = None if mesh.empty() else mesh.ndim
        for d in partial:
            if ndim is not None and not 0 <= d < ndim:
                raise ValueError(f"{where}: partial mesh dim {d} is not a dimension of the {ndim}-D process mesh")
        if dims_mapping is None:
            return
        if rank is not None and len(dims_mapping) != rank:
            raise ValueError(f"{where}: dims_mapping {dims_mapping} has {len(dims_mapping)} entries, the tensor "
                             f"has rank {rank}")
        used = {}
        for i, d in enumerate(dims_mapping):
            if d < -1 or (ndim is not None and d >= ndim):
                bound = f"0..{ndim - 1}" if ndim is not None else "a mesh dim (>= 0)"
                raise ValueError(f"{where}: dims_mapping[{i}] = {d} must be -1 or {bound}")
            if d < 0:
                continue
            if d in used:
                raise ValueError(f"{where}: mesh dim {d} shards both tensor dims {used[d]} and {i} of dims_mapping "
                                 f"{dims_mapping}")
            if d in partial:
                raise ValueError(f"{where}: mesh dim {d} is partial, so it cannot also shard tensor dim {i} "
                                 f"(dims_mapping {dims_mapping})")
            used[d] = i

    def verify(self, tensor=None):
        """Whether the layout is valid (for ``tensor``'s rank when given)."""
        if self._mesh.empty() and (self._partial or any(d >= 0 for d in self.dims_mapping)):
            return False   # sharded or partial over no mesh
        try:
            rank = None if tensor is None else len(tensor.desc_shape)
            self._check(self.dims_mapping, self._mesh, self._partial, rank)
        except ValueError:
            return False
        return True

    # -- fields ----------------------------------------------------------------------------------------
    @property
    def process_mesh(self):
        """The ProcessMesh, or None while there is none (as Paddle)."""
        return None if self._mesh.empty() else self._mesh

    @process_mesh.setter
    def process_mesh(self, mesh):
        mesh = _EMPTY_MESH if mesh is None else mesh
        if not isinstance(mesh, ProcessMesh):
            raise TypeError(f"{self._where()}: process_mesh must be a ProcessMesh, got {type(mesh).__name__}")
        self._check(self._dims_mapping, mesh, self._partial)
        self._mesh = mesh

    @property
    def dims_mapping(self):
        if self._dims_mapping is None:
            return [-1] * (self._rank() or 0)
        return list(self._dims_mapping)

    @dims_mapping.setter
    def dims_mapping(self, value):
        value = _int_list(value, f"{self._where()}: dims_mapping")
        self._check(value, self._mesh, self._partial)
        self._dims_mapping = value

    batch_dim = _int_property("_batch_dim")
    chunk_id = _int_property("_chunk_id")

    @property
    def dynamic_dims(self):
        if self._dynamic_dims is None:
            return [False] * len(self.dims_mapping)
        return list(self._dynamic_dims)

    @dynamic_dims.setter
    def dynamic_dims(self, value):
        self._dynamic_dims = [bool(v) for v in value]

    # -- partial status --------------------------------------------------------------------------------
    def _set_partial_dims(self, dims, reduce_type=ReduceType.kRedSum):
        """Mark mesh dims partial with ``reduce_type`` (Paddle's Python API sets SUM only)."""
        dims = _int_list(list(dims), f"{self._where()}: partial dims")
        reduce_type = ReduceType(reduce_type)
        partial = dict(self._partial)
        partial.update((d, reduce_type) for d in dims)
        self._check(self._dims_mapping, self._mesh, partial)
        self._partial = partial

    def _partial_dims(self):
        return set(self._partial)

    def _partial_status(self):
        """{mesh dim: ReduceType} of the partial dims."""
        return dict(self._partial)

    def _is_partial(self):
        return bool(self._partial)

    def _clean_partial_dims(self, dims):
        for d in dims:
            self._partial.pop(d, None)

    def _clean_partial_status(self):
        self._partial = {}

    # -- annotation (which fields a user fixed, as opposed to ones completion may change) -------------------
    @property
    def annotated(self):
        return dict(self._annotated)

    def is_annotated(self, name):
        return self._annotated.get(name, False)

    def mark_annotated(self, name):
        self._annotated[name] = True

    def clear_annotated(self):
        self._annotated = {}

    def is_replicated(self):
        return all(d == -1 for d in self.dims_mapping) and not self._partial

    # -- comparison and printing -------------------------------------------------------------------------
    def __eq__(self, other):
        if not isinstance(other, TensorDistAttr):
            return NotImplemented
        return (self._mesh == other._mesh and self.dims_mapping == other.dims_mapping
                and self._partial == other._partial and self._batch_dim == other._batch_dim
                and self._chunk_id == other._chunk_id)

    __hash__ = None

    def _partial_text(self):
        return "".join(f"Partial(dims:{d}, {_REDUCE_NAMES[t]}), " for d, t in sorted(self._partial.items()))

    def __str__(self):
        dims = "".join(f"[{d}] " if d >= 0 else "[] " for d in self.dims_mapping)
        dynamic = ",".join(str(int(v)) for v in self.dynamic_dims)
        annotated = ",".join(f"{k}: {int(v)}" for k, v in sorted(self._annotated.items()))
        return (f"{{process_mesh: {self._mesh._ir_str()}, dim_mappings: [{dims}], batch_dim: {self._batch_dim}, "
                f"chunk_id: {self._chunk_id}, skip_check_mesh: 0, dynamic_dims: [{dynamic}], "
                f"annotated: [{annotated}], partial: [{self._partial_text()}], split_factor: .}}")

    __repr__ = __str__

    def _program_text(self, var):
        """What ``print(program)`` appends to a Variable, as Paddle prints a DistributedTensor (less its
        internal desc ids)."""
        mesh_note = "annotated" if self.is_annotated("process_mesh") else "non-annotated"
        dims_note = "annotated" if self.is_annotated("dims_mapping") else "non-annotated"
        text = (f"{{tensor name: {var.name}, process_mesh ({mesh_note}): {self._mesh._ir_str()}, "
                f"is_parameter: {_is_parameter(var)}, chunk_id: {self._chunk_id}, "
                f"dims_mapping ({dims_note}): {self.dims_mapping}")
        if self._partial:   # NOTE: Paddle prints partial dims on op arguments only; shown here too
            text += f", partial on dims: {sorted(self._partial)}"
        if getattr(var, "_global_shape", None) is not None:   # a per-rank program's variable: its local shape
            text += f", global shape: {list(var._global_shape)}"
        return text + " }"


def _is_parameter(var):
    from .program import StaticParameter   # program.py imports this module
    return isinstance(var, StaticParameter)


class OperatorDistAttr:
    """``OperatorDistAttr()``, ``OperatorDistAttr(operator)`` (an entry per argument, replicated) or
    ``OperatorDistAttr(other)`` (a copy)."""

    def __init__(self, source=None):
        self._op = None
        self.reset()
        if isinstance(source, OperatorDistAttr):
            self._assign(source)
        elif source is not None:
            if not hasattr(source, "input_arg_names"):
                raise TypeError(f"OperatorDistAttr: expected an Operator or an OperatorDistAttr, got "
                                f"{type(source).__name__}")
            self._op = source
            for name in source.input_arg_names:
                self._inputs.setdefault(name, TensorDistAttr(self._var(name)))
            for name in source.output_arg_names:
                self._outputs.setdefault(name, TensorDistAttr(self._var(name)))

    def reset(self):
        self._mesh = _EMPTY_MESH
        self._inputs, self._outputs = {}, {}
        self._op_type = ""
        self.impl_type = "default"
        self.impl_idx = 0
        self._chunk_id = 0
        self.execution_stream = "default"
        self.stream_priority = 0
        self.scheduling_priority = 0
        self.is_recompute = False
        self._annotated = {}

    def _assign(self, other):
        self._mesh = other._mesh
        self._op_type = other.op_type
        for key in ("impl_type", "impl_idx", "_chunk_id", "execution_stream", "stream_priority",
                    "scheduling_priority", "is_recompute"):
            setattr(self, key, getattr(other, key))
        self._annotated = dict(other._annotated)
        self._inputs = {n: a._copy() for n, a in other._inputs.items()}
        self._outputs = {n: a._copy() for n, a in other._outputs.items()}

    def _copy(self, op=None):
        """A copy bound to ``op`` (each argument checked against its variable there), or unbound."""
        new = OperatorDistAttr(self)
        if op is not None:
            new._op = op
            new._inputs = {n: a._copy(new._var(n)) for n, a in self._inputs.items()}
            new._outputs = {n: a._copy(new._var(n)) for n, a in self._outputs.items()}
        return new

    __copy__ = _copy

    def __deepcopy__(self, memo):
        return self._copy()

    def _var(self, name):
        return None if self._op is None else self._op.block._find_var_recursive(name)

    def _where(self):
        return f"OperatorDistAttr of {self.op_type or 'an op'}"

    # -- fields ----------------------------------------------------------------------------------------
    @property
    def op_type(self):
        return self._op.type if self._op is not None else self._op_type

    @property
    def process_mesh(self):
        """The ProcessMesh, or None while there is none (as Paddle)."""
        return None if self._mesh.empty() else self._mesh

    @process_mesh.setter
    def process_mesh(self, mesh):
        """Sets the mesh of the op and of every argument, as Paddle does."""
        mesh = _EMPTY_MESH if mesh is None else mesh
        if not isinstance(mesh, ProcessMesh):
            raise TypeError(f"{self._where()}: process_mesh must be a ProcessMesh, got {type(mesh).__name__}")
        attrs = list(self._inputs.values()) + list(self._outputs.values())
        for attr in attrs:   # check all before changing any
            attr._check(attr._dims_mapping, mesh, attr._partial)
        for attr in attrs:
            attr._mesh = mesh
        self._mesh = mesh

    chunk_id = _int_property("_chunk_id")

    @property
    def inputs_dist_attrs(self):
        return dict(self._inputs)

    @property
    def outputs_dist_attrs(self):
        return dict(self._outputs)

    # -- per argument ----------------------------------------------------------------------------------
    def _table(self, kind):
        return self._inputs if kind == "input" else self._outputs

    def _get(self, kind, name):
        try:
            return self._table(kind)[name]
        except KeyError:
            raise IndexError(f"{self._where()}: no dist attr for {kind} {name!r}; it has "
                             f"{sorted(self._table(kind))}") from None

    def _slot_names(self, kind):
        return self._op.input_arg_names if kind == "input" else self._op.output_arg_names

    def _set(self, kind, name, attr):
        if not isinstance(attr, TensorDistAttr):
            raise TypeError(f"{self._where()}: the dist attr of {kind} {name!r} must be a TensorDistAttr, got "
                            f"{type(attr).__name__}")
        if self._op is not None and name not in self._slot_names(kind):
            raise ValueError(f"{self._where()}: {name!r} is not an {kind} of the op; its {kind}s are "
                             f"{self._slot_names(kind)}")
        self._table(kind)[name] = attr._copy(self._var(name))

    def _set_dims(self, kind, name, dims_mapping):
        table = self._table(kind)
        if name not in table:
            attr = TensorDistAttr()
            attr._mesh = self._mesh
            self._set(kind, name, attr)
        table[name].dims_mapping = dims_mapping

    def get_input_dist_attr(self, name):
        return self._get("input", name)

    def get_output_dist_attr(self, name):
        return self._get("output", name)

    def set_input_dist_attr(self, name, attr):
        self._set("input", name, attr)

    def set_output_dist_attr(self, name, attr):
        self._set("output", name, attr)

    def get_input_dims_mapping(self, name):
        return self._get("input", name).dims_mapping

    def get_output_dims_mapping(self, name):
        return self._get("output", name).dims_mapping

    def set_input_dims_mapping(self, name, dims_mapping):
        self._set_dims("input", name, dims_mapping)

    def set_output_dims_mapping(self, name, dims_mapping):
        self._set_dims("output", name, dims_mapping)

    def del_input_dist_attr(self, name):
        self._inputs.pop(name, None)

    def del_output_dist_attr(self, name):
        self._outputs.pop(name, None)

    def rename_input(self, old, new):
        if old in self._inputs:
            self._inputs[new] = self._inputs.pop(old)

    def rename_output(self, old, new):
        if old in self._outputs:
            self._outputs[new] = self._outputs.pop(old)

    def is_annotated_input_dims_mapping(self, name):
        return self._get("input", name).is_annotated("dims_mapping")

    def is_annotated_output_dims_mapping(self, name):
        return self._get("output", name).is_annotated("dims_mapping")

    # -- annotation, checks, printing ---------------------------------------------------------------------
    @property
    def annotated(self):
        return dict(self._annotated)

    def is_annotated(self, name):
        return self._annotated.get(name, False)

    def mark_annotated(self, name):
        self._annotated[name] = True

    def clear_annotated(self):
        self._annotated = {}

    def verify(self, op=None):
        """Whether every argument of ``op`` (default: the bound op) has a valid attribute on the op's mesh."""
        op = op if op is not None else self._op
        if op is not None:
            names = [("input", n) for n in op.input_arg_names] + [("output", n) for n in op.output_arg_names]
            if any(n not in self._table(kind) for kind, n in names):
                return False
        for table in (self._inputs, self._outputs):
            for attr in table.values():
                if not attr.verify() or (not self._mesh.empty() and attr._mesh != self._mesh):
                    return False
        return True

    def __eq__(self, other):
        if not isinstance(other, OperatorDistAttr):
            return NotImplemented
        return (self._mesh == other._mesh and self._inputs == other._inputs and self._outputs == other._outputs
                and self.impl_type == other.impl_type and self.impl_idx == other.impl_idx
                and self._chunk_id == other._chunk_id)

    __hash__ = None

    def __str__(self):
        def table(attrs):
            if not attrs:
                return "]"
            return "[\n" + ",\n".join(f"  {n}: {a}" for n, a in sorted(attrs.items())) + "]"
        annotated = ",".join(f"{k}: {int(v)}" for k, v in sorted(self._annotated.items()))
        return (f"{{impl_type: {self.impl_type}, impl_idx: {self.impl_idx}, chunk_id: {self._chunk_id}, "
                f"execution_stream: {self.execution_stream}, stream_priority: {self.stream_priority}, "
                f"scheduling_priority: {self.scheduling_priority}, annotated: [{annotated}], \n"
                f"process_mesh: {self._mesh._ir_str()}, \ninput_dist_attrs: {table(self._inputs)}\n"
                f"output_dist_attrs: {table(self._outputs)}}}")

    __repr__ = __str__

    def _program_text(self, op):
        """What ``print(program)`` appends to an op, as Paddle prints a DistributedOperator (less desc ids)."""
        note = "annotated" if self.is_annotated("process_mesh") else "non-annotated"
        text = f"{{op type: {op.type}, process_mesh ({note}): {self._mesh._ir_str()} , " \
               f"execution_stream: {self.execution_stream}"
        for kind, names in (("input", op.input_arg_names), ("output", op.output_arg_names)):
            for name in names:
                attr = self._table(kind).get(name)
                if attr is None:
                    continue
                var = op.block._find_var_recursive(name)
                param = "parameter" if var is not None and _is_parameter(var) else "non-parameter"
                dims_note = "annotated" if attr.is_annotated("dims_mapping") else "non-annotated"
                text += (f"; {name}'s dims_mapping ({kind}, {dims_note}, {param}): {attr.dims_mapping}, "
                         f"partial on dims: {sorted(attr._partial)}")
        return text + f", dist_impl idx: {self.impl_idx} , dist_impl type: {self.impl_type}, " \
                      f"chunk_id: {self._chunk_id} }}"


class DistTensorSpec:
    """A global shape with a TensorDistAttr: what an SPMD rule reads (Paddle's ``DistTensorSpec``)."""
    __slots__ = ("shape", "dist_attr")

    def __init__(self, shape, dist_attr):
        if not isinstance(dist_attr, TensorDistAttr):
            raise TypeError(f"DistTensorSpec: dist_attr must be a TensorDistAttr, got {type(dist_attr).__name__}")
        self.shape = _int_list(list(shape), "DistTensorSpec: shape")
        dims = dist_attr.dims_mapping if dist_attr._dims_mapping is not None else [-1] * len(self.shape)
        self.dist_attr = dist_attr._copy()
        self.dist_attr._check(dims, dist_attr._mesh, dist_attr._partial, rank=len(self.shape))
        self.dist_attr._dims_mapping = dims

    @property
    def dims_mapping(self):
        return self.dist_attr.dims_mapping

    def set_dims_mapping(self, dims_mapping):
        self.dist_attr.dims_mapping = dims_mapping

    @property
    def process_mesh(self):
        return self.dist_attr.process_mesh

    def set_process_mesh(self, mesh):
        self.dist_attr.process_mesh = mesh

    def __repr__(self):
        return f"DistTensorSpec(shape={self.shape}, dims_mapping={self.dims_mapping}, " \
               f"process_mesh={self.dist_attr._mesh._ir_str()})"

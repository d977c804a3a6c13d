"""What fluid.layers' functions share: fluid's variable naming (``<layer>.tmp_N``), argument checks, and the
errors of the names that come later."""
import contextlib
import itertools
import numbers

from ...framework.mode import STATE as _MODE
from ...framework.program import default_main_program
from ...framework.tensor import Tensor
from ...ops.registry import REGISTRY
from ...static.nn.common import layer_name
from ...utils import unique_name

_PLACEHOLDER = "@fluid_tmp@"
_SERIAL = itertools.count()   # placeholders are unique across nested scopes


class _OutputsUnder(unique_name._Generator):
    """Names op outputs with placeholders (so that the ops' own counters are untouched, as in fluid, where only
    layers take names); everything else (parameters, layer names) is named by the enclosing generator."""

    def __init__(self, outer):
        super().__init__(outer.prefix)
        self.counters = outer.counters
        self._outer = outer
        self.hidden = set()
        self.made = []      # the op names handed out; their outputs are <op name>.tmp_0, .tmp_1 ...

    def __call__(self, key):
        if key in REGISTRY:
            name = f"{_PLACEHOLDER}{next(_SERIAL)}"
            self.made.append(name)
            return name
        return self._outer(key)

    def outputs_in(self, block):
        made = set(self.made)
        return [n for n in block.vars if n.startswith(_PLACEHOLDER) and n.rsplit(".tmp_", 1)[0] in made]


@contextlib.contextmanager
def tmp_names(prefix):
    """Within, the outputs of the ops appended are named ``<prefix>.tmp_N`` in order, as fluid's LayerHelper
    named the variables a layer made. No-op in dygraph mode."""
    if not _MODE.static:
        yield
        return
    outer = unique_name._CURRENT[0]
    inner = _OutputsUnder(outer)
    unique_name._CURRENT[0] = inner
    try:
        yield
    finally:
        unique_name._CURRENT[0] = outer
        program = default_main_program()
        for i in range(program.num_blocks):
            block = program.block(i)
            pending = []
            for name in inner.outputs_in(block):
                if name in inner.hidden:
                    pending.append(name)
                    continue
                visible = outer(f"{prefix}.tmp")
                block._rename_var(name, visible)
                for k, hidden in enumerate(pending):
                    block._rename_var(hidden, f"{visible}@INNER{k}")
                pending = []
            for k, hidden in enumerate(pending):
                block._rename_var(hidden, f"{prefix}@INNER{k}")


def hide(var):
    """Marks an intermediate that fluid's single op did not have (torchpaddle composes it): inside tmp_names it
    is named ``<the next output>@INNER<k>`` rather than taking a ``.tmp_N`` number of its own."""
    generator = unique_name._CURRENT[0]
    if _MODE.static and isinstance(generator, _OutputsUnder):
        generator.hidden.add(var.name)
    return var


def layer_prefix(api, name=None):
    """The name of a fluid layer without parameters (``<api>_N``, counted with the op of that type)."""
    return name if name is not None else unique_name.generate(api)


def param_layer_prefix(api, name=None):
    """The name of a fluid layer with parameters (``fc_0``), as static.nn names it."""
    return layer_name(api, name)


def check_variable(x, api, what="input"):
    if not isinstance(x, Tensor):
        raise TypeError(f"{api}: {what} must be a Variable, got {type(x).__name__}")


def check_dtype(x, api, what, dtypes):
    check_variable(x, api, what)
    if x.dtype.name not in dtypes:
        raise TypeError(f"{api}: {what} must be one of {list(dtypes)}, got {x.dtype.name}")


def int_list(value, api, what):
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return [int(value)]
    if isinstance(value, (list, tuple)) and all(isinstance(v, numbers.Integral) and not isinstance(v, bool)
                                                 for v in value):
        return [int(v) for v in value]
    raise TypeError(f"{api}: {what} must be an int or a list/tuple of ints, got {value!r}")


def needs_lod(api):
    """A name of the LoD/sequence half that is not implemented: it resolves, and says so when called."""
    def call(*args, **kwargs):
        raise NotImplementedError(f"fluid.layers.{api} works on LoD tensors; torchpaddle's LoD support does not "
                                  "cover it yet")
    call.__name__ = call.__qualname__ = api
    call.__doc__ = f"fluid.layers.{api}: not covered by torchpaddle's LoD support yet."
    return call


def not_yet(api, why="not supported yet"):
    """A fluid name torchpaddle does not implement yet: it resolves and raises a clear error when called."""
    def call(*args, **kwargs):
        raise NotImplementedError(f"fluid.layers.{api} is {why} in torchpaddle")
    call.__name__ = call.__qualname__ = api
    call.__doc__ = f"fluid.layers.{api}: {why}."
    return call


def in_static():
    return _MODE.static

"""paddle.create_parameter / paddle.static.create_parameter (also paddle.static.nn's): a parameter built on
the nn layers' parameter factory, so it sits with the static-graph front ends."""
from ...nn.layer.layers import create_parameter_for
from ...utils import unique_name

__all__ = ["create_parameter"]


def create_parameter(shape, dtype, name=None, attr=None, is_bias=False, default_initializer=None):
    """A Parameter of the main program, initialized in the startup program (also works in dygraph)."""
    # NOTE: Paddle's helper takes the next create_parameter_N whenever name is None, even when attr names the
    # parameter, so later unnamed parameters are numbered past it.
    prefix = unique_name.generate("create_parameter") if name is None else None
    return create_parameter_for(shape, dtype, name, attr, is_bias, default_initializer, "create_parameter",
                                name_prefix=prefix)

"""fluid.dygraph.Layer: the base class of fluid dygraph layers is torchpaddle.nn.Layer (same name scopes,
``full_name()``, ``create_parameter``, ``state_dict``/``set_dict``/``load_dict``)."""
from ...nn import Layer

__all__ = ["Layer"]

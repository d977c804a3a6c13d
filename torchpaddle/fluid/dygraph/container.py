"""fluid.dygraph's containers: torchpaddle.nn's Sequential, LayerList and ParameterList."""
from ...nn import LayerList, ParameterList, Sequential

__all__ = ["Sequential", "LayerList", "ParameterList"]

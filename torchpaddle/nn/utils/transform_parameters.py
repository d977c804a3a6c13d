"""parameters_to_vector / vector_to_parameters."""
import math

import torch

from ...framework.tensor import PaddleAssertionError, Tensor, wrap

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters, name=None):
    """The parameters flattened and concatenated into one new 1-D tensor (a leaf with stop_gradient=False)."""
    parameters = list(parameters)
    if not parameters:
        raise ValueError("parameters_to_vector: parameters must not be empty")
    for i, p in enumerate(parameters):
        if not isinstance(p, Tensor):
            raise TypeError(f"parameters_to_vector: parameters[{i}] must be a Tensor, got {type(p).__name__}")
    dtype = parameters[0]._t.dtype
    with torch.no_grad():
        out = torch.cat([p._t.detach().reshape(-1).to(dtype) for p in parameters])
    result = wrap(out)
    result.stop_gradient = False
    return result


def vector_to_parameters(vec, parameters, name=None):
    """Copy consecutive slices of the 1-D ``vec`` into the parameters (in place; extra elements are ignored)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"vector_to_parameters: vec must be a Tensor, got {type(vec).__name__}")
    if vec.ndim != 1:
        raise PaddleAssertionError(f"vector_to_parameters: vec must be 1-D, got shape {list(vec.shape)}")
    parameters = list(parameters)
    total = sum(math.prod(p.shape) for p in parameters)
    if total > vec.shape[0]:
        raise ValueError(f"vector_to_parameters: vec has {vec.shape[0]} elements but the parameters need {total}")
    offset = 0
    with torch.no_grad():
        for p in parameters:
            n = math.prod(p.shape)
            p._t.copy_(vec._t[offset:offset + n].reshape(p._t.shape))
            offset += n

"""``shard_layer``: make a layer's parameters and buffers dist tensors on a process mesh.

As Paddle: ``shard_fn(name, sublayer, mesh)`` runs for every sublayer (the layer itself first, named ""), then
every parameter and buffer not yet dist is replicated on the mesh; ``input_fn(inputs, mesh)`` and
``output_fn(outputs, mesh)`` become forward pre/post hooks.
"""
from ...framework.mode import in_dynamic_mode
from ...framework.process_mesh import ProcessMesh
from ...framework.tensor import Tensor
from ...nn import Layer
from .api import is_dist_tensor, shard_tensor
from .placement import Replicate

__all__ = ["shard_layer"]


def _replicate_rest(layer, mesh):
    replicated = [Replicate()] * mesh.ndim
    for sub in [layer] + [s for _, s in layer.named_sublayers()]:
        for key, param in list(sub._parameters.items()):
            if param is not None and not is_dist_tensor(param):
                setattr(sub, key, shard_tensor(param, mesh, replicated))
        for key, buffer in list(sub._buffers.items()):
            if isinstance(buffer, Tensor) and not is_dist_tensor(buffer):
                sub._buffers[key] = shard_tensor(buffer, mesh, replicated)


def _pre_hook(input_fn, mesh):
    def hook(layer, inputs):
        out = input_fn(inputs, mesh)
        # NOTE: Paddle's pre-hooks replace the inputs only with a tuple; a list is taken as one argument
        return out if isinstance(out, tuple) or out is None else (out,)
    return hook


def _post_hook(output_fn, mesh):
    def hook(layer, inputs, outputs):
        return output_fn(outputs, mesh)
    return hook


def shard_layer(layer, process_mesh, shard_fn=None, input_fn=None, output_fn=None):
    """Shard ``layer`` in place on ``process_mesh`` and return it."""
    if not in_dynamic_mode():
        raise NotImplementedError("shard_layer only supports dynamic graph mode; call paddle.disable_static() "
                                  "first")
    if process_mesh is None or not isinstance(process_mesh, ProcessMesh):
        raise ValueError(f"shard_layer: process_mesh must be a paddle.distributed.ProcessMesh, got "
                         f"{type(process_mesh).__name__}")
    if not isinstance(layer, Layer):
        raise TypeError(f"shard_layer: layer must be a paddle.nn.Layer, got {type(layer).__name__}")
    for name, fn in (("shard_fn", shard_fn), ("input_fn", input_fn), ("output_fn", output_fn)):
        if fn is not None and not callable(fn):
            raise TypeError(f"shard_layer: {name} must be callable, got {type(fn).__name__}")
    if shard_fn is not None:
        for name, sub in layer.named_sublayers(include_self=True):
            shard_fn(name, sub, process_mesh)
    _replicate_rest(layer, process_mesh)
    if input_fn is not None:
        layer.register_forward_pre_hook(_pre_hook(input_fn, process_mesh))
    if output_fn is not None:
        layer.register_forward_post_hook(_post_hook(output_fn, process_mesh))
    return layer

"""``paddle.onnx.export``: a Layer to an ``.onnx`` file through torch.onnx (its TorchScript exporter, which needs
the ``onnx`` package; Paddle's needs ``paddle2onnx``)."""
import contextlib
import importlib.util
import os
import warnings

import torch

from ..framework import dtype as _dtype
from ..framework.tensor import Tensor, wrap
from ..nn import Layer
from ..static.input import InputSpec

__all__ = ["export"]

# options of paddle.jit.save / paddle2onnx that do not change the exported graph here
_IGNORED = {"enable_onnx_checker", "verbose", "auto_update_opset", "combined", "export_fp16_model",
            "deploy_backend", "calibration_file"}


class _TorchModule(torch.nn.Module):
    """The layer as a torch module: torch tensors in, the layer's forward on paddle Tensors, torch tensors out.
    Inside ``with module.holding_parameters():`` the layer's parameters are this module's torch Parameters (the
    tracer refuses tensors that require grad unless they are), so they become named ONNX initializers."""

    def __init__(self, layer):
        super().__init__()
        self.layer = layer

    @contextlib.contextmanager
    def holding_parameters(self):
        params = list(self.layer.named_parameters())
        old = [p._t for _, p in params]
        try:
            for name, p in params:
                held = torch.nn.Parameter(p._t.detach(), requires_grad=p._t.requires_grad)
                self.register_parameter(name.replace(".", "_"), held)
                p._t = held
            yield self
        finally:
            for (name, p), t in zip(params, old):
                p._t = t
                self._parameters.pop(name.replace(".", "_"), None)

    def forward(self, *args):
        out = self.layer(*[wrap(a) for a in args])
        return _to_torch(out)


def _to_torch(out):
    if isinstance(out, Tensor):
        return out._t
    if isinstance(out, (list, tuple)):
        return tuple(_to_torch(o) for o in out)
    if isinstance(out, dict):
        return {k: _to_torch(v) for k, v in out.items()}
    raise TypeError(f"paddle.onnx.export: the layer's forward must return Tensors (or lists, tuples, dicts of "
                    f"them), got {type(out).__name__}")


def example_inputs(input_spec):
    """(torch example tensors, input names, dynamic axes) for ``input_spec``: an unknown dim (None or -1) is
    1 in the example and a dynamic axis in the file."""
    if not isinstance(input_spec, (list, tuple)) or not input_spec:
        raise ValueError("paddle.onnx.export: input_spec must be a non-empty list of InputSpec or Tensor (the "
                         "layer is traced on them)")
    tensors, names, dynamic = [], [], {}
    for k, spec in enumerate(input_spec):
        if isinstance(spec, Tensor):
            t, name, dims = spec._t.detach(), spec.name or f"x{k}", []
        elif isinstance(spec, InputSpec):
            shape = [1 if d is None or d < 0 else int(d) for d in spec.shape]
            dims = [i for i, d in enumerate(spec.shape) if d is None or d < 0]
            torch_dtype = _dtype.to_torch_dtype(spec.dtype)
            t = torch.ones(shape, dtype=torch_dtype) if torch_dtype.is_floating_point or torch_dtype == torch.bool \
                else torch.zeros(shape, dtype=torch_dtype)
            name = spec.name or f"x{k}"
        else:
            raise TypeError(f"paddle.onnx.export: input_spec[{k}] must be an InputSpec or a Tensor, got "
                            f"{type(spec).__name__}")
        if name in names:
            raise ValueError(f"paddle.onnx.export: two inputs are named {name!r}")
        tensors.append(t)
        names.append(name)
        if dims:
            dynamic[name] = {i: f"{name}_d{i}" for i in dims}
    return tensors, names, dynamic


def export(layer, path, input_spec=None, opset_version=9, **configs):
    """Write ``path + '.onnx'``: ``layer`` traced on ``input_spec``, with its unknown dims dynamic."""
    if not isinstance(layer, Layer):
        raise TypeError(f"paddle.onnx.export: layer must be a paddle.nn.Layer, got {type(layer).__name__}")
    if not isinstance(path, str) or not path:
        raise ValueError(f"paddle.onnx.export: path must be a non-empty str, got {path!r}")
    if not isinstance(opset_version, int) or not 7 <= opset_version <= 20:
        raise ValueError(f"paddle.onnx.export: opset_version must be an int in [7, 20], got {opset_version!r}")
    unknown = set(configs) - _IGNORED
    if unknown:
        raise ValueError(f"paddle.onnx.export: unsupported options {sorted(unknown)}")
    tensors, names, dynamic = example_inputs(input_spec)
    if importlib.util.find_spec("onnx") is None:
        raise ImportError("paddle.onnx.export needs the onnx package, which torch.onnx writes the file with "
                          "(pip install onnx)")
    module = _TorchModule(layer)
    with torch.no_grad():
        probe = module(*tensors)
    count = len(probe) if isinstance(probe, tuple) else 1
    out_names = [f"output_{k}" for k in range(count)]
    target = path + ".onnx"
    folder = os.path.dirname(target)
    if folder:
        os.makedirs(folder, exist_ok=True)
    with module.holding_parameters(), warnings.catch_warnings():
        # the TorchScript exporter is chosen on purpose: it needs only onnx (torch's newer one needs onnxscript)
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.onnx.export(module, tuple(tensors), target, dynamo=False, opset_version=opset_version,
                          input_names=names, output_names=out_names, dynamic_axes=dynamic or None)

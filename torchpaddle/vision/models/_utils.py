"""Shared pieces of the vision models: channel rounding, the conv-norm-activation block, pretrained weights."""
import collections
import hashlib
import os

from ... import nn
from ...framework.io import load

__all__ = []

# Paddle's download cache (paddle.utils.download.WEIGHTS_HOME); a file already there is used as is.
WEIGHTS_HOME = os.path.join("~", ".cache", "paddle", "hapi", "weights")


def _make_divisible(v, divisor=8, min_value=None):
    """Round a channel count to a multiple of ``divisor`` without losing more than 10% of it."""
    min_value = divisor if min_value is None else min_value
    rounded = max(min_value, int(v + divisor / 2) // divisor * divisor)
    return rounded + divisor if rounded < 0.9 * v else rounded


class ConvNormActivation(nn.Sequential):
    """Conv2D, then an optional norm layer, then an optional activation (paddle.vision.ops.ConvNormActivation)."""

    def __init__(self, in_channels, out_channels, kernel_size=3, stride=1, padding=None, groups=1,
                 norm_layer=nn.BatchNorm2D, activation_layer=nn.ReLU, dilation=1, bias=None):
        if padding is None:
            padding = (kernel_size - 1) // 2 * dilation
        if bias is None:
            bias = norm_layer is None  # a norm layer right after the conv makes its bias redundant
        layers = [nn.Conv2D(in_channels, out_channels, kernel_size, stride, padding, dilation=dilation,
                            groups=groups, bias_attr=bias)]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            layers.append(activation_layer())
        super().__init__(*layers)


class IntermediateLayerGetter(nn.LayerDict):
    """Runs a model's direct children in order and returns the outputs of those named in ``return_layers``."""

    def __init__(self, model, return_layers):
        children = [name for name, _ in model.named_children()]
        if not set(return_layers).issubset(children):
            raise ValueError(f"IntermediateLayerGetter: return_layers {sorted(return_layers)} are not all "
                             f"children of the model ({children})")
        wanted = {str(k) for k in return_layers}
        layers = collections.OrderedDict()
        for name, layer in model.named_children():
            layers[name] = layer
            wanted.discard(name)
            if not wanted:
                break
        super().__init__(layers)
        self.return_layers = return_layers

    def forward(self, x):
        from ...tensor.manipulation import flatten
        out = collections.OrderedDict()
        for name, layer in self.items():
            subs = layer.sublayers()
            if x.ndim == 4 and (isinstance(layer, nn.Linear) or (subs and isinstance(subs[0], nn.Linear))):
                x = flatten(x, 1)
            x = layer(x)
            if name in self.return_layers:
                out[self.return_layers[name]] = x
        return out


def _md5(path):
    digest = hashlib.md5()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def cached_weights(arch, model_urls):
    """The path of ``arch``'s ImageNet weights in Paddle's cache folder; torchpaddle never downloads them."""
    if arch not in model_urls:
        # NOTE: Paddle asserts here, so the type is AssertionError.
        raise AssertionError(f"{arch} model do not have a pretrained model now, you should set pretrained=False")
    url, md5sum = model_urls[arch]
    path = os.path.join(os.path.expanduser(WEIGHTS_HOME), url.rsplit("/", 1)[-1])
    if not os.path.exists(path):
        raise RuntimeError(
            f"{arch}(pretrained=True): the weights are not in Paddle's cache ({path}) and torchpaddle does not "
            f"download them (no network access). Real Paddle fetches them from {url} (md5 {md5sum}); put that "
            f"file at {path}, or build the model with pretrained=False and load weights with "
            f"model.set_state_dict(paddle.load(path_to_pdparams)).")
    found = _md5(path)
    if found != md5sum:
        raise RuntimeError(f"{arch}(pretrained=True): {path} has md5 {found}, expected {md5sum} (a partial or "
                           f"different file); fetch {url} again, or load weights with model.set_state_dict")
    return path


def build(make, arch, model_urls, pretrained):
    """``make()``, with the cached ImageNet weights loaded when ``pretrained`` (checked before building)."""
    path = cached_weights(arch, model_urls) if pretrained else None
    model = make()
    if path is not None:
        model.set_state_dict(load(path))
    return model

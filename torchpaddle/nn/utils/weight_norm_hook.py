"""weight_norm: w = g * v / ||v||, with the norm over every axis but ``dim`` (all axes when dim is None/-1)."""
from ... import tensor as T
from ...autograd import no_grad
from ...framework.tensor import PaddleAssertionError

__all__ = ["weight_norm", "remove_weight_norm"]

_EPS = 1e-12


def _move_to_front(x, dim):
    perm = list(range(x.ndim))
    perm[0], perm[dim] = dim, 0
    return T.transpose(x, perm), perm


def _norm_except_dim(p, dim):
    """||p|| over all axes but ``dim`` (one value per slice along ``dim``); sqrt(sum p^2 + eps) like Paddle."""
    if dim == -1:
        return T.sqrt(T.sum(T.square(p)) + _EPS)
    if dim != 0:
        p, _ = _move_to_front(p, dim)
    rows = T.reshape(p, [p.shape[0], -1])
    return T.sqrt(T.sum(T.square(rows), axis=1) + _EPS)


def _weight_norm(v, g, dim):
    if dim == -1:
        return T.multiply(v / (T.sqrt(T.sum(T.square(v))) + _EPS), g)
    moved, perm = _move_to_front(v, dim) if dim != 0 else (v, None)
    rows = T.reshape(moved, [moved.shape[0], -1])
    # nn.functional.normalize's rule: x / max(||x||, eps)
    rows = rows / T.clip(T.sqrt(T.sum(T.square(rows), axis=1, keepdim=True)), min=_EPS)
    rows = T.multiply(rows, T.reshape(g, [-1, 1]))
    out = T.reshape(rows, moved.shape)
    return out if perm is None else T.transpose(out, perm)


class WeightNorm:
    def __init__(self, name, dim):
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, layer):
        return _weight_norm(getattr(layer, self.name + "_v"), getattr(layer, self.name + "_g"), self.dim)

    @staticmethod
    def apply(layer, name, dim):
        for hook in layer._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"weight_norm: cannot register two weight_norm hooks on the same parameter {name}")
        if name not in layer._parameters or layer._parameters[name] is None:
            raise KeyError(f"weight_norm: {type(layer).__name__} has no parameter named {name!r}")
        dim = -1 if dim is None else dim
        rank = len(layer._parameters[name].shape)
        if not -rank <= dim < rank:
            raise PaddleAssertionError(f"weight_norm: dim must be in [-{rank}, {rank}) for a {rank}-D weight, got "
                                       f"{dim}")
        if dim != -1:
            dim = (dim + rank) % rank
        fn = WeightNorm(name, dim)
        w = getattr(layer, name)
        del layer._parameters[name]
        with no_grad():
            g_value = _norm_except_dim(w, dim)
        v = layer.create_parameter(w.shape, dtype=w.dtype)
        layer.add_parameter(name + "_v", v)
        g = layer.create_parameter(g_value.shape, dtype=g_value.dtype)
        layer.add_parameter(name + "_g", g)
        with no_grad():
            v.set_value(w)
            g.set_value(g_value)
        setattr(layer, name, fn.compute_weight(layer))
        layer.register_forward_pre_hook(fn)
        return fn

    def remove(self, layer):
        w_value = self.compute_weight(layer)
        delattr(layer, self.name)
        del layer._parameters[self.name + "_g"]
        del layer._parameters[self.name + "_v"]
        w = layer.create_parameter(w_value.shape, dtype=w_value.dtype)
        layer.add_parameter(self.name, w)
        with no_grad():
            w.set_value(w_value)

    def __call__(self, layer, inputs):
        setattr(layer, self.name, self.compute_weight(layer))


def weight_norm(layer, name="weight", dim=0):
    """Reparameterize ``layer.<name>`` as ``<name>_g`` (magnitudes) and ``<name>_v`` (directions)."""
    WeightNorm.apply(layer, name, dim)
    return layer


def remove_weight_norm(layer, name="weight"):
    """Fold ``<name>_g`` and ``<name>_v`` back into a single parameter ``<name>``."""
    for key, hook in layer._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(layer)
            del layer._forward_pre_hooks[key]
            return layer
    raise ValueError(f"weight_norm of '{name}' not found in {layer}")

"""spectral_norm: w / sigma(w), sigma estimated by power iteration on persistable buffers u and v."""
from ... import tensor as T
from ...autograd import no_grad

__all__ = ["spectral_norm"]


def _normalize(x, eps):
    return x / T.clip(T.sqrt(T.sum(T.square(x))), min=eps)


class SpectralNorm:
    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        if n_power_iterations <= 0:
            raise ValueError(f"Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.name, self.dim, self.n_power_iterations, self.eps = name, dim, n_power_iterations, eps

    def reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = T.transpose(weight, [self.dim] + [d for d in range(weight.ndim) if d != self.dim])
        return T.reshape(weight, [weight.shape[0], -1])

    def compute_weight(self, layer, do_power_iteration):
        weight = getattr(layer, self.name + "_orig")
        u = getattr(layer, self.name + "_u")
        v = getattr(layer, self.name + "_v")
        matrix = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    v.set_value(_normalize(T.matmul(matrix, u, transpose_x=True), self.eps))
                    u.set_value(_normalize(T.matmul(matrix, v), self.eps))
                u, v = u.clone(), v.clone()
        sigma = T.dot(u, T.mv(matrix, v))
        return weight / sigma

    def __call__(self, layer, inputs):
        setattr(layer, self.name, self.compute_weight(layer, do_power_iteration=layer.training))

    @staticmethod
    def apply(layer, name, n_power_iterations, dim, eps):
        for hook in layer._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"spectral_norm: cannot register two spectral_norm hooks on the same parameter "
                                   f"{name}")
        if name not in layer._parameters or layer._parameters[name] is None:
            raise KeyError(f"spectral_norm: {type(layer).__name__} has no parameter named {name!r}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = layer._parameters[name]
        with no_grad():
            height, width = fn.reshape_weight_to_matrix(weight).shape
            # Paddle creates u and v as (throw-away) parameters first, which uses up two parameter names.
            u = layer.create_parameter([height])
            v = layer.create_parameter([width])
            u = _normalize(T.normal(0.0, 1.0, shape=[height]).astype(u.dtype), fn.eps)
            v = _normalize(T.normal(0.0, 1.0, shape=[width]).astype(v.dtype), fn.eps)
        del layer._parameters[name]
        layer.add_parameter(name + "_orig", weight)
        setattr(layer, name, weight * 1.0)
        layer.register_buffer(name + "_u", u)
        layer.register_buffer(name + "_v", v)
        layer.register_forward_pre_hook(fn)
        return fn


def spectral_norm(layer, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divide ``layer.<name>`` by its largest singular value before every forward. ``dim`` (the output axis)
    defaults to 1 for Linear and the transposed convolutions, else 0."""
    if dim is None:
        dim = 1 if type(layer).__name__ in ("Linear", "Conv1DTranspose", "Conv2DTranspose",
                                            "Conv3DTranspose") else 0
    SpectralNorm.apply(layer, name, n_power_iterations, dim, eps)
    return layer

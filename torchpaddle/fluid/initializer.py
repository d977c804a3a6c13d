"""fluid.initializer: Paddle 1.x's initializer names and signatures (``Normal(loc, scale, seed)``, not 2.x's
``Normal(mean, std)``): the short names are the ``*Initializer`` classes themselves."""
from ..nn.initializer import initializers as _nn_init
from ..nn.initializer.initializers import (Bilinear as BilinearInitializer, ConstantInitializer,  # noqa: F401
                                           MSRAInitializer, NormalInitializer, NumpyArrayInitializer,
                                           UniformInitializer, XavierInitializer)
from ..nn.initializer import set_global_initializer  # noqa: F401

__all__ = ["Constant", "Uniform", "Normal", "TruncatedNormal", "Xavier", "Bilinear", "MSRA", "ConstantInitializer",
           "UniformInitializer", "NormalInitializer", "TruncatedNormalInitializer", "XavierInitializer",
           "BilinearInitializer", "MSRAInitializer", "NumpyArrayInitializer"]



class TruncatedNormalInitializer(_nn_init.TruncatedNormalInitializer):
    """N(loc, scale) truncated to [loc - 2 * scale, loc + 2 * scale], as Paddle 1.x truncates (Paddle 2.x's
    ``a``/``b`` are absolute bounds instead)."""

    def __init__(self, loc=0.0, scale=1.0, seed=0):
        if loc is None or scale is None:
            raise AssertionError("TruncatedNormalInitializer: loc and scale must not be None")
        super().__init__(loc, scale, seed, a=loc - 2.0 * scale, b=loc + 2.0 * scale)

    def _fill(self, t):
        if self._std_dev == 0:      # a zero-width interval: every value is loc
            t.fill_(float(self._mean))
        else:
            super()._fill(t)


Constant = ConstantInitializer
Uniform = UniformInitializer
Normal = NormalInitializer
TruncatedNormal = TruncatedNormalInitializer
Xavier = XavierInitializer
Bilinear = BilinearInitializer
MSRA = MSRAInitializer

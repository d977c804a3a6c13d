"""fluid.dygraph: Paddle 1.8's imperative API (guard, to_variable, the fluid layer classes, save/load_dygraph,
learning-rate decays, data parallelism, dygraph-to-static) on torchpaddle's eager mode."""
from . import base, checkpoint, container, jit, layers, learning_rate_scheduler, nn, parallel  # noqa: F401
from .backward_strategy import BackwardStrategy  # noqa: F401
from .base import (disable_dygraph, disable_imperative, enable_dygraph, enable_imperative, enabled, grad,  # noqa: F401
                   guard, no_grad, to_variable)
from .checkpoint import load_dygraph, save_dygraph  # noqa: F401
from .container import LayerList, ParameterList, Sequential  # noqa: F401
from .jit import ProgramTranslator, StaticModelRunner, TracedLayer, declarative, dygraph_to_static_func  # noqa
from .layers import Layer  # noqa: F401
from .learning_rate_scheduler import (CosineDecay, ExponentialDecay, InverseTimeDecay, LambdaDecay,  # noqa: F401
                                      LearningRateDecay, LinearLrWarmup, MultiStepDecay, NaturalExpDecay, NoamDecay,
                                      PiecewiseDecay, PolynomialDecay, ReduceLROnPlateau, StepDecay)
from .nn import (BatchNorm, BilinearTensorProduct, Conv2D, Conv2DTranspose, Conv3D, Conv3DTranspose,  # noqa: F401
                 Dropout, Embedding, Flatten, GroupNorm, GRUUnit, InstanceNorm, LayerNorm, Linear, NCE, Pool2D, PRelu,
                 SpectralNorm, TreeConv)
from .parallel import DataParallel, ParallelEnv, ParallelStrategy, prepare_context  # noqa: F401
from ...nn import BCELoss, L1Loss, MSELoss, NLLLoss  # noqa: F401

__all__ = (base.__all__ + checkpoint.__all__ + container.__all__ + jit.__all__ + layers.__all__
           + learning_rate_scheduler.__all__ + nn.__all__ + parallel.__all__ + ["BackwardStrategy", "BCELoss",
                                                                              "L1Loss", "MSELoss", "NLLLoss"])

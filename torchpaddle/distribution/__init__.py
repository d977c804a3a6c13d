"""paddle.distribution: probability distributions, transforms and KL divergence, computed with torch
(dynamic mode only)."""
from .bernoulli import Bernoulli, ContinuousBernoulli
from .continuous import Cauchy, Laplace, Normal, StudentT, Uniform
from .discrete import Binomial, Categorical, Geometric, Multinomial, Poisson
from .distribution import Distribution, ExponentialFamily
from .exponential import Beta, Chi2, Dirichlet, Exponential, Gamma
from .kl import kl_divergence, register_kl
from .multivariate import LKJCholesky, MultivariateNormal
from .transform import (AbsTransform, AffineTransform, ChainTransform, ExpTransform, IndependentTransform,
                        PowerTransform, ReshapeTransform, SigmoidTransform, SoftmaxTransform, StackTransform,
                        StickBreakingTransform, TanhTransform, Transform)
from .transformed_distribution import Gumbel, Independent, LogNormal, TransformedDistribution

__all__ = ["Bernoulli", "Beta", "Categorical", "Dirichlet", "Distribution", "ExponentialFamily", "Multinomial",
           "MultivariateNormal", "Normal", "Uniform", "kl_divergence", "register_kl", "Independent",
           "TransformedDistribution", "Laplace", "LogNormal", "Gamma", "Gumbel", "Geometric", "Binomial", "Poisson",
           "ContinuousBernoulli", "Exponential", "StudentT", "Chi2", "Cauchy", "LKJCholesky",
           "AbsTransform", "AffineTransform", "ChainTransform", "ExpTransform", "IndependentTransform",
           "PowerTransform", "ReshapeTransform", "SigmoidTransform", "SoftmaxTransform", "StackTransform",
           "StickBreakingTransform", "TanhTransform", "Transform"]

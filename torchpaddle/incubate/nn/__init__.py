"""paddle.incubate.nn: fused Transformer building blocks (run here as compositions of ordinary ops)."""
from . import functional  # noqa: F401
from .layers import (FusedBiasDropoutResidualLayerNorm, FusedDropoutAdd, FusedFeedForward, FusedLinear,
                     FusedMultiHeadAttention, FusedMultiTransformer, FusedTransformerEncoderLayer)

__all__ = ["FusedMultiHeadAttention", "FusedFeedForward", "FusedTransformerEncoderLayer", "FusedMultiTransformer",
           "FusedLinear", "FusedBiasDropoutResidualLayerNorm", "FusedDropoutAdd"]

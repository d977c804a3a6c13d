"""The torch-style spellings Paddle 3.x gives some layers (``nn.Conv2d`` is ``nn.Conv2D``...): the same classes."""
from .conv import Conv1D, Conv2D, Conv3D
from .pooling import AdaptiveMaxPool1D, AdaptiveMaxPool2D, AdaptiveMaxPool3D
from .pooling_extra import LPPool1D, LPPool2D

__all__ = ["Conv1d", "Conv2d", "Conv3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "LPPool1d",
           "LPPool2d"]

Conv1d, Conv2d, Conv3d = Conv1D, Conv2D, Conv3D
AdaptiveMaxPool1d, AdaptiveMaxPool2d, AdaptiveMaxPool3d = AdaptiveMaxPool1D, AdaptiveMaxPool2D, AdaptiveMaxPool3D
LPPool1d, LPPool2d = LPPool1D, LPPool2D

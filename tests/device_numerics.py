"""Tolerances for float32 values computed on a GPU, compared with references computed on a CPU.

On the CPU the tests keep their own tolerances. On a GPU, float32 sums run in another order (about 1e-6 apart),
and cuDNN convolutions and RNNs take float32 inputs as TF32 (a 10-bit mantissa) on Ampere and later GPUs,
by default in Paddle as in torch: those results agree with a CPU reference to about 1e-3, and gradients
through several recurrent steps to a few 1e-3.
Imports nothing from torchpaddle, so fixture modules that also run under real Paddle can use it."""
import sys


def on_gpu():
    """Whether torchpaddle (when loaded) computes on a GPU."""
    tp = sys.modules.get("torchpaddle")
    return tp is not None and tp.get_device().startswith("gpu")


def tf32():
    """Whether cuDNN rounds float32 inputs to TF32 here."""
    if not on_gpu():
        return False
    import torch
    return bool(torch.backends.cudnn.allow_tf32) and torch.cuda.get_device_capability()[0] >= 8


def float32_tolerance(rtol, atol, cudnn=False):
    """(rtol, atol) for float32 results: as given on the CPU; on a GPU at least what its kernels need
    (``cudnn``: the values went through a cuDNN convolution or RNN)."""
    if cudnn and tf32():
        return max(rtol, 1e-2), max(atol, 5e-3)
    if on_gpu():
        return max(rtol, 1e-5), max(atol, 1e-5)
    return rtol, atol

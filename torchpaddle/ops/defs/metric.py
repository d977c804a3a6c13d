"""Metric ops: accuracy (top-k hit rate, from top_k_v2's outputs)."""
import torch

from ..registry import op
from .linalg import KernelDtypeError, dtype_name

_FLOATS = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


@op("accuracy", inputs=["Out", "Indices", "Label"], outputs=["Accuracy", "Correct", "Total"], differentiable=False)
def accuracy(Out, Indices, Label):
    """A row is correct when its label is among its top-k ``Indices``; 0-D float32/int32/int32 outputs."""
    if Out.dtype not in _FLOATS:
        raise KernelDtypeError(f"accuracy: Out (the top-k values) must be a float tensor, got {dtype_name(Out)}")
    if Indices.dim() != 2:
        raise ValueError(f"accuracy: Rank(Input) must be 2, with shape [sample_number, class_dim], got "
                         f"Indices{list(Indices.shape)}")
    if Label.dim() != 2 or Label.shape[1] != 1:
        raise ValueError(f"accuracy: Label must have shape [sample_number, 1], got Label{list(Label.shape)}")
    if Indices.shape[0] != Label.shape[0]:
        raise ValueError(f"accuracy: the number of rows of Indices{list(Indices.shape)} and Label"
                         f"{list(Label.shape)} must be the same")
    if Label.dtype is not torch.int64:
        raise ValueError(f"accuracy: Label must be int64 (or int32), got {dtype_name(Label)}")
    total = Indices.shape[0]
    correct = (Indices == Label).any(dim=1).sum().to(torch.int32)
    acc = correct.to(torch.float32) / total if total else torch.zeros((), dtype=torch.float32)
    return acc, correct, torch.tensor(total, dtype=torch.int32)

"""Legacy op types that fluid.layers emit: ``mean`` (a [1]-shaped mean of all elements), ``cross_entropy`` /
``cross_entropy2`` (the negative log of given probabilities), ``cvm``, and ``soft_relu`` (which Paddle 3.3.1
no longer has)."""
import torch

from ..registry import op
from .loss import _hard_label_errors

_OWN = "a Paddle 1.x op ({}) that Paddle 3.3.1 dropped; fluid.layers emits it"


@op("mean", inputs=["X"], outputs=["Out"])
def mean(X):
    # NOTE: Paddle 1.x had no 0-D tensors: the mean of everything has shape [1]
    return X.mean().reshape(1)


def _xent_hard(X, Label, ignore_index, op_type):
    label = Label.squeeze(-1) if Label.dim() == X.dim() else Label
    if label.dim() != X.dim() - 1 or list(label.shape) != list(X.shape[:-1]):
        raise ValueError(f"{op_type}: Label{list(Label.shape)} must be X{list(X.shape)} with its last dimension 1")
    valid = label != ignore_index
    _hard_label_errors(op_type, label, valid, X.shape[-1])
    index = torch.where(valid, label, torch.zeros_like(label)).long().unsqueeze(-1)
    match = torch.gather(X, -1, index)
    loss = torch.where(valid.unsqueeze(-1), -torch.log(match), torch.zeros_like(match))
    return loss, match


@op("cross_entropy", inputs=["X", "Label"], outputs=["Y"], attrs={"soft_label": False, "ignore_index": -100})
def cross_entropy(X, Label, *, soft_label, ignore_index):
    if soft_label:
        if Label.shape != X.shape:
            raise ValueError(f"cross_entropy: soft Label{list(Label.shape)} must have X's shape {list(X.shape)}")
        return -(Label.detach() * torch.log(X)).sum(-1, keepdim=True)
    if Label.dtype not in (torch.int32, torch.int64):
        raise TypeError(f"cross_entropy: a hard Label must be int64 (or int32), got {Label.dtype}")
    return _xent_hard(X, Label, ignore_index, "cross_entropy")[0]


@op("cross_entropy2", inputs=["X", "Label"], outputs=["Y", "XShape", "MatchX"], attrs={"ignore_index": -100})
def cross_entropy2(X, Label, *, ignore_index):
    if Label.dtype not in (torch.int32, torch.int64):
        raise TypeError(f"cross_entropy2: Label must be int64 (or int32), got {Label.dtype}")
    loss, match = _xent_hard(X, Label, ignore_index, "cross_entropy2")
    # XShape carries only X's shape (as Paddle's, with a leading 0) for the gradient op
    return loss, X.new_empty((0,) + tuple(X.shape)), match


@op("cvm", inputs=["X", "CVM"], outputs=["Y"], attrs={"use_cvm": True})
def cvm(X, CVM, *, use_cvm):
    if X.dim() != 2 or X.shape[1] < 2:
        raise ValueError(f"cvm: X must be 2-D with at least 2 columns (show, click, ...), got {list(X.shape)}")
    if not use_cvm:
        return X[:, 2:]
    show = torch.log1p(X[:, :1])
    return torch.cat([show, torch.log1p(X[:, 1:2]) - show, X[:, 2:]], dim=1)


@cvm.grad(uses=["CVM"])
def cvm_grad(CVM, Y_grad, *, use_cvm):
    # NOTE: as Paddle 1.x's cvm_grad, the gradient of the show/click columns is the CVM input itself
    rest = Y_grad[:, 2:] if use_cvm else Y_grad
    return {"X": torch.cat([CVM.to(rest.dtype).expand(rest.shape[0], 2), rest], dim=1)}


@op("soft_relu", attrs={"threshold": 40.0}, own=_OWN.format("fluid.layers.soft_relu"))
def soft_relu(X, *, threshold):
    return torch.log1p(torch.exp(X.clamp(-threshold, threshold)))


@soft_relu.grad(uses=["Out"])
def soft_relu_grad(Out, Out_grad, *, threshold):
    # NOTE: Paddle 1.x masks by the output (not the input) lying inside (-threshold, threshold)
    inside = (Out > -threshold) & (Out < threshold)
    return {"X": torch.where(inside, Out_grad * (1 - torch.exp(-Out)), torch.zeros_like(Out_grad))}

"""Loss ops with Paddle's legacy op types: softmax_with_cross_entropy, bce_loss, nll_loss, huber_loss, warpctc,
hierarchical_sigmoid... Reductions other than an op's own ``reduction`` attribute are separate ops (as in
Paddle's programs). Where Paddle's gradient kernel gives no gradient to a label input, the kernel detaches it."""
import torch
import torch.nn.functional as F

from ...framework.dtype import check_binary_promotion, from_torch_dtype
from ..registry import REQUIRED, op
from .activation import check_axis, float_only
from .manipulation import is_meta

_INT = (torch.int32, torch.int64)


def _name(t):
    return from_torch_dtype(t.dtype).name


def same_shape(op_type, a, b, slots):
    if a.shape != b.shape:
        raise ValueError(f"{op_type}: {slots[0]}{list(a.shape)} and {slots[1]}{list(b.shape)} must have the same "
                         f"shape")


def same_dtype(op_type, a, b, slots):
    # Paddle's kernels read every input as the first one's dtype and fail on a mismatch.
    if a.dtype is not b.dtype:
        raise ValueError(f"{op_type}: {slots[1]} has dtype {_name(b)} but {slots[0]} has {_name(a)}; they must match")


def _hard_label_errors(op_type, label, valid, classes):
    if label.numel() == 0 or is_meta(label):
        return
    bad = label[valid]
    if bad.numel() == 0:
        return
    low, high = torch.stack(torch.aminmax(bad)).tolist()
    if low < 0:
        raise IndexError(f"{op_type}: label value {low} is negative (and not ignore_index)")
    if high >= classes:
        raise IndexError(f"{op_type}: label value {high} is out of range for {classes} classes")


@op("softmax_with_cross_entropy", inputs=["Logits", "Label"], outputs=["Softmax", "Loss"],
    attrs={"soft_label": False, "ignore_index": -100, "numeric_stable_mode": True, "axis": -1, "use_softmax": True})
def softmax_with_cross_entropy(Logits, Label, *, soft_label, ignore_index, numeric_stable_mode, axis, use_softmax):
    float_only("softmax_with_cross_entropy", Logits, "Logits")
    rank = Logits.dim()
    axis = check_axis("softmax_with_cross_entropy", axis, rank)
    if Label.dim() != rank or any(Logits.shape[i] != Label.shape[i] for i in range(rank) if i != axis):
        raise ValueError(f"softmax_with_cross_entropy: Logits{list(Logits.shape)} and Label{list(Label.shape)} "
                         f"must have the same shape except on axis {axis}")
    if use_softmax:
        log_p = torch.log_softmax(Logits, axis)
        softmax = torch.exp(log_p)
    else:
        softmax, log_p = Logits, torch.log(Logits)
    if soft_label:
        if Label.shape[axis] != Logits.shape[axis]:
            raise ValueError(f"softmax_with_cross_entropy: with soft_label, Label{list(Label.shape)} must match "
                             f"Logits{list(Logits.shape)} on axis {axis}")
        same_dtype("softmax_with_cross_entropy", Logits, Label, ("Logits", "Label"))
        return softmax, -(Label.detach() * log_p).sum(axis, keepdim=True)
    if Label.shape[axis] != 1:
        raise ValueError(f"softmax_with_cross_entropy: a hard Label{list(Label.shape)} must have size 1 on axis "
                         f"{axis}")
    if Label.is_floating_point():
        Label = Label.detach().to(torch.int64)
    elif Label.dtype is torch.bool or Label.is_complex():
        raise TypeError(f"softmax_with_cross_entropy: Label must be an integer or float tensor, got {_name(Label)}")
    valid = Label != ignore_index
    _hard_label_errors("softmax_with_cross_entropy", Label, valid, Logits.shape[axis])
    safe = torch.where(valid, Label, 0).to(torch.int64)
    picked = log_p.gather(axis, safe)
    return softmax, torch.where(valid, -picked, 0.0)


@softmax_with_cross_entropy.grad(uses=["Softmax", "Label"], autograd=False)
def softmax_with_cross_entropy_grad(Softmax, Label, Softmax_grad, Loss_grad, *, soft_label, ignore_index,
                                    numeric_stable_mode, axis, use_softmax):
    # As Paddle's kernel, from Softmax and Label (a grad op run on its own needs no recompute); a gradient
    # flowing into Softmax too takes the vjp of the kernel.
    if not use_softmax or Softmax_grad is not None or Loss_grad is None:
        return None
    axis = check_axis("softmax_with_cross_entropy_grad", axis, Softmax.dim())
    if soft_label:
        return {"Logits": (Softmax * Label.sum(axis, keepdim=True) - Label) * Loss_grad}
    label = Label.to(torch.int64)
    valid = label != ignore_index
    picked = torch.zeros_like(Softmax).scatter_(axis, torch.where(valid, label, 0), 1.0)
    return {"Logits": (Softmax - picked) * (Loss_grad * valid)}


@op("bce_loss", inputs=["X", "Label"], outputs=["Out"])
def bce_loss(X, Label):
    float_only("bce_loss", X)
    same_shape("bce_loss", X, Label, ("X", "Label"))
    same_dtype("bce_loss", X, Label, ("X", "Label"))
    if X.numel() and not is_meta(X):
        low, high = torch.stack(torch.aminmax(X.detach())).tolist()
        if low < 0 or high > 1:
            raise ValueError(f"bce_loss: X must lie in [0, 1], got values in [{low}, {high}]")
    # torch clamps the logs at -100, as Paddle's kernel does.
    return F.binary_cross_entropy(X, Label.detach(), reduction="none")


@op("sigmoid_cross_entropy_with_logits", inputs=["X", "Label", "pos_weight?"], outputs=["Out"],
    attrs={"normalize": False, "ignore_index": -100})
def sigmoid_cross_entropy_with_logits(X, Label, pos_weight, *, normalize, ignore_index):
    float_only("sigmoid_cross_entropy_with_logits", X)
    if X.shape != Label.shape:
        raise ValueError(f"sigmoid_cross_entropy_with_logits: X{list(X.shape)} and Label{list(Label.shape)} must "
                         f"have the same shape")
    float_only("sigmoid_cross_entropy_with_logits", Label, "Label")
    same_dtype("sigmoid_cross_entropy_with_logits", X, Label, ("X", "Label"))
    Label = Label.detach()
    if pos_weight is None:
        out = F.binary_cross_entropy_with_logits(X, Label, reduction="none")
    else:
        # pos_weight here is already 1 + (pos_weight - 1) * label, as Paddle's Python side prepares it.
        out = (1 - Label) * X + pos_weight.detach() * (torch.log1p(torch.exp(-X.abs())) + torch.relu(-X))
    ignored = Label == ignore_index
    out = out.masked_fill(ignored, 0.0)
    if normalize:
        out = out / (~ignored).sum().clamp(min=1)
    return out


@op("huber_loss", inputs=["X", "Y"], outputs=["Out", "Residual"], attrs={"delta": REQUIRED})
def huber_loss(X, Y, *, delta):
    float_only("huber_loss", X)
    same_shape("huber_loss", X, Y, ("X", "Y"))
    if X.dtype is not Y.dtype:
        # huber_loss takes part in Paddle's type promotion: float32 with float64 computes in float64.
        check_binary_promotion("huber_loss", X.dtype, Y.dtype)
        common = torch.promote_types(X.dtype, Y.dtype)
        X, Y = X.to(common), Y.to(common)
    return F.huber_loss(X, Y, reduction="none", delta=delta), Y - X


@op("log_loss", inputs=["Predicted", "Labels"], outputs=["Loss"], attrs={"epsilon": REQUIRED})
def log_loss(Predicted, Labels, *, epsilon):
    float_only("log_loss", Predicted, "Predicted")
    if Predicted.dim() != 2 or Predicted.shape[1] != 1:
        raise ValueError(f"log_loss: Predicted must have shape [N, 1], got {list(Predicted.shape)}")
    same_shape("log_loss", Predicted, Labels, ("Predicted", "Labels"))
    same_dtype("log_loss", Predicted, Labels, ("Predicted", "Labels"))
    Labels = Labels.detach()
    return -Labels * torch.log(Predicted + epsilon) - (1 - Labels) * torch.log(1 - Predicted + epsilon)


@op("kldiv_loss", inputs=["X", "Target"], outputs=["Loss"], attrs={"reduction": "mean", "log_target": False})
def kldiv_loss(X, Target, *, reduction, log_target):
    float_only("kldiv_loss", X)
    same_shape("kldiv_loss", X, Target, ("X", "Target"))
    Target = Target.detach()
    if log_target:
        loss = torch.exp(Target) * (Target - X)
    else:
        # NOTE: Paddle gives 0 where the target is <= 0 (torch gives nan for negative targets).
        positive = Target > 0
        loss = torch.where(positive, Target * (torch.log(torch.where(positive, Target, 1.0)) - X), 0.0)
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "batchmean":
        return loss.sum() / X.shape[0] if X.dim() else loss.sum()
    return loss


@op("nll_loss", inputs=["X", "Label", "Weight?"], outputs=["Out", "Total_weight"],
    attrs={"ignore_index": -100, "reduction": "mean"})
def nll_loss(X, Label, Weight, *, ignore_index, reduction):
    float_only("nll_loss", X)
    if X.dim() not in (2, 4):
        raise ValueError(f"nll_loss: X must be 2-D [N, C] or 4-D [N, C, H, W], got {list(X.shape)}")
    expected = [X.shape[0]] + list(X.shape[2:])
    if list(Label.shape) != expected:
        raise ValueError(f"nll_loss: Label{list(Label.shape)} must have shape {expected} for X{list(X.shape)}")
    if Label.dtype is not torch.int64:
        raise ValueError(f"nll_loss: Label must be int64, got {_name(Label)}")
    classes = X.shape[1]
    if Weight is not None:
        if list(Weight.shape) != [classes]:
            raise ValueError(f"nll_loss: Weight{list(Weight.shape)} must have shape [{classes}]")
        same_dtype("nll_loss", X, Weight, ("X", "Weight"))
    valid = Label != ignore_index
    if Label.numel() and not is_meta(Label):
        bad = Label[valid]
        if bad.numel() and (int(bad.min()) < 0 or int(bad.max()) >= classes):
            raise ValueError(f"nll_loss: Label holds values out of range [0, {classes})")
    safe = torch.where(valid, Label, 0)
    weight = torch.ones((), dtype=X.dtype, device=X.device) if Weight is None else Weight.detach()[safe]
    weight = torch.where(valid, weight, 0.0).to(X.dtype)
    loss = -X.gather(1, safe.unsqueeze(1)).squeeze(1) * weight
    total = weight.sum()
    if reduction == "none":
        return loss, total
    if reduction == "sum":
        return loss.sum(), total
    # NOTE: with every label ignored (total weight 0) Paddle returns 0, not nan.
    return loss.sum() / torch.where(total == 0, torch.ones_like(total), total), total


@op("warpctc", inputs=["Logits", "Label", "LogitsLength?", "LabelLength?"], outputs=["WarpCTCGrad", "Loss"],
    attrs={"blank": 0, "norm_by_times": False})
def warpctc(Logits, Label, LogitsLength, LabelLength, *, blank, norm_by_times):
    float_only("warpctc", Logits, "Logits")
    if LogitsLength is None or LabelLength is None:
        raise ValueError("warpctc: LogitsLength and LabelLength are required for padded input")
    if Logits.dim() != 3 or Label.dim() != 2:
        raise ValueError(f"warpctc: Logits must be [T, B, C] and Label [B, L], got {list(Logits.shape)} and "
                         f"{list(Label.shape)}")
    if Label.dtype is not torch.int32:
        raise ValueError(f"warpctc: Label must be int32, got {_name(Label)}")
    for slot, t in (("LogitsLength", LogitsLength), ("LabelLength", LabelLength)):
        if t.dtype is not torch.int64:
            raise ValueError(f"warpctc: {slot} must be int64, got {_name(t)}")
        if list(t.shape) != [Logits.shape[1]]:
            raise ValueError(f"warpctc: {slot}{list(t.shape)} must have shape [{Logits.shape[1]}]")
    steps, batch, classes = Logits.shape
    if not 0 <= blank < classes:
        raise ValueError(f"warpctc: blank={blank} is out of range [0, {classes})")
    if not is_meta(Label) and batch:
        if int(LogitsLength.min()) < 0 or int(LogitsLength.max()) > steps:
            raise ValueError(f"warpctc: LogitsLength must lie in [0, {steps}], got {LogitsLength.tolist()}")
        if int(LabelLength.min()) < 0 or int(LabelLength.max()) > Label.shape[1]:
            raise ValueError(f"warpctc: LabelLength must lie in [0, {Label.shape[1]}], got {LabelLength.tolist()}")
        used = torch.arange(Label.shape[1], device=Label.device) < LabelLength.unsqueeze(1)
        targets = Label[used]
        if targets.numel() and (int(targets.min()) < 0 or int(targets.max()) >= classes
                                or bool((targets == blank).any())):
            raise ValueError(f"warpctc: labels must lie in [0, {classes}) and differ from blank={blank}")
    log_probs = torch.log_softmax(Logits, -1)
    # NOTE: warp-ctc reports 0 for an impossible alignment (torch would give inf), hence zero_infinity.
    loss = F.ctc_loss(log_probs, Label.to(torch.int64), LogitsLength, LabelLength, blank=blank, reduction="none",
                      zero_infinity=True)
    if norm_by_times:
        # warp-ctc divides the gradient (not the loss) by each sequence's length.
        scale = 1.0 / LogitsLength.clamp(min=1).to(loss.dtype)
        loss = loss.detach() + (loss - loss.detach()) * scale
    return None, loss.unsqueeze(1)


# trainer_id, height_sections, epmap and table_names place W on parameter servers (remote prefetch); torchpaddle
# has none, so W is always local and they are kept for the program only
@op("hierarchical_sigmoid", inputs=["X", "W", "Label", "PathTable?", "PathCode?", "Bias?"],
    outputs=["Out", "PreOut", "W_Out"],
    attrs={"num_classes": 2, "trainer_id": 0, "height_sections": [], "epmap": [], "table_names": [],
           "is_sparse": False})
def hierarchical_sigmoid(X, W, Label, PathTable, PathCode, Bias, *, num_classes, is_sparse, **_servers):
    float_only("hierarchical_sigmoid", X)
    if X.dim() != 2 or W.dim() != 2 or W.shape[1] != X.shape[1]:
        raise ValueError(f"hierarchical_sigmoid: X must be [N, D] and W [num_nodes, D], got {list(X.shape)} and "
                         f"{list(W.shape)}")
    same_dtype("hierarchical_sigmoid", X, W, ("X", "W"))
    if Label.dtype not in _INT:
        raise TypeError(f"hierarchical_sigmoid: Label must be int32 or int64, got {_name(Label)}")
    label = Label.reshape(-1).to(torch.int64)
    if label.numel() != X.shape[0]:
        raise ValueError(f"hierarchical_sigmoid: Label{list(Label.shape)} must hold one class per row of "
                         f"X{list(X.shape)}")
    if PathTable is None:
        if num_classes < 2:
            raise ValueError(f"hierarchical_sigmoid: num_classes must be >= 2, got {num_classes}")
        if label.numel() and not is_meta(label) and (int(label.min()) < 0 or int(label.max()) >= num_classes):
            raise ValueError(f"hierarchical_sigmoid: Label values must lie in [0, {num_classes})")
        # The default tree: class c is leaf c + num_classes of a heap-ordered complete binary tree.
        depth = (num_classes - 1).bit_length()
        code = (label + num_classes).unsqueeze(1)
        bits = torch.arange(depth, device=X.device)
        node = (code >> (bits + 1)) - 1
        branch = (code >> bits) & 1
        length = torch.floor(torch.log2(code.to(torch.float64))).to(torch.int64)
        valid = bits < length
    else:
        if PathCode is None or PathTable.shape != PathCode.shape or PathTable.dim() != 2 \
                or PathTable.shape[0] != X.shape[0]:
            raise ValueError("hierarchical_sigmoid: PathTable and PathCode must both be given, with shape [N, L]")
        node, branch = PathTable.to(torch.int64), PathCode.to(torch.int64)
        # A path ends at its first negative node id.
        valid = torch.cumprod((node >= 0).to(torch.int64), 1).bool()
    node = torch.where(valid, node, 0)
    if node.numel() and not is_meta(node) and int(node.max()) >= W.shape[0]:
        raise ValueError(f"hierarchical_sigmoid: a path reaches node {int(node.max())} but W has only "
                         f"{W.shape[0]} rows")
    pre = (X.unsqueeze(1) * W[node]).sum(-1)
    if Bias is not None:
        pre = pre + Bias.reshape(-1)[node]
    pre = torch.where(valid, pre.clamp(-40.0, 40.0), 0.0)
    # NOTE: as in Paddle's kernel, positions past a short path still add softplus(0) = log 2 to the loss.
    out = F.softplus(pre).sum(1, keepdim=True) - (pre * (branch * valid).to(pre.dtype)).sum(1, keepdim=True)
    return out, pre, None


@op("bilinear_tensor_product", inputs=["X", "Y", "Weight", "Bias?"], outputs=["Out"])
def bilinear_tensor_product(X, Y, Weight, Bias):
    float_only("bilinear_tensor_product", X)
    if X.dim() != 2 or Y.dim() != 2 or Weight.dim() != 3:
        raise ValueError(f"bilinear_tensor_product: X and Y must be 2-D and Weight 3-D, got X{list(X.shape)}, "
                         f"Y{list(Y.shape)}, Weight{list(Weight.shape)}")
    if X.shape[0] != Y.shape[0] or X.shape[1] != Weight.shape[1] or Y.shape[1] != Weight.shape[2]:
        raise ValueError(f"bilinear_tensor_product: X{list(X.shape)}, Y{list(Y.shape)} and Weight"
                         f"{list(Weight.shape)} do not fit: need X [B, M], Y [B, N], Weight [K, M, N]")
    if Bias is not None and (Bias.dim() != 2 or Bias.shape[0] != 1 or Bias.shape[1] != Weight.shape[0]):
        raise ValueError(f"bilinear_tensor_product: Bias must have shape [1, {Weight.shape[0]}], got "
                         f"{list(Bias.shape)}")
    same_dtype("bilinear_tensor_product", X, Y, ("X", "Y"))
    same_dtype("bilinear_tensor_product", X, Weight, ("X", "Weight"))
    return F.bilinear(X, Y, Weight, None if Bias is None else Bias.reshape(-1))

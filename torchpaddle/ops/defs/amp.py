"""Loss-scaling ops of mixed-precision training: check_finite_and_unscale and update_loss_scaling.

Both stay on the device (no host sync): "found infinite" is a bool tensor of shape [1] that the scaling
update and the gradient zeroing read with torch.where.
"""
import torch

from ..registry import REQUIRED, op


@op("check_finite_and_unscale", inputs=["X[]", "Scale"], outputs=["Out[]", "FoundInfinite"], differentiable=False)
def check_finite_and_unscale(X, Scale):
    """Out = X / Scale; FoundInfinite = whether any X holds an inf or a nan."""
    if Scale.numel() != 1:
        raise ValueError(f"check_finite_and_unscale: Scale must hold one value, got shape {list(Scale.shape)}")
    inverse = 1.0 / Scale.reshape(()).to(torch.float32)
    found = torch.zeros((), dtype=torch.bool, device=Scale.device)
    outs = []
    for x in X:
        found = found | ~torch.isfinite(x).all()
        outs.append((x.to(torch.float32) * inverse).to(x.dtype))
    return outs, found.reshape(1)


@op("update_loss_scaling",
    inputs=["X[]", "FoundInfinite", "PrevLossScaling", "InGoodSteps", "InBadSteps", "StopUpdate?"],
    outputs=["Out[]", "LossScaling", "OutGoodSteps", "OutBadSteps"],
    attrs={"incr_every_n_steps": REQUIRED, "decr_every_n_nan_or_inf": REQUIRED, "incr_ratio": REQUIRED,
           "decr_ratio": REQUIRED, "stop_update": False},
    differentiable=False)
def update_loss_scaling(X, FoundInfinite, PrevLossScaling, InGoodSteps, InBadSteps, StopUpdate, *,
                        incr_every_n_steps, decr_every_n_nan_or_inf, incr_ratio, decr_ratio, stop_update):
    """Zero X when FoundInfinite; count good/bad steps and grow the scaling by incr_ratio after
    incr_every_n_steps good ones (when the product stays finite), shrink it by decr_ratio after
    decr_every_n_nan_or_inf bad ones (never below 1). StopUpdate=True leaves the scaling and counters alone."""
    found = FoundInfinite.reshape(()).to(torch.bool)
    outs = [torch.where(found, torch.zeros((), dtype=x.dtype, device=x.device), x) for x in X]
    prev, good, bad = PrevLossScaling, InGoodSteps, InBadSteps
    bad_next = torch.where(found, bad + 1, torch.zeros_like(bad))
    good_next = torch.where(found, torch.zeros_like(good), good + 1)
    shrink = found & (bad_next >= decr_every_n_nan_or_inf)
    grow = ~found & (good_next >= incr_every_n_steps)
    grown = prev * incr_ratio
    scale = torch.where(shrink, torch.clamp(prev * decr_ratio, min=1.0),
                        torch.where(grow & torch.isfinite(grown), grown, prev))
    bad_next = torch.where(shrink, torch.zeros_like(bad_next), bad_next)
    good_next = torch.where(grow, torch.zeros_like(good_next), good_next)
    if StopUpdate is not None or stop_update:   # the StopUpdate tensor outranks the attribute, as in Paddle
        stop = StopUpdate.reshape(()).to(torch.bool) if StopUpdate is not None else torch.tensor(True)
        scale = torch.where(stop, prev, scale)
        good_next = torch.where(stop, good, good_next)
        bad_next = torch.where(stop, bad, bad_next)
    return outs, scale, good_next, bad_next

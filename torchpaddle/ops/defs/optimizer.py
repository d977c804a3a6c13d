"""Optimizer updates: one functional update per optimizer, and Paddle's per-parameter optimizer ops over it.

Each ``*_update`` is a pure function of lists of torch tensors (parameters, gradients, accumulators) and
hyper-parameters, in the style of ``torch.optim``'s functional forms: it updates the parameters and
accumulators in place with ``torch._foreach_*`` kernels over the whole list. The eager optimizers call it
once per step over all their parameters; the ops (``sgd``, ``momentum``, ``adam``... with Paddle 3.3.1's
slots and attributes) call it with one parameter, so static programs (ours or Paddle's) compute exactly what
dygraph computes.

Beta-power accumulators are [1]-shaped CPU tensors, as in Paddle; updates take NumPy views of them
(``beta1_pows``), since one NumPy read/write per parameter costs far less than a torch op per parameter.
A learning rate is a Python float per parameter (``lrs``), already rounded as Paddle's float32
learning-rate tensor rounds it.
"""
import numpy as np
import torch

from ..registry import REQUIRED, op

__all__ = ["sgd_update", "momentum_update", "lars_momentum_update", "adam_update", "adamax_update",
           "adagrad_update", "adadelta_update", "rmsprop_update", "lamb_update", "nadam_update", "radam_update",
           "asgd_update", "rprop_update", "sub_scaled_", "one_minus", "read_pows", "advance_pows"]


# -- shared arithmetic -------------------------------------------------------------------------------------
def sub_scaled_(weights, updates, lrs):
    """weights[i] -= lrs[i] * updates[i], with one fused call when all rates agree (the common case)."""
    first = lrs[0]
    if all(lr == first for lr in lrs):
        torch._foreach_add_(weights, updates, alpha=-first)
    else:
        torch._foreach_add_(weights, torch._foreach_mul(updates, [-lr for lr in lrs]))


def one_minus(beta, like):
    """``1 - beta`` rounded as the kernels round it: in the accumulators' dtype (float32 unless float64)."""
    if like is torch.float64:
        return 1.0 - float(beta)
    return float(np.float32(1.0) - np.float32(beta))


def read_pows(views):
    """The values of [1]-shaped beta-power views, as one NumPy array in their dtype."""
    return np.array([v[0] for v in views], dtype=views[0].dtype)


def advance_pows(views, values, beta):
    """views[i] = values[i] * beta, rounded in the accumulators' dtype as Paddle's kernels round it."""
    for view, value in zip(views, values * values.dtype.type(beta)):
        view[0] = value


def _real(dtype):
    return np.float64 if dtype is torch.float64 else np.float32


# -- the updates -------------------------------------------------------------------------------------------
def sgd_update(params, grads, lrs):
    """``param -= lr * grad``."""
    sub_scaled_(params, grads, lrs)


def momentum_update(params, grads, velocities, lrs, *, mu, use_nesterov=False, rescale_grad=1.0, l2_coeffs=None):
    """``g = rescale_grad*grad + l2_coeff*param``, ``velocity = mu*velocity + g``, ``param -= lr*velocity`` (or
    ``lr*(g + mu*velocity)`` with Nesterov). ``l2_coeffs``: the fused L2 decay per parameter (0: none).
    NOTE: Paddle's CPU kernel ignores ``rescale_grad``; torchpaddle applies it everywhere, as documented."""
    if rescale_grad != 1.0:
        grads = torch._foreach_mul(grads, float(rescale_grad))
    if l2_coeffs is not None:
        by_coeff = {}
        for i, coeff in enumerate(l2_coeffs):
            if coeff != 0.0:
                by_coeff.setdefault(coeff, []).append(i)
        if by_coeff:
            grads = list(grads)
            for coeff, index in by_coeff.items():
                decayed = torch._foreach_add([grads[i] for i in index], [params[i] for i in index], alpha=coeff)
                for i, g in zip(index, decayed):
                    grads[i] = g
    torch._foreach_mul_(velocities, float(mu))
    torch._foreach_add_(velocities, grads)
    if use_nesterov:
        sub_scaled_(params, torch._foreach_add(grads, velocities, alpha=float(mu)), lrs)
    else:
        sub_scaled_(params, velocities, lrs)


def lars_momentum_update(params, grads, velocities, lrs, *, mu, lars_coeff, lars_weight_decays, epsilon=0.0,
                         rescale_grad=1.0):
    """LARS: ``local_lr = lr * lars_coeff * ||p|| / (||g|| + decay*||p|| + epsilon)`` (``lr`` when a norm is 0),
    ``velocity = mu*velocity + local_lr*(g + decay*p)``, ``param -= velocity``; ``g = rescale_grad * grad``."""
    for p, g, v, lr, decay in zip(params, grads, velocities, lrs, lars_weight_decays):
        g = g * rescale_grad if rescale_grad != 1.0 else g
        p_norm, g_norm = torch.linalg.vector_norm(p), torch.linalg.vector_norm(g)
        local = torch.where((p_norm > 0) & (g_norm > 0),
                            lr * lars_coeff * p_norm / (g_norm + decay * p_norm + epsilon),
                            torch.full_like(p_norm, lr))
        v.mul_(mu).add_(local * (g + decay * p) if decay else local * g)
        p.sub_(v)


def adam_update(params, grads, moment1s, moment2s, moment2_maxs, beta1_pows, beta2_pows, lrs, *, beta1, beta2,
                epsilon, decays=None, advance=True):
    """Adam as Paddle's kernel computes it, with ``b1p``/``b2p`` the beta powers before the step:
    ``m1 = beta1*m1 + (1-beta1)*g``, ``m2 = beta2*m2 + (1-beta2)*g*g`` (``moment2_maxs``: amsgrad's running max),
    ``param -= lr*sqrt(1-b2p)/(1-b1p) * m1 / (sqrt(m2) + epsilon*sqrt(1-b2p))``; then the powers advance
    (unless ``advance`` is false). ``decays`` (AdamW): ``param *= 1 - lr*decay`` first. A sparse gradient
    (lazy mode) updates only the rows it holds."""
    rows_back = []
    if any(g.layout is not torch.strided for g in grads):
        grads, params, moment1s, moment2s = list(grads), list(params), list(moment1s), list(moment2s)
        moment2_maxs = None if moment2_maxs is None else list(moment2_maxs)
        for i, g in enumerate(grads):
            if g.layout is torch.strided:
                continue
            g = g.coalesce()
            rows = g.indices()[0]
            grads[i] = g.values()
            states = [params, moment1s, moment2s] + ([moment2_maxs] if moment2_maxs is not None else [])
            for state in states:
                whole = state[i]
                state[i] = whole[rows]
                rows_back.append((whole, rows, state[i]))
    if decays is not None:
        index = [i for i, d in enumerate(decays) if d != 0.0]
        if index:
            torch._foreach_mul_([params[i] for i in index], [1.0 - lrs[i] * decays[i] for i in index])
    acc = moment1s[0].dtype
    real = _real(acc)
    b1p, b2p = read_pows(beta1_pows), read_pows(beta2_pows)
    one = real(1)
    root = np.sqrt(one - b2p)
    step_sizes = np.asarray(lrs, dtype=real) * (root / (one - b1p))
    eps = real(epsilon) * root
    torch._foreach_lerp_(moment1s, grads, one_minus(beta1, acc))
    torch._foreach_mul_(moment2s, float(beta2))
    torch._foreach_addcmul_(moment2s, grads, grads, value=one_minus(beta2, acc))
    second = moment2s
    if moment2_maxs is not None:
        torch._foreach_maximum_(moment2_maxs, moment2s)
        second = moment2_maxs
    denom = torch._foreach_sqrt(second)
    torch._foreach_add_(denom, eps.tolist())
    torch._foreach_addcdiv_(params, moment1s, denom, (-step_sizes).tolist())
    for whole, rows, part in rows_back:
        whole[rows] = part
    if advance:
        advance_pows(beta1_pows, b1p, beta1)
        advance_pows(beta2_pows, b2p, beta2)


def adamax_update(params, grads, moments, inf_norms, beta1_pows, lrs, *, beta1, beta2, epsilon):
    """``m = beta1*m + (1-beta1)*g``, ``u = max(beta2*u + epsilon, |g|)``, ``param -= lr/(1-b1p) * m/u``. The beta1
    power is not advanced here (Paddle's program does it with a ``scale`` op after the update)."""
    acc = moments[0].dtype
    real = _real(acc)
    b1p = read_pows(beta1_pows).astype(real)
    step_sizes = np.asarray(lrs, dtype=real) / (real(1) - b1p)
    torch._foreach_mul_(moments, float(beta1))
    torch._foreach_add_(moments, grads, alpha=one_minus(beta1, acc))
    torch._foreach_mul_(inf_norms, float(beta2))
    torch._foreach_add_(inf_norms, float(epsilon))
    torch._foreach_maximum_(inf_norms, torch._foreach_abs(grads))
    torch._foreach_addcdiv_(params, moments, inf_norms, (-step_sizes).tolist())


def adagrad_update(params, grads, moments, lrs, *, epsilon):
    """``moment += g*g``, ``param -= lr * g / (sqrt(moment) + epsilon)``."""
    torch._foreach_addcmul_(moments, grads, grads)
    denom = torch._foreach_sqrt(moments)
    torch._foreach_add_(denom, float(epsilon))
    torch._foreach_addcdiv_(params, grads, denom, [-lr for lr in lrs])


def adadelta_update(params, grads, avg_squared_grads, avg_squared_updates, lrs, *, rho, epsilon):
    """``E[g2] = rho*E[g2] + (1-rho)*g*g``, ``update = sqrt((E[dx2] + eps) / (E[g2] + eps)) * g``,
    ``E[dx2] = rho*E[dx2] + (1-rho)*update*update``, ``param -= lr * update``."""
    rho, epsilon = float(rho), float(epsilon)
    decay = one_minus(rho, avg_squared_grads[0].dtype)
    torch._foreach_mul_(avg_squared_grads, rho)
    torch._foreach_addcmul_(avg_squared_grads, grads, grads, value=decay)
    ratio = torch._foreach_div(torch._foreach_add(avg_squared_updates, epsilon),
                               torch._foreach_add(avg_squared_grads, epsilon))
    torch._foreach_sqrt_(ratio)
    updates = torch._foreach_mul(ratio, grads)
    torch._foreach_mul_(avg_squared_updates, rho)
    torch._foreach_addcmul_(avg_squared_updates, updates, updates, value=decay)
    sub_scaled_(params, updates, lrs)


def rmsprop_update(params, grads, mean_squares, moments, mean_grads, lrs, *, rho, epsilon, momentum, centered):
    """``ms = rho*ms + (1-rho)*g*g``; centered: ``mg = rho*mg + (1-rho)*g``, ``denom = sqrt(ms - mg*mg + eps)``,
    else ``denom = sqrt(ms + eps)``; ``mom = momentum*mom + lr*g/denom``; ``param -= mom``."""
    rho, epsilon = float(rho), float(epsilon)
    decay = one_minus(rho, mean_squares[0].dtype)
    torch._foreach_mul_(mean_squares, rho)
    torch._foreach_addcmul_(mean_squares, grads, grads, value=decay)
    if centered:
        torch._foreach_mul_(mean_grads, rho)
        torch._foreach_add_(mean_grads, grads, alpha=decay)
        denom = torch._foreach_addcmul(mean_squares, mean_grads, mean_grads, value=-1.0)
        torch._foreach_add_(denom, epsilon)
    else:
        denom = torch._foreach_add(mean_squares, epsilon)
    torch._foreach_sqrt_(denom)
    torch._foreach_mul_(moments, float(momentum))
    torch._foreach_addcdiv_(moments, grads, denom, list(lrs))
    torch._foreach_sub_(params, moments)


def lamb_update(params, grads, moment1s, moment2s, beta1_pows, beta2_pows, lrs, *, beta1, beta2, epsilon,
                weight_decays, always_adapt=False, advance=True):
    """LAMB: Adam's moments, ``r = (m1/(1-b1p)) / (sqrt(m2/(1-b2p)) + epsilon) + weight_decay * param``, then
    ``param -= lr * trust * r`` with ``trust = ||param|| / ||r||`` (1 when either norm is 0, and 1 for
    parameters whose weight_decay is 0 unless ``always_adapt``); the beta powers advance after."""
    acc = moment1s[0].dtype
    real = _real(acc)
    b1p, b2p = read_pows(beta1_pows), read_pows(beta2_pows)
    torch._foreach_mul_(moment1s, float(beta1))
    torch._foreach_add_(moment1s, grads, alpha=one_minus(beta1, acc))
    torch._foreach_mul_(moment2s, float(beta2))
    torch._foreach_addcmul_(moment2s, grads, grads, value=one_minus(beta2, acc))
    m1_hat = torch._foreach_div(moment1s, (real(1) - b1p).tolist())
    denom = torch._foreach_div(moment2s, (real(1) - b2p).tolist())
    torch._foreach_sqrt_(denom)
    torch._foreach_add_(denom, float(epsilon))
    ratios = list(torch._foreach_div(m1_hat, denom))
    index = [i for i, d in enumerate(weight_decays) if d != 0.0]
    for i in index:
        ratios[i] = ratios[i].add(params[i], alpha=float(weight_decays[i]))
    norm_dtype = torch.float64 if any(p.dtype is torch.float64 for p in params) else torch.float32
    p_norms = torch.stack(torch._foreach_norm(params)).to(norm_dtype)
    r_norms = torch.stack(torch._foreach_norm(ratios)).to(norm_dtype)
    adapt = (p_norms > 0) & (r_norms > 0)
    if not always_adapt:
        decayed = torch.zeros_like(adapt)
        decayed[index] = True
        adapt &= decayed
    trust = torch.where(adapt, p_norms / r_norms, torch.ones_like(p_norms))
    rates = torch.tensor(list(lrs), dtype=trust.dtype, device=trust.device)
    scales = (-(rates * trust)).unbind()
    torch._foreach_add_(params, torch._foreach_mul(ratios, [s.to(r.dtype) for s, r in zip(scales, ratios)]))
    if advance:
        advance_pows(beta1_pows, b1p, beta1)
        advance_pows(beta2_pows, b2p, beta2)


def nadam_update(params, grads, momentum_decay_pows, beta2_pows, mu_products, moment1s, moment2s, lrs, *, beta1,
                 beta2, epsilon, momentum_decay):
    """NAdam (parameter-shaped accumulators, as in Paddle): ``mdp *= 0.96``,
    ``mu = beta1*(1 - 0.5*mdp**momentum_decay)``, ``mu_next = beta1*(1 - 0.5*(0.96*mdp)**momentum_decay)``,
    ``mu_product *= mu``, ``b2p *= beta2``, Adam's moments, ``denom = sqrt(m2/(1-b2p)) + epsilon`` and
    ``param -= lr*(1-mu)/(1-mu_product) * g/denom + lr*mu_next/(1-mu_product*mu_next) * m1/denom``."""
    beta1, beta2 = float(beta1), float(beta2)
    acc = moment1s[0].dtype
    torch._foreach_mul_(momentum_decay_pows, 0.96)
    mu = torch._foreach_pow(momentum_decay_pows, float(momentum_decay))
    mu_next = torch._foreach_pow(torch._foreach_mul(momentum_decay_pows, 0.96), float(momentum_decay))
    for mus in (mu, mu_next):
        torch._foreach_mul_(mus, -0.5 * beta1)
        torch._foreach_add_(mus, beta1)
    torch._foreach_mul_(mu_products, mu)
    torch._foreach_mul_(beta2_pows, beta2)
    torch._foreach_lerp_(moment1s, grads, one_minus(beta1, acc))
    torch._foreach_mul_(moment2s, beta2)
    torch._foreach_addcmul_(moment2s, grads, grads, value=one_minus(beta2, acc))
    denom = torch._foreach_div(moment2s, torch._foreach_sub([torch.ones_like(b) for b in beta2_pows], beta2_pows))
    torch._foreach_sqrt_(denom)
    torch._foreach_add_(denom, float(epsilon))
    ones = [torch.ones_like(x) for x in mu]
    # (1 - mu) / (1 - mu_product) and mu_next / (1 - mu_product * mu_next), elementwise
    grad_coef = torch._foreach_div(torch._foreach_sub(ones, mu), torch._foreach_sub(ones, mu_products))
    momentum_coef = torch._foreach_div(mu_next, torch._foreach_sub(ones, torch._foreach_mul(mu_products, mu_next)))
    update = torch._foreach_mul(torch._foreach_div(grads, denom), grad_coef)
    torch._foreach_addcmul_(update, torch._foreach_div(moment1s, denom), momentum_coef)
    torch._foreach_mul_(update, [-lr for lr in lrs])
    torch._foreach_add_(params, update)


def radam_update(params, grads, beta1_pows, beta2_pows, rhos, moment1s, moment2s, lrs, *, beta1, beta2, epsilon):
    """RAdam (parameter-shaped accumulators, as in Paddle); ``rho`` holds ``t*beta2**t/(1-beta2**t)``, so
    ``rho_t = rho_inf - 2*rho`` with ``rho_inf = 2/(1-beta2) - 1``. While ``rho_t <= 5`` the step is
    ``lr * m1/(1-b1p)``; after it is rectified and scaled by ``sqrt(1-b2p)/(sqrt(m2) + epsilon)``."""
    beta1, beta2, epsilon = float(beta1), float(beta2), float(epsilon)
    acc = moment1s[0].dtype
    torch._foreach_mul_(beta1_pows, beta1)
    torch._foreach_mul_(beta2_pows, beta2)
    one_minus_b2p = torch._foreach_sub([torch.ones_like(b) for b in beta2_pows], beta2_pows)
    # rho = (rho * (beta2 - b2p) + b2p) / (1 - b2p)
    torch._foreach_mul_(rhos, torch._foreach_add(torch._foreach_neg(beta2_pows), beta2))
    torch._foreach_add_(rhos, beta2_pows)
    torch._foreach_div_(rhos, one_minus_b2p)
    torch._foreach_lerp_(moment1s, grads, one_minus(beta1, acc))
    torch._foreach_mul_(moment2s, beta2)
    torch._foreach_addcmul_(moment2s, grads, grads, value=one_minus(beta2, acc))
    rho_inf = 2.0 / one_minus(beta2, acc) - 1.0
    for w, b1p, rho, m1, m2, b2p_rest, lr in zip(params, beta1_pows, rhos, moment1s, moment2s, one_minus_b2p, lrs):
        m_hat = m1 / (1 - b1p)
        rho_t = rho_inf - 2 * rho
        rect = torch.sqrt(torch.clamp((rho_t - 4) * (rho_t - 2) * rho_inf
                                      / ((rho_inf - 4) * (rho_inf - 2) * rho_t), min=0))
        adaptive = torch.sqrt(b2p_rest) / (torch.sqrt(m2) + epsilon)
        w.sub_(lr * torch.where(rho_t > 5, m_hat * rect * adaptive, m_hat))


def asgd_update(params, grads, ds, ys, ns, lrs):
    """ASGD over the gradient that leaves the window: ``d += g - y``, ``y = g``, ``param -= lr / n * d``, with
    ``y`` the window slot being replaced and ``n`` how many gradients the window holds."""
    torch._foreach_sub_(ds, ys)
    torch._foreach_add_(ds, grads)
    for y, g in zip(ys, grads):
        y.copy_(g)
    sub_scaled_(params, ds, [lr / n for lr, n in zip(lrs, ns)])


def rprop_update(params, grads, prevs, learning_rates, *, learning_rate_range, etas):
    """Rprop per element, with ``s = g * prev``: ``s > 0`` grows the step size by ``etas[1]``, ``s < 0`` shrinks it
    by ``etas[0]`` and skips the update (the gradient counts as 0 for the next step); sizes stay within
    ``learning_rate_range``; ``param -= sign(g) * step``."""
    (low, high), (shrink, grow) = learning_rate_range, etas
    for w, g, prev, rates in zip(params, grads, prevs, learning_rates):
        product = g * prev
        factor = torch.where(product > 0, grow, torch.where(product < 0, shrink, 1.0)).to(rates.dtype)
        rates.mul_(factor).clamp_(low, high)
        g = torch.where(product < 0, torch.zeros_like(g), g)
        w.sub_(torch.sign(g) * rates)
        prev.copy_(g)


# -- the ops -----------------------------------------------------------------------------------------------
# An op updates its Param and accumulators in place (Paddle's ParamOut is the Param variable) and returns
# them. Under multi_precision the float32 MasterParam is updated and cast into Param.
def _lr(LearningRate):
    return float(LearningRate.reshape(-1)[0])


def _value(tensor, attr):
    """A hyper-parameter given as an optional tensor input (Beta1Tensor...) over its attribute."""
    return attr if tensor is None else float(tensor.reshape(-1)[0])


def _skip(SkipUpdate):
    return SkipUpdate is not None and bool(SkipUpdate.reshape(-1)[0])


def _target(Param, Grad, MasterParam, multi_precision):
    """The tensor the update works on (the master weight under multi_precision) and the grad in its dtype."""
    target = MasterParam if multi_precision and MasterParam is not None else Param
    return target, (Grad if Grad.dtype == target.dtype else Grad.to(target.dtype))


def _param_out(Param, target):
    if target is not Param:
        Param.copy_(target)
    return Param


def _host(t):
    """A NumPy view of a [1] accumulator; a copy when it is not on the CPU (``_sync`` writes that back)."""
    t = t.detach().reshape(-1)
    return t.numpy() if t.device.type == "cpu" else t.cpu().numpy()


def _sync(t, view):
    if t.device.type != "cpu":
        t.copy_(torch.from_numpy(view).reshape(t.shape))


_MP = {"multi_precision": False}


@op("sgd", inputs=["Param", "LearningRate", "Grad", "MasterParam?"], outputs=["ParamOut", "MasterParamOut?"],
    attrs=_MP, differentiable=False)
def sgd(Param, LearningRate, Grad, MasterParam, *, multi_precision):
    target, grad = _target(Param, Grad, MasterParam, multi_precision)
    sgd_update([target], [grad], [_lr(LearningRate)])
    return _param_out(Param, target), MasterParam


@op("momentum", inputs=["Param", "Grad", "Velocity", "LearningRate", "MasterParam?"],
    outputs=["ParamOut", "VelocityOut", "MasterParamOut?"],
    attrs={"mu": REQUIRED, "use_nesterov": False, "regularization_method": "", "regularization_coeff": 0.0,
           "multi_precision": False, "rescale_grad": 1.0}, differentiable=False)
def momentum(Param, Grad, Velocity, LearningRate, MasterParam, *, mu, use_nesterov, regularization_method,
             regularization_coeff, multi_precision, rescale_grad):
    target, grad = _target(Param, Grad, MasterParam, multi_precision)
    coeff = regularization_coeff if regularization_method == "l2_decay" else 0.0
    momentum_update([target], [grad], [Velocity], [_lr(LearningRate)], mu=mu, use_nesterov=use_nesterov,
                    rescale_grad=rescale_grad, l2_coeffs=[coeff])
    return _param_out(Param, target), Velocity, MasterParam


@op("lars_momentum", inputs=["Param[]", "Grad[]", "Velocity[]", "LearningRate[]", "MasterParam[]?"],
    outputs=["ParamOut[]", "VelocityOut[]", "MasterParamOut[]?"],
    attrs={"mu": REQUIRED, "lars_coeff": 0.001, "lars_weight_decay": [0.0005], "epsilon": 0.0,
           "multi_precision": False, "rescale_grad": 1.0}, differentiable=False)
def lars_momentum(Param, Grad, Velocity, LearningRate, MasterParam, *, mu, lars_coeff, lars_weight_decay, epsilon,
                  multi_precision, rescale_grad):
    masters = MasterParam if multi_precision and MasterParam else [None] * len(Param)
    pairs = [_target(p, g, m, multi_precision) for p, g, m in zip(Param, Grad, masters)]
    decays = list(lars_weight_decay)
    if len(decays) == 1 and len(Param) > 1:
        decays = decays * len(Param)
    if len(decays) != len(Param):
        raise ValueError(f"lars_momentum: lars_weight_decay has {len(decays)} values for {len(Param)} parameters")
    lars_momentum_update([t for t, _ in pairs], [g for _, g in pairs], list(Velocity),
                         [_lr(lr) for lr in LearningRate], mu=mu, lars_coeff=lars_coeff, lars_weight_decays=decays,
                         epsilon=epsilon, rescale_grad=rescale_grad)
    return [_param_out(p, t) for p, (t, _) in zip(Param, pairs)], list(Velocity), list(MasterParam or [])


_ADAM_INPUTS = ["Param", "Grad", "LearningRate", "Moment1", "Moment2", "Moment2Max?", "Beta1Pow", "Beta2Pow",
                "MasterParam?", "SkipUpdate?", "Beta1Tensor?", "Beta2Tensor?", "EpsilonTensor?"]
_ADAM_OUTPUTS = ["ParamOut", "Moment1Out", "Moment2Out", "Moment2MaxOut?", "Beta1PowOut", "Beta2PowOut",
                 "MasterParamOut?"]
_ADAM_ATTRS = {"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8, "lazy_mode": False,
               "min_row_size_to_use_multithread": 1000, "multi_precision": False, "use_global_beta_pow": False,
               "amsgrad": False}


def _adam_op(Param, Grad, LearningRate, Moment1, Moment2, Moment2Max, Beta1Pow, Beta2Pow, MasterParam, SkipUpdate,
             Beta1Tensor, Beta2Tensor, EpsilonTensor, beta1, beta2, epsilon, multi_precision, use_global_beta_pow,
             amsgrad, lr_ratio=1.0, decay=0.0):
    outs = (Param, Moment1, Moment2, Moment2Max, Beta1Pow, Beta2Pow, MasterParam)
    if _skip(SkipUpdate):
        return outs
    target, grad = _target(Param, Grad, MasterParam, multi_precision)
    b1, b2 = _host(Beta1Pow), _host(Beta2Pow)
    lr = _lr(LearningRate) * lr_ratio
    adam_update([target], [grad], [Moment1], [Moment2], [Moment2Max] if amsgrad and Moment2Max is not None else None,
                [b1], [b2], [lr], beta1=_value(Beta1Tensor, beta1), beta2=_value(Beta2Tensor, beta2),
                epsilon=_value(EpsilonTensor, epsilon), decays=[decay] if decay else None,
                advance=not use_global_beta_pow)
    _sync(Beta1Pow, b1)
    _sync(Beta2Pow, b2)
    _param_out(Param, target)
    return outs


@op("adam", inputs=_ADAM_INPUTS, outputs=_ADAM_OUTPUTS, attrs=_ADAM_ATTRS, differentiable=False)
def adam(Param, Grad, LearningRate, Moment1, Moment2, Moment2Max, Beta1Pow, Beta2Pow, MasterParam, SkipUpdate,
         Beta1Tensor, Beta2Tensor, EpsilonTensor, *, beta1, beta2, epsilon, lazy_mode, min_row_size_to_use_multithread,
         multi_precision, use_global_beta_pow, amsgrad):
    return _adam_op(Param, Grad, LearningRate, Moment1, Moment2, Moment2Max, Beta1Pow, Beta2Pow, MasterParam,
                    SkipUpdate, Beta1Tensor, Beta2Tensor, EpsilonTensor, beta1, beta2, epsilon, multi_precision,
                    use_global_beta_pow, amsgrad)


@op("adamw", inputs=_ADAM_INPUTS, outputs=_ADAM_OUTPUTS,
    attrs=dict(_ADAM_ATTRS, lr_ratio=1.0, coeff=0.01, with_decay=False), differentiable=False)
def adamw(Param, Grad, LearningRate, Moment1, Moment2, Moment2Max, Beta1Pow, Beta2Pow, MasterParam, SkipUpdate,
          Beta1Tensor, Beta2Tensor, EpsilonTensor, *, beta1, beta2, epsilon, lazy_mode, min_row_size_to_use_multithread,
          multi_precision, use_global_beta_pow, amsgrad, lr_ratio, coeff, with_decay):
    """Adam after ``param *= 1 - lr*lr_ratio*coeff`` (when ``with_decay``); the step uses ``lr*lr_ratio``."""
    return _adam_op(Param, Grad, LearningRate, Moment1, Moment2, Moment2Max, Beta1Pow, Beta2Pow, MasterParam,
                    SkipUpdate, Beta1Tensor, Beta2Tensor, EpsilonTensor, beta1, beta2, epsilon, multi_precision,
                    use_global_beta_pow, amsgrad, lr_ratio=lr_ratio, decay=coeff if with_decay else 0.0)


@op("adamax", inputs=["Param", "Grad", "LearningRate", "Moment", "InfNorm", "Beta1Pow", "MasterParam?"],
    outputs=["ParamOut", "MomentOut", "InfNormOut", "MasterParamOut?"],
    attrs={"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8, "multi_precision": False}, differentiable=False)
def adamax(Param, Grad, LearningRate, Moment, InfNorm, Beta1Pow, MasterParam, *, beta1, beta2, epsilon,
           multi_precision):
    target, grad = _target(Param, Grad, MasterParam, multi_precision)
    adamax_update([target], [grad], [Moment], [InfNorm], [_host(Beta1Pow)], [_lr(LearningRate)], beta1=beta1,
                  beta2=beta2, epsilon=epsilon)
    return _param_out(Param, target), Moment, InfNorm, MasterParam


@op("adagrad", inputs=["Param", "Grad", "Moment", "LearningRate", "MasterParam?"],
    outputs=["ParamOut", "MomentOut", "MasterParamOut?"], attrs={"epsilon": 1e-6, "multi_precision": False},
    differentiable=False)
def adagrad(Param, Grad, Moment, LearningRate, MasterParam, *, epsilon, multi_precision):
    target, grad = _target(Param, Grad, MasterParam, multi_precision)
    adagrad_update([target], [grad], [Moment], [_lr(LearningRate)], epsilon=epsilon)
    return _param_out(Param, target), Moment, MasterParam


@op("adadelta", inputs=["Param", "Grad", "AvgSquaredGrad", "AvgSquaredUpdate", "LearningRate", "MasterParam?"],
    outputs=["ParamOut", "AvgSquaredGradOut", "AvgSquaredUpdateOut", "MasterParamOut?"],
    attrs={"rho": 0.95, "epsilon": 1e-6, "multi_precision": False}, differentiable=False)
def adadelta(Param, Grad, AvgSquaredGrad, AvgSquaredUpdate, LearningRate, MasterParam, *, rho, epsilon,
             multi_precision):
    target, grad = _target(Param, Grad, MasterParam, multi_precision)
    adadelta_update([target], [grad], [AvgSquaredGrad], [AvgSquaredUpdate], [_lr(LearningRate)], rho=rho,
                    epsilon=epsilon)
    return _param_out(Param, target), AvgSquaredGrad, AvgSquaredUpdate, MasterParam


@op("rmsprop", inputs=["Param", "MeanSquare", "Grad", "Moment", "LearningRate", "MeanGrad?", "MasterParam?"],
    outputs=["ParamOut", "MomentOut", "MeanSquareOut", "MeanGradOut", "MasterParamOut?"],
    attrs={"epsilon": 1e-10, "decay": 0.9, "momentum": 0.0, "centered": False, "multi_precision": False},
    differentiable=False)
def rmsprop(Param, MeanSquare, Grad, Moment, LearningRate, MeanGrad, MasterParam, *, epsilon, decay, momentum,
            centered, multi_precision):
    if centered and MeanGrad is None:
        raise ValueError("rmsprop: centered=True needs the MeanGrad input")
    target, grad = _target(Param, Grad, MasterParam, multi_precision)
    rmsprop_update([target], [grad], [MeanSquare], [Moment], [MeanGrad], [_lr(LearningRate)], rho=decay,
                   epsilon=epsilon, momentum=momentum, centered=centered)
    return _param_out(Param, target), Moment, MeanSquare, MeanGrad, MasterParam


@op("lamb", inputs=["Param", "Grad", "LearningRate", "Moment1", "Moment2", "Beta1Pow", "Beta2Pow", "MasterParam?",
                    "SkipUpdate?"],
    outputs=["ParamOut", "Moment1Out", "Moment2Out", "Beta1PowOut?", "Beta2PowOut?", "MasterParamOut?"],
    attrs={"weight_decay": REQUIRED, "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-6, "always_adapt": False,
           "multi_precision": False}, differentiable=False)
def lamb(Param, Grad, LearningRate, Moment1, Moment2, Beta1Pow, Beta2Pow, MasterParam, SkipUpdate, *, weight_decay,
         beta1, beta2, epsilon, always_adapt, multi_precision):
    outs = (Param, Moment1, Moment2, Beta1Pow, Beta2Pow, MasterParam)
    if _skip(SkipUpdate):
        return outs
    target, grad = _target(Param, Grad, MasterParam, multi_precision)
    b1, b2 = _host(Beta1Pow), _host(Beta2Pow)
    lamb_update([target], [grad], [Moment1], [Moment2], [b1], [b2], [_lr(LearningRate)], beta1=beta1, beta2=beta2,
                epsilon=epsilon, weight_decays=[weight_decay], always_adapt=always_adapt)
    _sync(Beta1Pow, b1)
    _sync(Beta2Pow, b2)
    _param_out(Param, target)
    return outs


@op("nadam", inputs=["param", "grad", "learning_rate", "momentum_decay_pow", "beta2_pow", "mu_product", "moment1",
                     "moment2", "master_param?"],
    outputs=["param_out", "momentum_decay_pow_out", "beta2_pow_out", "mu_product_out", "moment1_out", "moment2_out",
             "master_param_out?"],
    attrs={"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8, "momentum_decay": 0.004, "multi_precision": False},
    differentiable=False)
def nadam(param, grad, learning_rate, momentum_decay_pow, beta2_pow, mu_product, moment1, moment2, master_param, *,
          beta1, beta2, epsilon, momentum_decay, multi_precision):
    target, grad = _target(param, grad, master_param, multi_precision)
    nadam_update([target], [grad], [momentum_decay_pow], [beta2_pow], [mu_product], [moment1], [moment2],
                 [_lr(learning_rate)], beta1=beta1, beta2=beta2, epsilon=epsilon, momentum_decay=momentum_decay)
    return _param_out(param, target), momentum_decay_pow, beta2_pow, mu_product, moment1, moment2, master_param


@op("radam", inputs=["param", "grad", "learning_rate", "beta1_pow", "beta2_pow", "rho", "moment1", "moment2",
                     "master_param?"],
    outputs=["param_out", "beta1_pow_out", "beta2_pow_out", "rho_out", "moment1_out", "moment2_out",
             "master_param_out?"],
    attrs={"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8, "multi_precision": False}, differentiable=False)
def radam(param, grad, learning_rate, beta1_pow, beta2_pow, rho, moment1, moment2, master_param, *, beta1, beta2,
          epsilon, multi_precision):
    target, grad = _target(param, grad, master_param, multi_precision)
    radam_update([target], [grad], [beta1_pow], [beta2_pow], [rho], [moment1], [moment2], [_lr(learning_rate)],
                 beta1=beta1, beta2=beta2, epsilon=epsilon)
    return _param_out(param, target), beta1_pow, beta2_pow, rho, moment1, moment2, master_param


@op("asgd", inputs=["param", "grad", "learning_rate", "d", "y", "n", "master_param?"],
    outputs=["param_out", "d_out", "y_out", "master_param_out?"], attrs=_MP, differentiable=False)
def asgd(param, grad, learning_rate, d, y, n, master_param, *, multi_precision):
    """``y`` is the window slot being replaced; ``y_out`` is a new tensor (the program writes it back)."""
    target, grad = _target(param, grad, master_param, multi_precision)
    slot = y.clone()
    asgd_update([target], [grad], [d], [slot], [float(n.reshape(-1)[0])], [_lr(learning_rate)])
    return _param_out(param, target), d, slot, master_param


@op("rprop", inputs=["param", "grad", "prev", "learning_rate", "master_param?", "learning_rate_range", "etas"],
    outputs=["param_out", "prev_out", "learning_rate_out", "master_param_out?"], attrs=_MP, differentiable=False)
def rprop(param, grad, prev, learning_rate, master_param, learning_rate_range, etas, *, multi_precision):
    target, grad = _target(param, grad, master_param, multi_precision)
    bounds, factors = learning_rate_range.reshape(-1).tolist(), etas.reshape(-1).tolist()
    rprop_update([target], [grad], [prev], [learning_rate], learning_rate_range=bounds[:2], etas=factors[:2])
    return _param_out(param, target), prev, learning_rate, master_param


# -- gradient clipping (what static ClipGradByNorm / ClipGradByGlobalNorm emit) -----------------------------
@op("squared_l2_norm", inputs=["X"], outputs=["Out"])
def squared_l2_norm(X):
    """The sum of squares of X, shaped [1] as in Paddle."""
    return torch.sum(X * X).reshape(1)


@op("clip_by_norm", inputs=["X"], outputs=["Out"], attrs={"max_norm": REQUIRED}, differentiable=False)
def clip_by_norm(X, *, max_norm):
    """X scaled to L2 norm ``max_norm`` when its norm is larger, else X."""
    norm = torch.linalg.vector_norm(X, dtype=torch.float32 if X.dtype in (torch.float16, torch.bfloat16) else None)
    scale = torch.where(norm > max_norm, max_norm / norm, torch.ones_like(norm))
    return X * scale.to(X.dtype)

"""paddle.optimizer.LBFGS: limited-memory BFGS, driven by ``step(closure)``.

The closure re-evaluates the loss (clearing gradients and calling backward itself) and returns it. As in
Paddle, ``weight_decay`` and ``grad_clip`` are accepted but not applied, and with parameter groups only the last
group's parameters are optimized. ``state_dict()`` is ``{"state": {...}}`` with Paddle's keys (d, alpha, old_yk,
old_sk, ro, H_diag, prev_flat_grad, prev_loss, al, func_evals, n_iter); unlike Paddle (where loading is a
no-op), ``set_state_dict`` restores it. The strong-Wolfe line search is torch's, which Paddle's is a port of.
"""
import torch
from torch.optim.lbfgs import _strong_wolfe

from ..framework.tensor import Tensor, wrap
from .optimizer import Optimizer

__all__ = ["LBFGS"]

_TENSOR_KEYS = ("d", "H_diag", "prev_flat_grad")
_LIST_KEYS = ("old_yk", "old_sk", "ro", "al")


def _dot(x, y):
    # NOTE: Paddle's LBFGS takes dot products as (x * y).sum(); torch.dot rounds differently
    return (x * y).sum(-1)


def _value(loss):
    t = loss._t if isinstance(loss, Tensor) else loss
    return float(t.detach().reshape(-1)[0]) if isinstance(t, torch.Tensor) else float(t)


class LBFGS(Optimizer):
    def __init__(self, learning_rate=1.0, max_iter=20, max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9,
                 history_size=100, line_search_fn=None, parameters=None, weight_decay=None, grad_clip=None,
                 name=None):
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.max_eval = max_eval
        self.tolerance_grad = tolerance_grad
        self.tolerance_change = tolerance_change
        self.history_size = history_size
        self.line_search_fn = line_search_fn
        self.state = {}
        super().__init__(learning_rate=1.0, parameters=parameters, weight_decay=weight_decay, grad_clip=grad_clip,
                         name=name)
        if self._parameter_list and isinstance(self._parameter_list[0], dict):
            self._params = self._param_groups[-1]["params"]
        else:
            self._params = self._parameter_list
        self._numel_cache = None

    # -- helpers over the flat parameter vector ---------------------------------------------------------
    def _numel(self):
        if self._numel_cache is None:
            self._numel_cache = sum(p._t.numel() for p in self._params)
        return self._numel_cache

    def _gather_flat_grad(self):
        return torch.cat([p._t.new_zeros(p._t.numel()) if p._t.grad is None else p._t.grad.reshape(-1)
                          for p in self._params])

    def _add_grad(self, alpha, direction):
        offset = 0
        for p in self._params:
            t = p._t
            numel = t.numel()
            t.add_(direction[offset:offset + numel].view_as(t) * alpha)
            offset += numel

    def _clone_param(self):
        return [p._t.clone() for p in self._params]

    def _set_param(self, data):
        for p, value in zip(self._params, data):
            p._t.copy_(value)

    def _directional_evaluate(self, closure, x, alpha, d):
        self._add_grad(alpha, d)
        loss = _value(closure())
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    # -- the step -------------------------------------------------------------------------------------------
    def step(self, closure):
        """Run up to ``max_iter`` L-BFGS iterations; returns the loss of the first closure call."""
        if not callable(closure):
            raise TypeError(f"LBFGS.step: closure must be callable, got {type(closure).__name__}")

        def evaluate():
            with torch.enable_grad():
                return closure()

        with torch.no_grad():
            return self._step(evaluate)

    def _step(self, closure):
        lr, tolerance_change = self.learning_rate, self.tolerance_change
        state = self.state
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        orig_loss = closure()
        loss = _value(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if flat_grad.abs().max() <= self.tolerance_grad:
            return orig_loss
        d, alpha = state.get("d"), state.get("alpha")
        old_yk, old_sk, ro = state.get("old_yk"), state.get("old_sk"), state.get("ro")
        h_diag, prev_flat_grad, prev_loss = state.get("H_diag"), state.get("prev_flat_grad"), state.get("prev_loss")
        n_iter = 0
        while n_iter < self.max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = flat_grad.neg()
                old_yk, old_sk, ro = [], [], []
                h_diag = torch.tensor(1.0, dtype=flat_grad.dtype, device=flat_grad.device)
            else:
                y = flat_grad - prev_flat_grad
                s = d * alpha
                ys = _dot(y, s)
                if ys > 1e-10:
                    if len(old_yk) == self.history_size:
                        old_yk.pop(0)
                        old_sk.pop(0)
                        ro.pop(0)
                    old_yk.append(y)
                    old_sk.append(s)
                    ro.append(1.0 / ys)
                    h_diag = ys / _dot(y, y)
                al = state.setdefault("al", [None] * self.history_size)
                q = flat_grad.neg()
                for i in range(len(old_yk) - 1, -1, -1):
                    al[i] = _dot(old_sk[i], q) * ro[i]
                    q.add_(old_yk[i] * -al[i])
                d = r = q * h_diag
                for i in range(len(old_yk)):
                    be_i = _dot(old_yk[i], r) * ro[i]
                    r.add_(old_sk[i] * (al[i] - be_i))
            prev_flat_grad = flat_grad.clone() if prev_flat_grad is None else prev_flat_grad.copy_(flat_grad)
            prev_loss = loss
            if state["n_iter"] == 1:
                alpha = min(1.0, 1.0 / float(flat_grad.abs().sum())) * lr
            else:
                alpha = lr
            gtd = _dot(flat_grad, d)
            if gtd > -tolerance_change:
                break
            ls_func_evals = 0
            if self.line_search_fn is not None:
                if self.line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = self._clone_param()

                def obj_func(x, t, direction):
                    return self._directional_evaluate(closure, x, t, direction)

                loss, flat_grad, alpha, ls_func_evals = _strong_wolfe(obj_func, x_init, alpha, d, loss, flat_grad,
                                                                      gtd)
                self._add_grad(alpha, d)
                opt_cond = flat_grad.abs().max() <= self.tolerance_grad
            else:
                self._add_grad(alpha, d)
                opt_cond = False
                if n_iter != self.max_iter:
                    loss = _value(closure())
                    flat_grad = self._gather_flat_grad()
                    opt_cond = flat_grad.abs().max() <= self.tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals
            if opt_cond or (d * alpha).abs().max() <= tolerance_change or abs(loss - prev_loss) < tolerance_change:
                break
            if current_evals >= self.max_eval or n_iter == self.max_iter:
                break
        state.update(d=d, alpha=alpha, old_yk=old_yk, old_sk=old_sk, ro=ro, H_diag=h_diag,
                     prev_flat_grad=prev_flat_grad, prev_loss=prev_loss)
        return orig_loss

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        raise NotImplementedError("LBFGS optimizer does not use this way to minimize loss. Please refer 'Examples' "
                                  "of LBFGS() for usage.")

    # -- state --------------------------------------------------------------------------------------------
    def state_dict(self):
        def out(value):
            if isinstance(value, torch.Tensor):
                return wrap(value)
            if isinstance(value, list):
                return [out(v) for v in value]
            return value
        return {"state": {key: out(value) for key, value in self.state.items()}}

    def set_state_dict(self, state_dict):
        if not isinstance(state_dict, dict) or not isinstance(state_dict.get("state"), dict):
            raise TypeError("LBFGS.set_state_dict: expected {'state': {...}} as returned by LBFGS.state_dict()")

        def into(value):
            if isinstance(value, Tensor):
                return value._t.detach().clone()
            if isinstance(value, list):
                return [into(v) for v in value]
            return value
        self.state = {key: into(value) for key, value in state_dict["state"].items()}

    load_state_dict = set_state_dict

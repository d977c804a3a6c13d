"""A ``<type>_grad`` op run on its own: the Executor's per-op backward.

A grad op reads what its OpDesc names: the forward op's inputs (``X``, ``Y``), its outputs (``Out``) and their
gradients (``Out@GRAD``); it writes the gradients of the inputs (``X@GRAD``). Its kernel is the op's registered
gradient (``@op.grad``), else the vjp of the forward kernel recomputed on those inputs. Each write is the
gradient through this op alone: a variable read by two ops gets two grad ops, and what adds them up is the
program's business (``sum`` ops, see backward.py), as in Paddle.

Paddle's grad ops carry only the slots their kernels read (``relu_grad`` has ``Out`` but no ``X``,
``reshape2_grad`` has ``XShape``); a slot the OpDesc lacks is taken from the matching forward op of its block.
"""
import torch

from ..framework.program import GRAD_SUFFIX, Operator
from ..ops.registry import REGISTRY, REQUIRED

__all__ = ["GradOpStep", "forward_name", "keep_for_recompute"]

_EMPTY = "@EMPTY@"   # Paddle's name for "no gradient here" in a list slot
# forward kernels that draw random numbers without a ``seed`` attribute; a recompute of one (or of an op with
# a ``seed`` it does not fix) replays the generator state its forward started from
_RANDOM = {"gumbel_softmax", "alpha_dropout", "rrelu"}
# control-flow ops -> (input slot, output slot): their "kernel" is the executor's step of their sub-block
_SUB_BLOCK_OPS = {"conditional_block": ("Input", "Out"), "pylayer": ("Ins", "Outs"), "while": ("X", "Out")}


def _key(forward, what):
    return f"{forward.output_arg_names[0] if forward.output_arg_names else forward.type}@{what}"


def forward_name(grad_name):
    """``x@GRAD`` (or ``x@GRAD_1``, ``x@GRAD@RENAME@block0@1``) -> ``x``."""
    name = grad_name.split("@RENAME@", 1)[0]
    return name[:name.rindex(GRAD_SUFFIX)]


def _is_floating(t):
    return t.is_floating_point() or t.is_complex()


def _find_forward(op, forward_type):
    """The last op of type ``forward_type`` before ``op`` in its block whose slots agree with ``op``'s."""
    block = op.block
    found = None
    for other in block.ops:
        if other is op:
            break
        if other.type != forward_type:
            continue
        ok = True
        for slot, names in op.inputs.items():
            if slot.endswith(GRAD_SUFFIX):
                fwd = other.outputs.get(slot[:-len(GRAD_SUFFIX)])
                ok = fwd is not None and all(forward_name(n) in fwd for n in names if GRAD_SUFFIX in n)
            elif slot in other.inputs or slot in other.outputs:
                ok = names == other.inputs.get(slot, other.outputs.get(slot))
            if not ok:
                break
        for slot, names in op.outputs.items():
            fwd = other.inputs.get(slot[:-len(GRAD_SUFFIX)]) if slot.endswith(GRAD_SUFFIX) else None
            if ok and fwd is not None:
                ok = all(forward_name(n) in fwd for n in names if n != _EMPTY and GRAD_SUFFIX in n)
        if ok:
            found = other
    return found


def _align(grad_names, forward_names):
    """Grad names of a slot -> aligned with the slot's forward names (None where none)."""
    if forward_names is None or len(grad_names) == len(forward_names):
        return [None if n == _EMPTY or not n else n for n in grad_names]
    out = [None] * len(forward_names)
    for g in grad_names:
        if g == _EMPTY or not g:
            continue
        fwd = forward_name(g)
        for i, n in enumerate(forward_names):
            if n == fwd and out[i] is None:
                out[i] = g
                break
        else:
            raise ValueError(f"Executor: the gradient {g!r} matches no variable of its forward slot {forward_names}")
    return out


class GradOpStep:
    """One grad op: ``__call__(env)`` reads its slots from ``env`` and writes its gradients there."""

    def __init__(self, op, make_step=None):
        self.op = op
        forward_type = op.type[:-len("_grad")]
        d = REGISTRY.get(forward_type)
        if d is None and forward_type not in _SUB_BLOCK_OPS:
            raise NotImplementedError(f"Executor: grad op {op.type!r} (in block {op.block.idx}) cannot run on its "
                                      "own in torchpaddle")
        self.d = d
        self._forward = None
        self._looked = False
        # (forward op, key, keep(env, reads)): what the forward's step keeps for this op's recompute
        self.keeps = None
        if d is None:
            self._init_sub_block(op, forward_type, make_step)
            return
        self.in_names = [self._names(s.name, is_output=False) for s in d.inputs]
        self.out_names = [self._names(s.name, is_output=True) for s in d.outputs]
        # the attributes: the grad op's, else its forward op's, else the op's defaults
        self.attrs = {}
        for k, default in d.attrs.items():
            if k in op.attrs:
                self.attrs[k] = op.attrs[k]
            elif self._forward_op() is not None and k in self._forward_op().attrs:
                self.attrs[k] = self._forward_op().attrs[k]
            elif default is REQUIRED:
                raise ValueError(f"Executor: grad op {op.type} (in block {op.block.idx}) lacks the attribute {k!r}")
            else:
                self.attrs[k] = list(default) if isinstance(default, list) else default
        # where each input's gradient goes, and each output's gradient comes from
        self.results = [_align(op.outputs.get(s.name + GRAD_SUFFIX, []), names)
                        for s, names in zip(d.inputs, self.in_names)]
        self.seeds = [_align(op.inputs.get(s.name + GRAD_SUFFIX, []), names)
                      for s, names in zip(d.outputs, self.out_names)]
        slots = {s.name: names for s, names in zip(d.inputs + d.outputs, self.in_names + self.out_names)}
        optional = {s.name for s in d.inputs if s.optional}
        self.registered = d.grad_kernel is not None and all(slots.get(u) is not None or u in optional
                                                            for u in d.grad_uses)
        self.uses = [(u, slots.get(u), self._is_list(u)) for u in d.grad_uses] if self.registered else []
        self.needs = tuple(s.name for s, results in zip(d.inputs, self.results) if any(results))
        if not self.registered:
            self._check_recompute(forward_type)
        # inputs a kernel updates in place (running statistics named as outputs): a recompute works on copies
        produced = {n for names in self.out_names if names for n in names}
        self.copied = {n for names in self.in_names if names for n in names if n in produced}
        reads = [n for names in self.in_names if names for n in names]
        reads += [n for _, names, _ in self.uses if names for n in names]
        reads += [n for seeds in self.seeds for n in seeds if n]
        if self.keeps is not None:
            reads.append(self.keeps[1])
        self.reads = list(dict.fromkeys(reads))
        self.writes = [n for names in self.results for n in names if n]
        self.call = self._registered if self.registered else self._vjp

    # -- building ----------------------------------------------------------------------------------------------
    def _forward_op(self):
        if not self._looked:
            self._looked = True
            self._forward = _find_forward(self.op, self.op.type[:-len("_grad")])
        return self._forward

    def _names(self, slot, is_output):
        """The forward variables of ``slot``: from the grad op, else from its forward op; None when unknown."""
        if slot in self.op.inputs:
            return list(self.op.inputs[slot])
        forward = self._forward_op()
        if forward is None:
            return None
        found = (forward.outputs if is_output else forward.inputs).get(slot)
        return list(found) if found is not None else []

    def _is_list(self, slot):
        return any(s.name == slot and s.is_list for s in self.d.inputs + self.d.outputs)

    def _check_recompute(self, forward_type):
        """Refuse a grad op whose forward kernel cannot be recomputed from the slots it has."""
        op = self.op
        for s, names in zip(self.d.inputs, self.in_names):
            if names is None and not s.optional:
                raise NotImplementedError(
                    f"Executor: grad op {op.type} (in block {op.block.idx}) lacks the forward input {s.name} and no "
                    f"{forward_type} op of its block matches it; it cannot run on its own")
        attrs = self.attrs
        # a Seed input (recompute's seed op) fixes the draw as fix_seed does
        seeded = any(s.name == "Seed" and names for s, names in zip(self.d.inputs, self.in_names))
        draws = (forward_type in _RANDOM or "seed" in attrs and not attrs.get("fix_seed") and not seeded) and \
            not attrs.get("is_test") and attrs.get("dropout_prob", 1.0) > 0
        if draws:
            forward = self._forward_op()
            if forward is None:
                raise NotImplementedError(f"Executor: grad op {op.type} cannot run on its own: its forward op draws "
                                          f"random numbers, and no {forward_type} op of its block matches it to "
                                          "replay them")
            self.keeps = (forward, _key(forward, "RNG_STATE"), _rng_state)

    def _init_sub_block(self, op, forward_type, make_step):
        """conditional_block_grad / pylayer_grad / while_grad: the vjp of the forward op's step, run again on a
        copy of the run's values (a while loop from the values its forward started from)."""
        in_slot, out_slot = _SUB_BLOCK_OPS[forward_type]
        forward = self._forward_op()
        if forward is None:
            if forward_type == "while":
                raise NotImplementedError(f"Executor: grad op while_grad (in block {op.block.idx}) matches no while op "
                                          "of its block; it cannot run on its own")
            # the grad op carries the forward's slots: rebuild the forward op from them
            ins = {k: v for k, v in op.inputs.items() if not k.endswith(GRAD_SUFFIX) and k != out_slot}
            forward = Operator(op.block, forward_type, ins, {out_slot: op.inputs.get(out_slot, [])}, op.attrs)
        self.sub_step = make_step(forward)
        inputs = forward.inputs.get(in_slot, [])
        outputs = forward.outputs.get(out_slot, [])
        self.sub_inputs = inputs
        self.sub_results = _align(op.outputs.get(in_slot + GRAD_SUFFIX, []), inputs)
        self.sub_outputs = outputs
        self.sub_seeds = _align(op.inputs.get(out_slot + GRAD_SUFFIX, []), outputs)
        reads = list(self.sub_step.reads) + [n for n in self.sub_seeds if n]
        if forward_type == "while":
            # the loop rewrites its variables in place: keep the values it starts from
            self.keeps = (forward, _key(forward, "WHILE_INPUTS"), _inputs)
            reads.append(self.keeps[1])
        self.reads = list(dict.fromkeys(reads))
        self.writes = [n for n in self.sub_results if n]
        self.call = self._sub_block_vjp

    # -- running -----------------------------------------------------------------------------------------------
    def __call__(self, env):
        self.call(env)

    def _seed_pairs(self, env, outs):
        """(output values, their gradients) for the outputs whose gradient this grad op is given."""
        targets, grads = [], []
        for seeds, value in zip(self.seeds, outs):
            values = value if isinstance(value, (list, tuple)) else [value]
            for v, g in zip(values, seeds):
                gv = env.get(g) if g else None
                if gv is None or v is None or not v.requires_grad:
                    continue
                if gv.dtype != v.dtype:
                    gv = gv.to(v.dtype)
                if gv.shape != v.shape:
                    gv = gv.reshape(v.shape)
                targets.append(v)
                grads.append(gv)
        return targets, grads

    def _vjp(self, env):
        args, leaves, where = [], [], []
        for names, results, s in zip(self.in_names, self.results, self.d.inputs):
            if not names:
                args.append([] if s.is_list and names is not None else None)
                continue
            values = []
            for i, n in enumerate(names):
                v = env[n]   # None: the output of a conditional block that did not run (select_input's X)
                target = results[i] if i < len(results) else None
                if target is not None and v is not None and _is_floating(v):
                    v = v.detach().requires_grad_()
                    leaves.append(v)
                    where.append(target)
                elif v is not None and n in self.copied:
                    v = v.clone()
                values.append(v)
            args.append(values if s.is_list else values[0])
        with torch.enable_grad():
            if self.keeps is None:
                out = self.d.call_kernel(*args, **self.attrs)
            else:   # a random forward: the draws it made
                out = _replayed(env[self.keeps[1]], self.d.call_kernel, args, self.attrs)
        outs = (out,) if len(self.d.outputs) == 1 else out
        targets, grads = self._seed_pairs(env, outs)
        found = (torch.autograd.grad(targets, leaves, grads, allow_unused=True) if targets and leaves
                 else [None] * len(leaves))
        for name, leaf, g in zip(where, leaves, found):
            env[name] = torch.zeros_like(leaf) if g is None else g

    def _registered(self, env):
        kwargs = dict(self.attrs)
        for use, names, is_list in self.uses:
            if not names:
                kwargs[use] = [] if is_list and names is not None else None
            else:
                # None: the forward left an output unset (dropout's Mask when is_test)
                kwargs[use] = [env.get(n) for n in names] if is_list else env.get(names[0])
        for s, seeds in zip(self.d.outputs, self.seeds):
            values = [env.get(g) if g else None for g in seeds]
            kwargs[s.name + "_grad"] = values if s.is_list else (values[0] if values else None)
        if self.d.grad_needs:
            kwargs["needs"] = self.needs
        result = self.d.grad_kernel(**kwargs)
        if result is None:   # the registered gradient declines these arguments: recompute
            self._vjp(env)
            return
        for s, names, results in zip(self.d.inputs, self.in_names, self.results):
            g = result.get(s.name)
            grads = g if s.is_list else [g]
            for i, target in enumerate(results):
                if target is None:
                    continue
                value = grads[i] if grads is not None and i < len(grads) else None
                if value is None:
                    base = env.get(names[i]) if names else None
                    if base is None:
                        continue
                    value = torch.zeros_like(base)
                env[target] = value

    def _sub_block_vjp(self, env):
        local = dict(env)
        if self.keeps is not None:
            local.update(env[self.keeps[1]])
        leaves, where = [], []
        for n, target in zip(self.sub_inputs, self.sub_results):
            v = local.get(n)
            if target is not None and v is not None and _is_floating(v):
                v = local[n] = v.detach().requires_grad_()
                leaves.append(v)
                where.append(target)
        with torch.enable_grad():
            self.sub_step(local)
        targets, grads = [], []
        for n, g in zip(self.sub_outputs, self.sub_seeds):
            v, gv = local.get(n), env.get(g) if g else None
            if v is not None and gv is not None and v.requires_grad:
                targets.append(v)
                grads.append(gv.to(v.dtype).reshape(v.shape))
        found = (torch.autograd.grad(targets, leaves, grads, allow_unused=True) if targets and leaves
                 else [None] * len(leaves))
        for name, leaf, g in zip(where, leaves, found):
            env[name] = torch.zeros_like(leaf) if g is None else g


# -- what a recompute needs from its forward's run: the generator state, a while loop's first inputs --------------
def _rng_state(env, reads):
    device = next((env[n].device for n in reads if env.get(n) is not None and env[n].is_cuda), None)
    return torch.get_rng_state(), device, torch.cuda.get_rng_state(device) if device is not None else None


def _inputs(env, reads):
    return {n: env.get(n) for n in reads}


def _replayed(state, kernel, args, attrs):
    cpu, device, cuda = state
    with torch.random.fork_rng(devices=[] if device is None else [device]):
        torch.set_rng_state(cpu)
        if device is not None:
            torch.cuda.set_rng_state(cuda, device)
        return kernel(*args, **attrs)


class _KeepingStep:
    """A forward op's step that first keeps, under ``key``, what its grad op's recompute needs."""

    def __init__(self, step, key, keep):
        self.step, self.key, self.keep = step, key, keep
        self.op = step.op
        self.reads = step.reads
        self.writes = list(step.writes) + [key]

    def __call__(self, env):
        env[self.key] = self.keep(env, self.reads)
        self.step(env)


def keep_for_recompute(steps):
    """Wrap (in place) the steps of the forward ops whose grad ops recompute them from what was kept."""
    kept = {id(s.keeps[0]): s.keeps[1:] for s in steps if isinstance(s, GradOpStep) and s.keeps is not None}
    if not kept:
        return
    for k, step in enumerate(steps):
        found = kept.get(id(getattr(step, "op", None)))
        if found is not None:
            steps[k] = _KeepingStep(step, *found)

"""``CompiledProgram``: a Program with a BuildStrategy, optionally data parallel over several places.

Data parallel runs in one process, as Paddle 2.x's ParallelExecutor did on CPU places: the program is cut
into its replica part (forward + backward) and its update part (ops with op_role Optimize: clipping, weight
decay, the optimizer ops). Each place runs the replica part on its share of the feed (threads; torch releases
the GIL in kernels); the gradients the update part reads are averaged over the places (Paddle's default
GradientScaleStrategy.CoeffNumDevice), then the update part runs once on the shared parameters.

Scopes follow Paddle's: place 0 runs in the run's scope itself; place k > 0 in a child scope of it, which
reads the parameters from the parent (CPU places share them) and keeps what the replica writes to other
persistable variables (batch-norm statistics), as Paddle's per-device local scopes do.

A dict feed is split on axis 0 into chunks of ceil(batch / places) samples (Paddle's SplitLoDTensor); a list
feed gives one dict per place. Fetched values are concatenated on axis 0 over the places (a 0-D value
counts as shape [1], as Paddle 2.x losses were).
"""
import contextlib
import sys
from concurrent.futures import ThreadPoolExecutor

import torch

from ..framework.place import Place, running_on, to_torch_device
from ..framework.program import GRAD_SUFFIX, OpRole, Program
from .executor import (Executor, Plan, as_feed_tensor, feed_dict_of, feed_var, fetch_names_of, raise_missing,
                       refresh_lr, run_in_scope)
from .compiled_plan import CompiledPlan, strategy_compiles
from .scope import global_scope
from .strategy import BuildStrategy, ExecutionStrategy

__all__ = ["CompiledProgram", "BuildStrategy", "ExecutionStrategy"]

_SCALE = BuildStrategy.GradientScaleStrategy


def _is_update_op(op):
    role = op.attrs.get("op_role", 0)
    return bool(role & OpRole.Optimize) and not role & OpRole.LRSched


def _sub_program(program, keep):
    """A clone of ``program`` whose global block holds only the ops ``keep(op)`` accepts."""
    part = program.clone()
    block = part.global_block()
    block.ops = [op for op in block.ops if keep(op)]
    part._invalidate()
    return part


def _as_places(places, what):
    if places is None:
        return None
    if not isinstance(places, (list, tuple)):
        places = [places]
    out = []
    for p in places:
        if isinstance(p, str):
            from ..framework.place import CPUPlace, CUDAPlace
            name = p.strip().lower()
            if name == "cpu":
                p = CPUPlace()
            elif name.startswith(("gpu:", "cuda:")):
                p = CUDAPlace(int(name.split(":")[1]))
            else:
                raise ValueError(f"{what}: a place string must be 'cpu' or 'gpu:N', got {p!r}")
        elif not isinstance(p, Place):
            raise TypeError(f"{what}: places must be Places (or 'cpu'/'gpu:N'), got {type(p).__name__}")
        out.append(p)
    if not out:
        raise ValueError(f"{what}: places is empty")
    return out


# enable_inplace: ops whose output may take the buffer of their input X when X dies at that op, and ops known
# to write fresh (unaliased) tensors, the only producers whose outputs are safe to overwrite
_INPLACE_UNARY = {"relu": torch.relu_, "sigmoid": torch.sigmoid_, "tanh": torch.tanh_, "exp": torch.exp_}
_INPLACE_BINARY = {"elementwise_add": torch.Tensor.add_, "elementwise_sub": torch.Tensor.sub_,
                   "elementwise_mul": torch.Tensor.mul_}
_FRESH = {"mul", "matmul", "matmul_v2", "conv2d", *_INPLACE_UNARY, *_INPLACE_BINARY}


class _InplaceStep:
    """An op step writing its output into its dying input X (``BuildStrategy.enable_inplace``); falls back
    to the op's kernel when X cannot hold the result (dtype, broadcasting)."""
    __slots__ = ("step", "fn", "x", "y", "out", "axis", "reads", "writes")

    def __init__(self, step, fn):
        self.step, self.fn = step, fn
        self.x = step.ins[0][1]
        self.y = step.ins[1][1] if len(step.ins) > 1 else None
        self.out = step.outs[0][1]
        self.axis = step.attrs.get("axis", -1)
        self.reads, self.writes = step.reads, step.writes

    def __call__(self, env):
        x = env[self.x]
        if x.is_floating_point():
            if self.y is None:
                env[self.out] = self.fn(x)
                return
            y = env[self.y]
            if (y.dtype == x.dtype and y.dim() <= x.dim() and self.axis in (-1, x.dim() - y.dim()) and
                    torch.broadcast_shapes(x.shape, y.shape) == x.shape):
                env[self.out] = self.fn(x, y)
                return
        self.step(env)


def _apply_inplace(plan):
    """Turn the steps of a plan without backward (autograd keeps what it saved) whose input X dies there into
    in-place steps."""
    if plan.has_backward:
        return
    produced_by, last_read = {}, {}
    for k, step in enumerate(plan.steps):
        for n in step.reads:
            last_read[n] = k
        for n in step.writes:
            produced_by.setdefault(n, step)
    keep = set(plan.fetch_names) | set(plan.write_back) | set(plan.from_scope) | set(plan.feed_names)
    for k, step in enumerate(plan.steps):
        op = getattr(step, "op", None)
        fn = _INPLACE_UNARY.get(op.type) or _INPLACE_BINARY.get(op.type) if op is not None else None
        if fn is None or not step.ins or step.ins[0][0] != 1 or step.outs[0][0] != 1:
            continue
        x = step.ins[0][1]
        producer = produced_by.get(x)
        if (x in keep or last_read.get(x) != k or producer is None or producer is step or
                getattr(producer, "op", None) is None or producer.op.type not in _FRESH or
                (len(step.ins) > 1 and step.ins[1][1] == x)):
            continue
        plan.steps[k] = _InplaceStep(step, fn)


class _Parts:
    """The replica and update programs of one program version."""

    def __init__(self, program, data_parallel, scale, loss_name):
        self.version = program._version
        self.data_parallel = data_parallel
        ops = program.global_block().ops
        if data_parallel and any(_is_update_op(op) for op in ops):
            self.replica = _sub_program(program, lambda op: not _is_update_op(op))
            self.update = _sub_program(program, _is_update_op)
        else:
            self.replica, self.update = program, None
        if scale == _SCALE.Customized and loss_name:
            # the user feeds <loss>@GRAD for each place: the seed op must not overwrite it
            seed = loss_name + GRAD_SUFFIX
            replica = self.replica if self.replica is not program else _sub_program(program, lambda op: True)
            block = replica.global_block()
            block.ops = [op for op in block.ops
                         if not (op.type == "fill_constant" and op.output_arg_names == [seed] and
                                 op.attrs.get("op_role", 0) & OpRole.Loss)]
            replica._invalidate()
            self.replica = replica
        # what the update part reads from the replicas: non-persistable values written by the replica part
        self.shared = []
        if self.update is not None:
            written = {n for op in self.replica.global_block().ops for n in op.output_arg_names}
            block = program.global_block()
            for op in self.update.global_block().ops:
                for n in op.input_arg_names:
                    var = block._find_var_recursive(n)
                    if n in written and n not in self.shared and not (var is not None and var.persistable):
                        self.shared.append(n)
        # persistables besides trainable parameters that the replica part reads: kernels may update them in place
        block = program.global_block()
        lr_var = getattr(program, "_lr_var_name", None)
        self.private = set()
        for op in self.replica.global_block().ops:
            for n in op.input_arg_names:
                var = block._find_var_recursive(n)
                if var is not None and var.persistable and not getattr(var, "trainable", False) and n != lr_var:
                    self.private.add(n)
        self.update_writes = set()
        if self.update is not None:
            self.update_writes = {n for op in self.update.global_block().ops for n in op.output_arg_names}
        self.plans = {}

    def plan(self, program, feed_names, fetch_names, strategy):
        key = (program is self.update, feed_names, fetch_names)
        plan = self.plans.get(key)
        if plan is None:
            plan = self.plans[key] = Plan(program, feed_names, fetch_names)
            if strategy.memory_optimize is False:
                plan.frees = {}
            if strategy.enable_inplace:
                _apply_inplace(plan)
            if strategy_compiles(strategy) and not self.data_parallel:   # fusion options: torch.compile
                plan = self.plans[key] = CompiledPlan(plan)
        return plan


class CompiledProgram:
    """``paddle.static.CompiledProgram(program_or_graph, build_strategy=None)``; run it with ``Executor.run``."""

    def __init__(self, program_or_graph, build_strategy=None):
        if not isinstance(program_or_graph, Program):
            raise TypeError("The type of program_to_graph parameter is wrong, expected Graph or Program, but "
                            f"received {type(program_or_graph).__name__}")
        if build_strategy is not None and not isinstance(build_strategy, BuildStrategy):
            raise TypeError(f"CompiledProgram: build_strategy must be a BuildStrategy, got "
                            f"{type(build_strategy).__name__}")
        self._program = program_or_graph
        self._build_strategy = build_strategy
        self._exec_strategy = None
        self._is_data_parallel = False
        self._loss_name = None
        self._share_vars_from = None
        self._places = None
        self._compiled = False
        self._scope = None
        self._local_scopes = None
        self._parts = None
        self._pool = None

    # -- configuration -----------------------------------------------------------------------------------
    def with_data_parallel(self, loss_name=None, build_strategy=None, exec_strategy=None, share_vars_from=None,
                           places=None):
        """Run the program data parallel over ``places`` (default: $CPU_NUM CPU places); returns self."""
        if self._is_data_parallel:
            raise RuntimeError("with_data_parallel: already compiled with data parallel, cannot be recompiled")
        if loss_name is not None and not isinstance(loss_name, str):
            raise TypeError(f"with_data_parallel: loss_name must be a str, got {type(loss_name).__name__}")
        if build_strategy is not None and not isinstance(build_strategy, BuildStrategy):
            raise TypeError(f"with_data_parallel: build_strategy must be a BuildStrategy, got "
                            f"{type(build_strategy).__name__}")
        if exec_strategy is not None and not isinstance(exec_strategy, ExecutionStrategy):
            raise TypeError(f"with_data_parallel: exec_strategy must be an ExecutionStrategy, got "
                            f"{type(exec_strategy).__name__}")
        if share_vars_from is not None and not isinstance(share_vars_from, CompiledProgram):
            raise TypeError(f"with_data_parallel: share_vars_from must be a CompiledProgram, got "
                            f"{type(share_vars_from).__name__}")
        block = self._program.global_block()
        if any(op.type.endswith("_grad") for op in block.ops) and loss_name is None:
            raise ValueError("with_data_parallel: the loss name of CompiledProgram is None; loss_name must be "
                             "set when the program contains a backward part")
        if loss_name is not None and block._find_var_recursive(loss_name) is None:
            raise ValueError(f"with_data_parallel: loss_name {loss_name!r} is not a variable of the program")
        self._places = _as_places(places, "with_data_parallel")
        self._is_data_parallel = True
        if build_strategy is not None:
            self._build_strategy = build_strategy
        self._exec_strategy = exec_strategy
        self._loss_name = loss_name
        self._share_vars_from = share_vars_from
        return self

    @property
    def _strategy(self):
        if self._build_strategy is None:
            self._build_strategy = BuildStrategy()
        return self._build_strategy

    def _compile(self, exe, scope):
        if self._compiled:
            if scope is not self._given_scope:
                raise ValueError("CompiledProgram: cannot run a compiled program with a different scope")
            if exe._device != self._exe_device:
                raise ValueError(f"CompiledProgram: cannot run a program compiled for {self._exe_device} with "
                                 f"an Executor on {exe._device} (a different place)")
            return
        self._given_scope, self._exe_device = scope, exe._device
        strategy = self._strategy
        if self._exec_strategy is None:
            self._exec_strategy = ExecutionStrategy()
        if self._is_data_parallel:
            if self._places is None:
                if exe.place is not None and isinstance(exe.place, Place) and exe.place.is_gpu_place():
                    from .input import cuda_places
                    self._places = cuda_places()
                else:
                    from .input import cpu_places
                    self._places = cpu_places()
            kinds = {p.is_gpu_place() for p in self._places}
            if len(kinds) > 1:
                raise ValueError("with_data_parallel: places mix CPU and GPU places")
        else:
            self._places = [exe.place if isinstance(exe.place, Place) else None]
        if strategy.num_trainers > 1:
            if not self._is_data_parallel:
                raise ValueError("BuildStrategy.num_trainers > 1 needs a data parallel program "
                                 "(call with_data_parallel)")
            if not (torch.distributed.is_available() and torch.distributed.is_initialized()):
                raise NotImplementedError(
                    f"BuildStrategy.num_trainers={strategy.num_trainers}: multi-trainer data parallel needs "
                    "torch.distributed initialized in every trainer (paddle.distributed.init_parallel_env(), "
                    "started by paddle.distributed.launch); it is not")
        share = self._share_vars_from
        if share is not None:
            if not share._is_data_parallel:
                raise ValueError("The shared Program is not data parallel, cannot share variables from it")
            if not share._compiled:
                raise ValueError("The shared Program is not compiled and executed, so there is no variables to "
                                 "share (run share_vars_from's program first)")
            if len(share._places) != len(self._places):
                raise ValueError(f"share_vars_from runs on {len(share._places)} places, this program on "
                                 f"{len(self._places)}")
            if scope is not share._scope:
                sys.stderr.write("share_vars_from is set, scope is ignored.\n")
            scope = share._scope
            self._local_scopes = share._local_scopes
        else:
            self._local_scopes = [scope] + [scope.new_scope() for _ in range(len(self._places) - 1)]
        self._devices = [to_torch_device(p) if p is not None else exe._device for p in self._places]
        strategy._finalize()
        self._exec_strategy._finalize()
        self._scope = scope
        self._compiled = True

    # -- running -----------------------------------------------------------------------------------------
    def _run_with_executor(self, exe, feed, fetch_list, scope, return_numpy):
        """What ``Executor.run(compiled_program, ...)`` calls."""
        self._compile(exe, scope if scope is not None else global_scope())
        fetch_names = fetch_names_of(fetch_list)
        values = None
        # tensors the programs create go to the places' device (several devices: each op's inputs decide)
        devices = set(self._devices)
        with running_on(next(iter(devices))) if len(devices) == 1 else contextlib.nullcontext():
            for _ in range(max(1, self._exec_strategy.num_iteration_per_run)):
                values = self._run_once(feed, fetch_names)
        return Executor._outputs(values, return_numpy)

    def _parts_now(self):
        parts = self._parts
        if parts is None or parts.version != self._program._version:
            parts = self._parts = _Parts(self._program, self._is_data_parallel,
                                         self._strategy.gradient_scale_strategy, self._loss_name)
        return parts

    def _run_once(self, feed, fetch_names):
        parts = self._parts_now()
        n = len(self._places)
        feeds = self._split_feed(feed, n)
        replica_fetch = tuple(dict.fromkeys(
            [f for f in fetch_names if f not in parts.update_writes] + parts.shared))
        envs = self._run_replicas(parts, feeds, replica_fetch)
        averaged = {}
        if parts.update is not None:
            averaged = self._reduce(parts.shared, envs)
            self._run_update(parts, averaged)
        if not self._is_data_parallel:
            env = envs[0]
            return [self._scope._get(f) if f in parts.update_writes else _fetched(env, f) for f in fetch_names]
        out = []
        for f in fetch_names:
            if f in parts.update_writes:
                each = [self._scope._get(f)] * n
            elif f in averaged:
                each = [averaged[f]] * n
            else:
                each = [_fetched(env, f) for env in envs]
            out.append(torch.cat([t.reshape(1) if t.dim() == 0 else t for t in each]))
        return out

    def _split_feed(self, feed, n):
        block = self._program.global_block()
        if not self._is_data_parallel:
            feed = feed_dict_of(feed)
        if feed is None:
            feed = {}
        if isinstance(feed, dict):
            shards = [{} for _ in range(n)]
            for name, value in feed.items():
                var = feed_var(block, name)
                if var is None:
                    continue
                t = as_feed_tensor(var, value, self._devices[0])
                if var.persistable or n == 1:
                    for k in range(n):
                        shards[k][name] = t if k == 0 else t.to(self._devices[k])
                    continue
                if t.dim() == 0:
                    raise ValueError(f"Executor.run: the fed variable {name!r} is 0-D and cannot be split over "
                                     f"{n} places; feed a list of {n} dicts instead")
                chunks = torch.chunk(t, n, 0)
                if len(chunks) < n:
                    raise ValueError(
                        f"Executor.run: the batch of {t.shape[0]} samples fed to {name!r} splits into "
                        f"{len(chunks)} parts of ceil({t.shape[0]}/{n}) samples, fewer than the {n} places "
                        "(the number of samples of a batch must not be less than the count of places; drop a "
                        "short last batch, or feed a list of dicts, one per place)")
                for k, c in enumerate(chunks):
                    shards[k][name] = c.to(self._devices[k])
            return shards
        if isinstance(feed, (list, tuple)):
            if len(feed) != n:
                raise ValueError(f"Executor.run: a feed list must hold one dict per place: got {len(feed)} "
                                 f"dicts for {n} places")
            shards = []
            for k, each in enumerate(feed):
                if not isinstance(each, dict):
                    raise TypeError(f"Executor.run: each element of the feed list must be a dict, element {k} "
                                    f"is a {type(each).__name__}")
                shard = {}
                for name, value in each.items():
                    var = feed_var(block, name)
                    if var is not None:
                        shard[name] = as_feed_tensor(var, value, self._devices[k])
                shards.append(shard)
            return shards
        raise TypeError(f"Executor.run: feed must be a dict (or, data parallel, a list of dicts), got "
                        f"{type(feed).__name__}")

    def _run_replicas(self, parts, feeds, fetch_names):
        program, scope0 = parts.replica, self._scope
        refresh_lr(self._program, scope0, self._devices[0])
        strategy = self._strategy

        def run(k):
            feed = feeds[k]
            plan = parts.plan(program, tuple(feed), fetch_names, strategy)
            scope, device = self._local_scopes[k], self._devices[k]
            env = dict(feed)
            block = program.global_block()
            for name in plan.from_scope:
                value = scope._get(name)
                if value is None:
                    raise_missing(block, name)
                env[name] = value if value.device == device else value.to(device)
            plan.run(env)
            for name in plan.write_back:
                value = env.get(name)
                if value is not None:
                    value = value.detach() if value.requires_grad else value
                    if k == 0:
                        scope._set(name, value)
                    else:   # place k keeps its own copy, found in its own scope first from now on
                        scope.var(name)._value = value
            return env

        n = len(feeds)
        if n == 1:
            return [run(0)]
        for k in range(1, n):
            # a persistable the replica part writes (batch-norm statistics, which kernels update in place)
            # becomes place k's own copy before any place runs
            scope = self._local_scopes[k]
            plan = parts.plan(program, tuple(feeds[k]), fetch_names, strategy)
            for name in plan.write_back + [n for n in plan.from_scope if n in parts.private]:
                held = scope._vars.get(name)
                if held is None or held._value is None:
                    value = scope0._get(name)
                    if value is not None:
                        scope.var(name)._value = value.to(self._devices[k], copy=True)
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self._exec_strategy.num_threads or n - 1,
                                            thread_name_prefix="torchpaddle-replica")
        # place 0 runs on this thread while the pool runs the others
        others = [self._pool.submit(run, k) for k in range(1, n)]
        try:
            first = run(0)
        finally:
            done = [f.exception() for f in others]   # never leave a place running past this call
        for f, error in zip(others, done):
            if error is not None:
                raise error
        return [first] + [f.result() for f in others]

    def _reduce(self, names, envs):
        strategy = self._strategy
        n = len(envs)
        out = {}
        for name in names:
            values = [env[name] for env in envs]
            if not name.endswith(GRAD_SUFFIX):
                out[name] = values[0]   # a non-gradient the update reads: place 0's, as Paddle's scope 0
                continue
            total = values[0]
            if n == 2 and strategy.gradient_scale_strategy == _SCALE.CoeffNumDevice and strategy.num_trainers == 1:
                out[name] = torch.lerp(total, values[1].to(total.device), 0.5)   # the mean, in one pass
                continue
            if n > 1:
                # one fresh tensor, then in place: a gradient may alias a fed value, never written to
                total = torch.add(total, values[1].to(total.device))
                for v in values[2:]:
                    total.add_(v.to(total.device))
            if strategy.num_trainers > 1:
                if total is values[0]:
                    total = total.clone()
                torch.distributed.all_reduce(total)
            count = n * max(1, strategy.num_trainers)
            if strategy.gradient_scale_strategy == _SCALE.CoeffNumDevice and count > 1:
                total.mul_(1.0 / count)
            out[name] = total
        return out

    def _run_update(self, parts, averaged):
        program, scope = parts.update, self._scope
        plan = parts.plan(program, tuple(averaged), (), self._strategy)
        run_in_scope(plan, dict(averaged), scope)

    def _drop_local_exe_scopes(self):
        # temporaries live in each run's value dict and die with it; nothing of theirs stays in the scopes
        if not self._compiled:
            raise TypeError("drop_local_exe_scopes: the program has not run yet, so there are no local "
                            "execution scopes")

    def __del__(self):
        pool = getattr(self, "_pool", None)
        if pool is not None:
            pool.shutdown(wait=False)

    def __repr__(self):
        mode = f"data parallel over {len(self._places)} places" if self._is_data_parallel and self._places \
            else "data parallel" if self._is_data_parallel else "single place"
        return f"CompiledProgram({mode})"


def _fetched(env, name):
    try:
        return env[name]
    except KeyError:
        raise ValueError(f"Executor.run: fetched variable {name!r} was not computed by the program") from None

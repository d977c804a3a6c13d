"""paddle.DataParallel: data-parallel training over the ranks of a group.

At wrap time rank 0's parameters and buffers are broadcast. In backward each trainable parameter's gradient
is counted when torch has accumulated it; once every gradient of a bucket (about ``comm_buffer_size`` MB;
the first, holding the last layers, ``last_comm_buffer_size`` MB) is in, the bucket is flattened and
all-reduced asynchronously while backward goes on. Buckets start in a fixed order on every rank; at the end
of backward the rest are started (parameters that got no gradient count as zeros), all are awaited and the
gradients become the average over the ranks. In one process it is a transparent wrapper.
"""
import contextlib
import functools

import torch
import torch.distributed as _dist

from ..framework.tensor import Tensor
from ..nn.layer.layers import Layer
from . import group as _group

__all__ = ["DataParallel", "sync_params_buffers"]

_MB = 1 << 20


def _coalesced(tensors, fn):
    """Call ``fn`` on one flat buffer per dtype of ``tensors`` (torch tensors), then copy the result back."""
    by_dtype = {}
    for t in tensors:
        by_dtype.setdefault((t.dtype, t.device), []).append(t)
    for group in by_dtype.values():
        flat = torch.cat([t.detach().reshape(-1) for t in group])
        fn(flat)
        offset = 0
        with torch.no_grad():
            for t in group:
                t.copy_(flat[offset:offset + t.numel()].view_as(t))
                offset += t.numel()


def sync_params_buffers(model, comm_group=None, src_rank=0, is_model_parallel=False, fuse_params=True):
    """Broadcast ``model``'s parameters and buffers from global rank ``src_rank`` to the group."""
    group = _group._resolve(comm_group, "sync_params_buffers")
    if group is None:
        return
    tensors = [p._t for p in model.parameters()] + [b._t for b in model.buffers() if isinstance(b, Tensor)]
    # The ranks must hold the same model: compare the layouts before moving any data.
    layout = torch.tensor([len(tensors), sum(t.numel() for t in tensors)], dtype=torch.int64)
    layouts = [torch.empty_like(layout) for _ in range(group.nranks)]
    _dist.all_gather(layouts, layout, group=group.process_group)
    if any(not torch.equal(x, layout) for x in layouts):
        raise ValueError("DataParallel: the ranks hold different models ((tensor count, element count) per rank: "
                         f"{[x.tolist() for x in layouts]})")
    _coalesced(tensors, lambda flat: _dist.broadcast(flat, src_rank, group=group.process_group))


class _Bucket:
    __slots__ = ("index", "limit", "params", "numel", "ready")

    def __init__(self, index, limit):
        self.index, self.limit, self.params, self.numel, self.ready = index, limit, [], 0, 0


class _Reducer:
    """Hooks on the parameters' torch tensors; all-reduces their gradients bucket by bucket."""

    def __init__(self, params, group, bucket_bytes, first_bucket_bytes):
        self._params = params
        self._group = group
        self._buckets, self._where = [], {}
        # Backward produces the last parameters' gradients first, so buckets are filled in reverse order.
        filling = {}
        for param in reversed(params):
            t = param._t
            key = (t.dtype, t.device)
            bucket = filling.get(key)
            if bucket is None or (bucket.numel + t.numel()) * t.element_size() > bucket.limit:
                bucket = filling[key] = _Bucket(len(self._buckets),
                                                first_bucket_bytes if not self._buckets else bucket_bytes)
                self._buckets.append(bucket)
            self._where[id(param)] = bucket.index
            bucket.params.append(param)
            bucket.numel += t.numel()
        self._hooked, self._handles = [], []
        self._active = False
        self._unused = set()
        self._register()

    def _register(self):
        for handle in self._handles:
            handle.remove()
        self._hooked = [p._t for p in self._params]
        self._handles = [p._t.register_post_accumulate_grad_hook(functools.partial(self._on_grad, p))
                         for p in self._params]

    def prepare(self):
        """Before a forward whose backward should synchronize."""
        if any(p._t is not t for p, t in zip(self._params, self._hooked)):
            self._register()   # a parameter's torch tensor was replaced (Layer.to, astype...)
        for bucket in self._buckets:
            bucket.ready = 0
        self._next, self._works, self._queued = 0, [], False
        self.launched_in_backward = 0     # buckets started from gradient hooks (overlapping backward)
        self._unused = set()
        self._active = True

    def mark_unused(self, outputs):
        """find_unused_parameters: parameters the outputs do not depend on are ready from the start."""
        roots = [t._t.grad_fn for t in _tensors(outputs) if t._t.grad_fn is not None]
        reached, seen, stack = set(), set(), roots
        while stack:
            node = stack.pop()
            if node is None or node in seen:
                continue
            seen.add(node)
            variable = getattr(node, "variable", None)
            if variable is not None:
                reached.add(id(variable))
            stack.extend(n for n, _ in node.next_functions)
        for param in self._params:
            if id(param._t) not in reached:
                self._unused.add(id(param))
                self._buckets[self._where[id(param)]].ready += 1

    def _on_grad(self, param, _tensor):
        if not self._active:
            return
        if not self._queued:
            self._queued = True
            torch.autograd.Variable._execution_engine.queue_callback(self._finalize)
        if id(param) in self._unused:
            self._unused.discard(id(param))    # it got a gradient after all (through another path)
        else:
            self._buckets[self._where[id(param)]].ready += 1
        self._launch(ready_only=True)
        self.launched_in_backward = self._next

    def _launch(self, ready_only):
        while self._next < len(self._buckets):
            bucket = self._buckets[self._next]
            if ready_only and bucket.ready < len(bucket.params):
                return
            grads = [p._t.grad if p._t.grad is not None else torch.zeros_like(p._t) for p in bucket.params]
            flat = torch.cat([g.detach().reshape(-1) for g in grads])
            work = _dist.all_reduce(flat, group=self._group.process_group, async_op=True)
            self._works.append((bucket, flat, work))
            self._next += 1

    def _finalize(self):
        self._active = False
        self._launch(ready_only=False)
        n = self._group.nranks
        with torch.no_grad():
            for bucket, flat, work in self._works:
                work.wait()
                flat.div_(n)
                offset = 0
                for p in bucket.params:
                    piece = flat[offset:offset + p._t.numel()].view_as(p._t)
                    offset += p._t.numel()
                    if p._t.grad is None:
                        p._t.grad = piece.clone()
                    else:
                        p._t.grad.copy_(piece)
        self._works = []


def _tensors(value):
    if isinstance(value, Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _tensors(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _tensors(item)


class DataParallel(Layer):
    """Runs ``layers`` on this rank's share of the batch; gradients are averaged over the ranks in backward.

    NOTE: Paddle asserts when PADDLE_TRAINERS_NUM > 1 and init_parallel_env() was not called; here the
    wrapper calls it.
    """

    def __init__(self, layers, strategy=None, comm_buffer_size=25, last_comm_buffer_size=1,
                 find_unused_parameters=False, group=None):
        if not isinstance(layers, Layer):
            raise TypeError(f"DataParallel: layers must be a paddle.nn.Layer, got {type(layers).__name__}")
        for arg, value in (("comm_buffer_size", comm_buffer_size), ("last_comm_buffer_size", last_comm_buffer_size)):
            if not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"DataParallel: {arg} must be a positive number of MB, got {value!r}")
        if group is not None:
            _group._check_group(group, "DataParallel")
        super().__init__(layers.full_name() + "_data_parallel")
        self._layers = layers
        self.find_unused_parameters = find_unused_parameters
        self.comm_buffer_size = comm_buffer_size
        self.last_comm_buffer_size = last_comm_buffer_size
        self._strategy = strategy
        self._group = group
        self.grad_need_sync = True
        self.__dict__["_reducer"] = self._make_reducer(layers, group, comm_buffer_size, last_comm_buffer_size)

    @staticmethod
    def _make_reducer(layers, group, comm_buffer_size, last_comm_buffer_size):
        from .env import ParallelEnv, init_parallel_env
        if group is None and not _group._is_initialized() and ParallelEnv().world_size > 1:
            init_parallel_env()
        if group is None and not _group._is_initialized():
            return None
        resolved = _group._resolve(group, "DataParallel")
        if resolved is None or resolved.nranks < 2:
            return None
        sync_params_buffers(layers, resolved, src_rank=resolved.ranks[0])
        params = [p for p in layers.parameters() if not p.stop_gradient]
        if not params:
            return None
        return _Reducer(params, resolved, int(comm_buffer_size * _MB), int(last_comm_buffer_size * _MB))

    def forward(self, *inputs, **kwargs):
        reducer = self.__dict__.get("_reducer")
        sync = reducer and self.grad_need_sync and torch.is_grad_enabled()
        if sync:
            reducer.prepare()
        outputs = self._layers(*inputs, **kwargs)
        if sync and self.find_unused_parameters:
            reducer.mark_unused(outputs)
        return outputs

    @contextlib.contextmanager
    def no_sync(self):
        """Backward passes of forwards run inside accumulate gradients locally, without communication."""
        previous = self.grad_need_sync
        self.grad_need_sync = False
        try:
            yield
        finally:
            self.grad_need_sync = previous

    def state_dict(self, destination=None, include_sublayers=True, structured_name_prefix="", use_hook=True,
                   keep_vars=True):
        # Like Paddle: the wrapped layer's keys, without a "_layers." prefix.
        return self._layers.state_dict(destination, include_sublayers, structured_name_prefix, use_hook, keep_vars)

    def set_state_dict(self, state_dict, use_structured_name=True):
        return self._layers.set_state_dict(state_dict, use_structured_name)

    set_dict = load_dict = set_state_dict

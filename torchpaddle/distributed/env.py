"""The parallel environment: Paddle's launch variables (and torch's), ``init_parallel_env``, rank and size.

A process learns its place in the job from the environment, Paddle's names first (PADDLE_TRAINER_ID,
PADDLE_TRAINERS_NUM, PADDLE_TRAINER_ENDPOINTS, PADDLE_CURRENT_ENDPOINT, PADDLE_RANK_IN_NODE), then torch's
(RANK, WORLD_SIZE, LOCAL_RANK), so a script starts the same under ``paddle.distributed.launch``, ``torchrun``
or hand-set variables. The process group is torch.distributed's: gloo on CPU, NCCL on CUDA.
"""
import atexit
import datetime
import os
import sys
import warnings

import torch
import torch.distributed as _dist

from ..framework import place as _place
from . import group as _group

__all__ = ["ParallelEnv", "init_parallel_env", "get_rank", "get_world_size", "is_available"]

# PADDLE_PG_TIMEOUT's default. Paddle waits 30 minutes everywhere; for CPU (gloo) jobs that keeps a job with
# one hung rank alive for half an hour, so gloo gets 5 minutes: a healthy CPU collective never waits that long.
_DEFAULT_TIMEOUT_MS = {"nccl": 1800000, "gloo": 300000}


def _env_int(names, default):
    for name in names:
        value = os.environ.get(name)
        if value not in (None, ""):
            try:
                return int(value)
            except ValueError:
                raise ValueError(f"paddle.distributed: environment variable {name}={value!r} is not an "
                                 "integer") from None
    return default


def _local_rank():
    return _env_int(("PADDLE_RANK_IN_NODE", "PADDLE_LOCAL_RANK", "LOCAL_RANK"), 0)


def _timeout(backend):
    """The collective timeout: PADDLE_PG_TIMEOUT in milliseconds, as in Paddle (default per backend)."""
    ms = _env_int(("PADDLE_PG_TIMEOUT",), _DEFAULT_TIMEOUT_MS[backend])
    if ms <= 0:
        raise ValueError(f"paddle.distributed: PADDLE_PG_TIMEOUT must be a positive number of milliseconds, "
                         f"got {ms}")
    return datetime.timedelta(milliseconds=ms)


class ParallelEnv:
    """The variables of this process's place in the job, read when the object is made."""

    def __init__(self):
        self._rank = _env_int(("PADDLE_TRAINER_ID", "RANK"), 0)
        self._world_size = _env_int(("PADDLE_TRAINERS_NUM", "WORLD_SIZE"), 1)
        self._local_rank = _local_rank()
        self._device_type = ""
        selected = os.environ.get("FLAGS_selected_gpus", "")
        if selected:
            self._device_id = int(selected.split(",")[0])
        else:
            # NOTE: Paddle's CPU build raises AttributeError here; a CPU process has device 0.
            self._device_id = self._local_rank if torch.cuda.is_available() else 0
        self._trainer_endpoints = os.environ.get("PADDLE_TRAINER_ENDPOINTS", "").split(",")
        self._current_endpoint = os.environ.get("PADDLE_CURRENT_ENDPOINT", "")
        self._nrings = _env_int(("FLAGS_nccl_nrings",), 1)
        if not 0 < self._nrings < 9:
            raise ValueError(f"ParallelEnv: FLAGS_nccl_nrings must be in [1, 8], got {self._nrings}")
        self._pg_timeout = _env_int(("PADDLE_PG_TIMEOUT",),
                                    _DEFAULT_TIMEOUT_MS["nccl" if torch.cuda.is_available() else "gloo"])

    @property
    def rank(self):
        return self._rank

    @property
    def world_size(self):
        return self._world_size

    @property
    def device_id(self):
        return self._device_id

    @property
    def device_type(self):
        return self._device_type

    @property
    def current_endpoint(self):
        return self._current_endpoint

    @property
    def trainer_endpoints(self):
        return self._trainer_endpoints

    @property
    def nrings(self):
        return self._nrings

    @property
    def pg_timeout(self):
        return self._pg_timeout

    # Paddle's older names
    local_rank = rank
    nranks = world_size
    dev_id = device_id

    def __repr__(self):
        return (f"ParallelEnv(rank={self.rank}, world_size={self.world_size}, device_id={self.device_id}, "
                f"current_endpoint={self.current_endpoint!r}, trainer_endpoints={self.trainer_endpoints})")


_GLOBAL_ENV = [None]


def _global_env():
    if _GLOBAL_ENV[0] is None:
        _GLOBAL_ENV[0] = ParallelEnv()
    return _GLOBAL_ENV[0]


def _backend():
    backend = os.environ.get("PADDLE_DISTRI_BACKEND", "auto").lower()
    on_gpu = torch.cuda.is_available() and _place.current_torch_device().type == "cuda"
    if backend == "auto":
        return "nccl" if on_gpu else "gloo"
    if backend == "nccl" and not torch.cuda.is_available():
        raise ValueError("init_parallel_env: PADDLE_DISTRI_BACKEND=nccl needs CUDA, which this torch lacks; "
                         "use gloo")
    if backend not in ("gloo", "nccl"):
        raise ValueError(f"init_parallel_env: backend {backend!r} (PADDLE_DISTRI_BACKEND) is not supported; "
                         "use 'gloo' (CPU), 'nccl' (CUDA) or 'auto'")
    return backend


def _master_endpoint():
    """Where rank 0's store listens: MASTER_ADDR:MASTER_PORT, else PADDLE_MASTER, else the first trainer
    endpoint (Paddle's order)."""
    addr, port = os.environ.get("MASTER_ADDR"), os.environ.get("MASTER_PORT")
    endpoint = f"{addr}:{port}" if addr and port else None
    endpoint = endpoint or os.environ.get("PADDLE_MASTER") or os.environ.get("PADDLE_TRAINER_ENDPOINTS",
                                                                              "").split(",")[0]
    if not endpoint or ":" not in endpoint:
        raise RuntimeError("init_parallel_env: no rendezvous address; set MASTER_ADDR and MASTER_PORT (or "
                           "PADDLE_MASTER / PADDLE_TRAINER_ENDPOINTS), or start the job with "
                           "python -m paddle.distributed.launch")
    host, _, port = endpoint.rpartition(":")
    return host, int(port)


def _shutdown():
    """At exit: tear the process group down while the interpreter is whole (torch's threads otherwise
    die in static destructors and abort the process)."""
    try:
        if _dist.is_initialized():
            _dist.destroy_process_group()
    except Exception:   # noqa: BLE001  a peer may be gone already; nothing left to do
        pass
    _group._release()


def finish_process(code):
    """End a process that used torch.distributed: run the atexit handlers (ours destroys the process group)
    while the interpreter is whole, flush, and leave without interpreter finalization.

    NOTE: torch 2.13 aborts ~half the time at finalization ("terminate called without an active exception")
    in a process that created a meta tensor after init_process_group("gloo") and then ran a collective, even
    with destroy_process_group called (reproduced with plain torch and torchrun). Static-graph building uses
    meta tensors for shape inference, so static jobs hit it; skipping finalization avoids it."""
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:   # noqa: BLE001  a closed stream: nothing to flush
            pass
    os._exit(code)


# called when init_parallel_env replaces a one-process torch group made before it (the caches built on it)
WORLD_REPLACED = []


def init_parallel_env(nccl_config=None):
    """Join the job's default process group (returns its Group; None when the job has one process)."""
    env = _GLOBAL_ENV[0] = ParallelEnv()
    if env.world_size < 2:
        warnings.warn("Currently not a parallel execution environment, `paddle.distributed.init_parallel_env` "
                      "will not do anything.")
        return None
    if _group._is_initialized():
        return _group._default_group()
    if not 0 <= env.rank < env.world_size:
        raise ValueError(f"init_parallel_env: rank {env.rank} is out of range for world size {env.world_size} "
                         "(PADDLE_TRAINER_ID / PADDLE_TRAINERS_NUM)")
    backend = _backend()
    if backend == "nccl":
        _place.set_device(f"gpu:{env.device_id}")
    timeout = _timeout(backend)
    atexit.register(_shutdown)
    if _dist.is_initialized():
        if _dist.get_world_size() == env.world_size:
            # Someone (torch code in the same script) made torch's default group already: adopt it.
            return _group._init_default_group(_dist.get_rank(), _dist.get_world_size(), _dist.get_backend(),
                                              timeout)
        # the one-process group a ProcessMesh made before the job's (auto_parallel/device_mesh.py): replace it
        _dist.destroy_process_group()
        for forget in WORLD_REPLACED:
            forget()
    if os.environ.get("TORCHELASTIC_USE_AGENT_STORE") == "True" and os.environ.get("MASTER_PORT"):
        # Under torch's elastic agent (our launch): the agent's store already listens on MASTER_PORT. It
        # outlives a restart, so each attempt's keys get their own prefix (else a restarted rank may read
        # a dead peer's address).
        client = _dist.TCPStore(os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"]), is_master=False,
                                timeout=timeout)
        store = _dist.PrefixStore(f"/torchpaddle/{os.environ.get('TORCHELASTIC_RUN_ID', '')}/attempt_"
                                  f"{os.environ.get('TORCHELASTIC_RESTART_COUNT', '0')}", client)
        _dist.init_process_group(backend, store=store, rank=env.rank, world_size=env.world_size, timeout=timeout)
    else:
        host, port = _master_endpoint()
        store = _dist.TCPStore(host, port, env.world_size, is_master=env.rank == 0, timeout=timeout,
                               wait_for_workers=False)
        _dist.init_process_group(backend, store=store, rank=env.rank, world_size=env.world_size,
                                 timeout=timeout)
        _group._STATE.store = store
    return _group._init_default_group(env.rank, env.world_size, backend, timeout)


def get_rank(group=None):
    """This process's rank in ``group`` (the job when None; -1 when not a member)."""
    if group is not None:
        return _group._check_group(group, "get_rank").rank
    return _global_env().rank


def get_world_size(group=None):
    """The number of processes in ``group`` (the job when None)."""
    if group is None and _group._is_initialized():
        group = _group._default_group()
    if group is not None:
        return _group._check_group(group, "get_world_size").world_size
    return _global_env().world_size


def is_available():
    """Whether torch.distributed is usable in this build."""
    return _dist.is_available()

"""``paddle.distributed.spawn``: start ``nprocs`` processes of ``func`` on this machine (torch.multiprocessing).

Each process gets Paddle's launch variables (PADDLE_TRAINER_ID, PADDLE_TRAINERS_NUM,
PADDLE_TRAINER_ENDPOINTS, PADDLE_CURRENT_ENDPOINT, PADDLE_RANK_IN_NODE, PADDLE_DISTRI_BACKEND) and calls
``func(*args)``; it then calls ``init_parallel_env()`` itself, as in Paddle. When a process raises or dies,
torch's ``join`` ends the others and raises, naming the process.
"""
import contextlib
import importlib.machinery
import multiprocessing
import os
import pickle
import sys
import time
import warnings

import torch
import torch.multiprocessing as _mp

from ..framework import place as _place
from ._ports import free_ports

__all__ = ["spawn"]

_OPTIONS = ("start_method", "ips", "gpus", "xpus", "print_config", "backend")
_DEPRECATED = ("selected_devices", "started_port", "cluster_node_ips", "node_ip", "use_paddlecloud")


def _run(index, func, args, envs, failed_at):
    os.environ.update(envs[index])
    try:
        func(*args)
    except Exception:
        failed_at[index] = time.time()     # before this process's connections close and its peers fail
        raise


def _join(context, failed_at):
    """torch's join, but naming the process that failed first (torch names the first it notices, often a
    peer that failed because of it)."""
    try:
        while not context.join():
            pass
    except _mp.ProcessRaisedException as e:
        times = [(t, i) for i, t in enumerate(failed_at) if t > 0]
        root = min(times)[1] if times else e.error_index
        path = context.error_files[root]
        if root == e.error_index or not path or not os.path.exists(path):
            raise
        with open(path, "rb") as f:
            trace = pickle.load(f)
        raise _mp.ProcessRaisedException(f"\n\n-- Process {root} terminated with the following error:\n{trace}",
                                         root, context.processes[root].pid) from e


def _env(nprocs, backend, gpus):
    host = "127.0.0.1"
    endpoints = [f"{host}:{p}" for p in free_ports(nprocs)]
    envs = []
    for i in range(nprocs):
        env = {"PADDLE_TRAINER_ID": str(i), "PADDLE_TRAINERS_NUM": str(nprocs), "PADDLE_RANK_IN_NODE": str(i),
               "PADDLE_LOCAL_RANK": str(i), "PADDLE_TRAINER_ENDPOINTS": ",".join(endpoints),
               "PADDLE_CURRENT_ENDPOINT": endpoints[i], "PADDLE_MASTER": endpoints[0],
               "PADDLE_DISTRI_BACKEND": backend}
        if backend == "nccl":
            env["FLAGS_selected_gpus"] = str(gpus[i])
        envs.append(env)
    return envs


@contextlib.contextmanager
def _aliased_main():
    """While children start: if this process runs a script with ``paddle`` aliased to torchpaddle, let them
    re-run it through ``_mp_main`` (which installs the alias) instead of plain python."""
    main = sys.modules.get("__main__")
    paddle = sys.modules.get("paddle")
    path = getattr(main, "__file__", None)
    if paddle is None or paddle is not sys.modules.get("torchpaddle") or path is None \
            or getattr(main, "__spec__", None) is not None:
        yield
        return
    main.__spec__ = importlib.machinery.ModuleSpec("torchpaddle.distributed._mp_main", None)
    os.environ["TORCHPADDLE_MP_MAIN_PATH"] = os.path.abspath(path)
    try:
        yield
    finally:
        main.__spec__ = None
        os.environ.pop("TORCHPADDLE_MP_MAIN_PATH", None)


def spawn(func, args=(), nprocs=-1, join=True, daemon=False, **options):
    """Run ``func(*args)`` in ``nprocs`` new processes (-1: one per GPU, or per CPU core on CPU)."""
    if not callable(func):
        raise TypeError(f"spawn: func must be callable, got {type(func).__name__}")
    for key in options:
        if key in _DEPRECATED:
            warnings.warn(f"The config option ({key}) of `paddle.distributed.spawn` is deprecated.",
                          DeprecationWarning)
        elif key not in _OPTIONS:
            raise ValueError(f"spawn: the config option ({key}) is not supported; supported options are "
                             f"{', '.join(_OPTIONS)}")
    on_gpu = torch.cuda.is_available() and _place.current_torch_device().type == "cuda"
    backend = options.get("backend", "auto")
    if backend == "auto":
        backend = "nccl" if on_gpu else "gloo"
    if backend not in ("gloo", "nccl"):
        raise ValueError(f"spawn: backend must be 'gloo', 'nccl' or 'auto', got {backend!r}")
    gpus = options.get("gpus")
    gpus = [int(g) for g in str(gpus).split(",")] if gpus is not None else None
    if not isinstance(nprocs, int) or isinstance(nprocs, bool):
        raise TypeError(f"spawn: nprocs must be an int, got {type(nprocs).__name__}")
    if nprocs == -1:
        nprocs = len(gpus) if gpus else torch.cuda.device_count() if backend == "nccl" else multiprocessing.cpu_count()
    if nprocs < 1:
        raise ValueError(f"spawn: nprocs must be -1 or a positive int, got {nprocs}")
    if backend == "nccl":
        gpus = gpus or list(range(nprocs))
        if len(gpus) < nprocs:
            raise ValueError(f"spawn: {nprocs} processes need {nprocs} GPUs, got gpus={gpus}")
    ips = options.get("ips", "127.0.0.1")
    if ips not in ("127.0.0.1", "localhost") and "," in str(ips):
        raise ValueError("spawn: only one machine is supported; use python -m paddle.distributed.launch for "
                         "several")
    envs = _env(nprocs, backend, gpus)
    if options.get("print_config"):
        print(f"spawn: {nprocs} processes, backend {backend}, endpoints {envs[0]['PADDLE_TRAINER_ENDPOINTS']}")
    start_method = options.get("start_method", "spawn")
    failed_at = multiprocessing.get_context(start_method).Array("d", nprocs)
    with _aliased_main():
        context = _mp.start_processes(_run, args=(func, tuple(args), envs, failed_at), nprocs=nprocs, join=False,
                                      daemon=daemon, start_method=start_method)
    if join:
        _join(context, failed_at)
    return context

"""The first code of each worker that ``launch`` starts (``python -m torchpaddle.distributed.launch.worker``).

It points stdout and stderr at the worker's ``workerlog.N``, turns torch's worker variables (RANK,
WORLD_SIZE, LOCAL_RANK, MASTER_ADDR...) into Paddle's (PADDLE_TRAINER_ID, PADDLE_TRAINERS_NUM,
PADDLE_TRAINER_ENDPOINTS, PADDLE_CURRENT_ENDPOINT, PADDLE_RANK_IN_NODE, FLAGS_selected_gpus...), and runs the
script with ``import paddle`` mapped to torchpaddle (``--exec PROGRAM`` runs a program instead).
"""
import datetime
import os
import sys
import time

_EXCHANGE_TIMEOUT = datetime.timedelta(seconds=120)


def _redirect():
    path = os.environ.get("TORCHPADDLE_WORKER_LOG")
    if not path:
        return
    mode = os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if os.environ.get("TORCHPADDLE_WORKER_LOG_MODE") == "w"
                                       else os.O_APPEND)
    fd = os.open(path, mode, 0o644)
    sys.stdout.flush()
    sys.stderr.flush()
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)


def _endpoints(rank, world, host):
    """Every rank's ``ip:port``, exchanged through the elastic agent's store (torch's TCPStore)."""
    from torchpaddle.distributed._ports import free_ports
    mine = f"{host}:{free_ports(1, host if host.startswith('127.') else '')[0]}"
    if os.environ.get("TORCHELASTIC_USE_AGENT_STORE") != "True":
        return mine, None
    import torch.distributed as dist
    store = dist.TCPStore(os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"]), is_master=False,
                          timeout=_EXCHANGE_TIMEOUT)
    prefix = f"/torchpaddle/{os.environ.get('TORCHELASTIC_RUN_ID', '')}/" \
             f"{os.environ.get('TORCHELASTIC_RESTART_COUNT', '0')}/endpoint/"
    store.set(f"{prefix}{rank}", mine)
    return mine, [store.get(f"{prefix}{r}").decode() for r in range(world)]


def _paddle_env():
    env = os.environ
    rank, world, local = env["RANK"], env["WORLD_SIZE"], env["LOCAL_RANK"]
    host = env.get("POD_IP") or "127.0.0.1"
    mine, endpoints = _endpoints(int(rank), int(world), host)
    env.update({
        "PADDLE_TRAINER_ID": rank, "PADDLE_TRAINERS_NUM": world, "PADDLE_GLOBAL_RANK": rank,
        "PADDLE_GLOBAL_SIZE": world, "PADDLE_RANK_IN_NODE": local, "PADDLE_LOCAL_RANK": local,
        "PADDLE_LOCAL_SIZE": env.get("LOCAL_WORLD_SIZE", "1"), "PADDLE_CURRENT_ENDPOINT": mine,
        "PADDLE_TRAINER_ENDPOINTS": ",".join(endpoints or [mine]),
        "PADDLE_MASTER": f"{env['MASTER_ADDR']}:{env['MASTER_PORT']}",
    })
    devices = env.get("TORCHPADDLE_LAUNCH_DEVICES")
    if devices:
        env["FLAGS_selected_gpus"] = devices.split(",")[int(local)]


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    _redirect()
    restart = os.environ.get("TORCHELASTIC_RESTART_COUNT", "0")
    if restart != "0":
        print(f"[launch] restart {restart} of {os.environ.get('TORCHELASTIC_MAX_RESTARTS')}: rank "
              f"{os.environ.get('RANK')} starting again", flush=True)
    _paddle_env()
    if argv and argv[0] == "--exec":
        os.execvp(argv[1], argv[1:])
    from torchpaddle.__main__ import main as run
    try:
        code = run(argv)
    except SystemExit as e:
        if e.code is not None and not isinstance(e.code, int):
            print(e.code, file=sys.stderr)
        code = e.code if isinstance(e.code, int) or e.code is None else 1
    if code:
        _record_failure(code)
    import torch.distributed as dist
    if dist.is_available() and dist.is_initialized():
        from torchpaddle.distributed.env import finish_process
        finish_process(code or 0)
    return code


def _record_failure(code):
    """When the script failed (before exit-time teardown closes connections and peers fail in turn): the
    launcher names the rank that failed first."""
    path = os.environ.get("TORCHPADDLE_FAILED_AT")
    if path:
        with open(path, "w") as f:
            f.write(f"{time.time()!r} {int(code)}")


if __name__ == "__main__":
    sys.exit(main())

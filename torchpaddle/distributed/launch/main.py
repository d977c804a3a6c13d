"""``python -m paddle.distributed.launch``: Paddle's launch CLI on torch's elastic agent.

torch's LocalElasticAgent starts and watches the workers; its rendezvous (c10d, or static with ``--rank``)
joins the nodes; it restarts the worker group up to ``--max_restart`` times and, when a worker fails for
good, stops the others. Around it: Paddle's options, one ``workerlog.N`` per local rank in ``--log_dir``
(stdout and stderr), rank 0's log echoed on the console, and Paddle-style status lines; a failure ends with
the failed rank, its exit code and the tail of its log, and a non-zero exit.
"""
import datetime
import logging
import os
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time

import torch
from torch.distributed.elastic.agent.server.api import WorkerSpec, WorkerState
from torch.distributed.elastic.agent.server.local_elastic_agent import LocalElasticAgent
from torch.distributed.elastic.multiprocessing.api import LogsDest, LogsSpecs, SignalException
from torch.distributed.elastic.rendezvous import RendezvousParameters
from torch.distributed.elastic.rendezvous import registry as _rdzv_registry

from .._ports import free_ports
from .options import parse_args

__all__ = ["launch", "main"]

_TAIL_CHARS = 3000


class _Console:
    """``LAUNCH INFO <time> message`` lines, like Paddle's launcher."""

    def __init__(self, level):
        self._level = getattr(logging, str(level).upper(), logging.INFO)
        self._lock = threading.Lock()

    def log(self, level, message):
        if level < self._level:
            return
        stamp = datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S,%f")[:-3]
        with self._lock:
            sys.stdout.write(f"LAUNCH {logging.getLevelName(level)} {stamp} {message}\n")
            sys.stdout.flush()

    def info(self, message):
        self.log(logging.INFO, message)

    def error(self, message):
        self.log(logging.ERROR, message)

    def raw(self, text):
        with self._lock:
            sys.stdout.write(text)
            sys.stdout.flush()


class _WorkerLogs(LogsSpecs):
    """Workers write their own ``workerlog.N`` (worker.py points stdout and stderr at it, appending unless
    --log_overwrite), so restarts keep the earlier attempts' output as Paddle's logs do."""

    def __init__(self, log_dir, overwrite):
        self._dir = os.path.abspath(log_dir) if log_dir else ""
        self._overwrite = overwrite
        self._errors = tempfile.mkdtemp(prefix="torchpaddle_launch_")
        if self._dir:
            os.makedirs(self._dir, exist_ok=True)
        super().__init__(log_dir=self._dir or None)

    @property
    def root_log_dir(self):
        return self._dir

    def path(self, local_rank):
        return os.path.join(self._dir, f"workerlog.{local_rank}") if self._dir else None

    def reify(self, envs):
        attempt = envs[0].get("TORCHELASTIC_RESTART_COUNT", "0") if envs else "0"
        errors = {}
        self.failed_at = {}
        for local_rank, env in envs.items():
            if self._dir:
                env["TORCHPADDLE_WORKER_LOG"] = self.path(local_rank)
                env["TORCHPADDLE_WORKER_LOG_MODE"] = "w" if self._overwrite and attempt == "0" else "a"
            errors[local_rank] = os.path.join(self._errors, f"error.{attempt}.{local_rank}.json")
            env["TORCHELASTIC_ERROR_FILE"] = errors[local_rank]
            env["TORCHPADDLE_FAILED_AT"] = self.failed_at[local_rank] = errors[local_rank] + ".failed_at"
        ranks = range(len(envs))
        return LogsDest({r: "" for r in ranks}, {r: "" for r in ranks}, {}, {}, errors)

    def cleanup(self):
        shutil.rmtree(self._errors, ignore_errors=True)


class _Agent(LocalElasticAgent):
    """torch's agent, reporting failures and restarts on the console."""

    def __init__(self, *args, console, logs, **kwargs):
        super().__init__(*args, **kwargs)
        self._console, self._logs = console, logs
        self.last_failure = None
        self.exit_times = {}     # local rank -> when its process ended (to name the first to fail)

    def _start_workers(self, worker_group):
        self.exit_times = {}
        pids = super()._start_workers(worker_group)
        for local_rank, handler in getattr(self._pcontext, "subprocess_handlers", {}).items():
            threading.Thread(target=self._watch, args=(local_rank, handler.proc), daemon=True).start()
        return pids

    def _watch(self, local_rank, proc):
        proc.wait()
        self.exit_times.setdefault(local_rank, time.time())

    def _monitor_workers(self, worker_group):
        result = super()._monitor_workers(worker_group)
        if result.state in (WorkerState.FAILED, WorkerState.UNHEALTHY) and result.failures:
            self.last_failure = result
        return result

    def _restart_workers(self, worker_group):
        if self.last_failure is not None:
            self._console.info("Pod failed")
            _report(self._console, self.last_failure, self._logs, self.exit_times, tail=False)
        spec = worker_group.spec
        self._console.info(f"Restarting the worker group ({spec.max_restarts - self._remaining_restarts}/"
                           f"{spec.max_restarts})")
        super()._restart_workers(worker_group)


def _describe(failure):
    if failure.exitcode < 0:
        return f"killed by signal {failure.signal_name()}"
    return f"exited with code {failure.exitcode}"


def _tail(path):
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            f.seek(max(f.tell() - _TAIL_CHARS, 0))
            return f.read().decode(errors="replace")
    except OSError:
        return ""


def _script_failure(logs, local_rank):
    """(when, exit code) the worker recorded as its script failed, or None."""
    try:
        with open(logs.failed_at[local_rank]) as f:
            when, code = f.read().split()
        return float(when), int(code)
    except (OSError, ValueError, KeyError):
        return None


def _report(console, result, logs, exit_times, tail=True):
    """Paddle's failure report: the failed rank, its exit code and log. The likely cause leads, since the
    others usually fail because it did: a worker killed by a signal (not the agent's SIGTERM), else the
    worker whose script failed first (peers' errors come after its connections close), else the first to
    exit."""
    def key(item):
        failure = item[1]
        recorded = _script_failure(logs, failure.local_rank)
        ended = exit_times.get(failure.local_rank, float("inf"))
        if recorded:
            return 1, recorded[0], item[0]
        if failure.exitcode < 0:
            return (3 if -failure.exitcode == signal.SIGTERM else 0), ended, item[0]
        return 2, ended, item[0]

    def describe(failure):
        recorded = _script_failure(logs, failure.local_rank)
        # A script that failed may still be stopped by a signal while it exits: report its own exit code.
        return f"exited with code {recorded[1]}" if recorded else _describe(failure)

    failures = sorted(result.failures.items(), key=key)
    rank, first = failures[0]
    console.error(f"Container failed !!!\nContainer rank {rank} (local rank {first.local_rank}) status failed: "
                  f"{describe(first)}; log {logs.path(first.local_rank) or '<console>'}")
    for other_rank, other in failures[1:]:
        console.error(f"Container rank {other_rank} (local rank {other.local_rank}) also failed: "
                      f"{describe(other)}")
    if tail and logs.path(first.local_rank):
        console.info("------------------------- ERROR LOG DETAIL -------------------------")
        text = _tail(logs.path(first.local_rank))
        console.raw(text if text.endswith("\n") or not text else text + "\n")
    recorded = _script_failure(logs, first.local_rank)
    return rank, (recorded[1] if recorded else first.exitcode if first.exitcode > 0 else 1), describe(first)


class _Echo(threading.Thread):
    """Copies rank 0's log to the console while the job runs (Paddle shows the first worker's output)."""

    def __init__(self, path, console):
        super().__init__(daemon=True)
        self._path, self._console = path, console
        self._offset = os.path.getsize(path) if os.path.exists(path) else 0
        self._stop_event = threading.Event()

    def run(self):
        while not self._stop_event.is_set():
            if not self._pump():
                self._stop_event.wait(0.1)
        self._pump()

    def _pump(self):
        try:
            with open(self._path, "rb") as f:
                if os.fstat(f.fileno()).st_size < self._offset:
                    self._offset = 0          # overwritten
                f.seek(self._offset)
                data = f.read()
        except OSError:
            return False
        if data:
            cut = data.rfind(b"\n") + 1 if self._stop_event.is_set() is False else len(data)
            if cut:
                self._console.raw(data[:cut].decode(errors="replace"))
                self._offset += cut
        return bool(data)

    def stop(self):
        self._stop_event.set()
        self.join(timeout=5)


def _host_ip(args, master_host):
    if args.host:
        return args.host
    if args.max_nodes == 1:
        return "127.0.0.1"
    try:    # the address this node uses to reach the master (no packet is sent)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect((master_host, 1))
            return s.getsockname()[0]
    except OSError:
        return socket.gethostbyname(socket.gethostname())


def _devices(args):
    """(nproc_per_node, device ids or None on CPU)."""
    ids = [d.strip() for d in args.devices.split(",") if d.strip()] if args.devices else None
    gpu = torch.cuda.is_available()
    if gpu and ids is None:
        ids = [str(i) for i in range(torch.cuda.device_count())]
    nproc = args.nproc_per_node or (len(ids) if ids else 1)
    if gpu and ids and nproc > len(ids):
        raise SystemExit(f"launch: --nproc_per_node {nproc} needs {nproc} devices, got {','.join(ids)}")
    return nproc, (ids[:nproc] if gpu else None)


def _rendezvous(args):
    """(backend, endpoint, configs) for torch's rendezvous."""
    master, node_rank = args.master, args.rank
    if args.ips:
        ips = [ip.strip() for ip in args.ips.split(",") if ip.strip()]
        args.min_nodes = args.max_nodes = len(ips)
        master = master or f"{ips[0]}:{args.start_port}"
        if node_rank < 0:
            host = _host_ip(args, ips[0])
            if host not in ips:
                raise SystemExit(f"launch: this node's ip {host} is not in --ips {args.ips}; pass --host or --rank")
            node_rank = ips.index(host)
    if master and master.startswith("etcd://"):
        return "etcd-v2", master[len("etcd://"):], {}
    if args.max_nodes == 1 and not master:
        return "c10d", f"127.0.0.1:{free_ports(1)[0]}", {}
    if not master:
        raise SystemExit("launch: --master ip:port is needed when --nnodes is more than 1")
    if node_rank >= 0:
        if args.min_nodes != args.max_nodes:
            raise SystemExit("launch: --rank needs a fixed --nnodes (no MIN:MAX)")
        return "static", master, {"rank": node_rank}
    return "c10d", master, {"join_timeout": max(args.elastic_timeout * 10, 60)}


_PROBE_SECONDS = 10


def _check_master(endpoint):
    """Fail fast when ``--master`` names a port that another program holds: torch's store client would wait
    for that program's answer for ever. Nothing listening is fine (this node, or the master node later,
    starts the store); a store answering its handshake is fine (another node of this job)."""
    host, _, port = endpoint.rpartition(":")
    try:
        socket.create_connection((host, int(port)), timeout=3).close()
    except OSError:
        return
    outcome = []

    def probe():
        try:
            store = torch.distributed.TCPStore(host, int(port), is_master=False, wait_for_workers=False,
                                               timeout=datetime.timedelta(seconds=_PROBE_SECONDS))
            del store
            outcome.append(None)
        except Exception as e:     # noqa: BLE001 - any failure means no store answers there
            outcome.append(e)

    thread = threading.Thread(target=probe, daemon=True)
    thread.start()
    thread.join(_PROBE_SECONDS + 2)
    if not outcome or outcome[0] is not None:
        why = f"({outcome[0]})" if outcome else f"(no answer in {_PROBE_SECONDS}s)"
        raise SystemExit(f"launch: --master {endpoint}: another program listens on that port and it is not "
                         f"this job's rendezvous store {why}; choose a free port")


def _entry(args):
    worker = ("-u", "-m", "torchpaddle.distributed.launch.worker")
    if args.training_script.endswith(".py"):
        return sys.executable, (*worker, args.training_script, *args.training_script_args)
    return sys.executable, (*worker, "--exec", args.training_script, *args.training_script_args)


def _quiet_torch(level):
    # torch's agent logs its own steps; the console gets Paddle-style lines instead.
    logging.getLogger("torch.distributed.elastic").setLevel(logging.DEBUG if str(level).upper() == "DEBUG"
                                                              else logging.CRITICAL)


def launch(argv=None):
    """Run the job; returns the exit status (0 when every worker succeeded)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(argv)
    console = _Console(args.log_level)
    _quiet_torch(args.log_level)
    nproc, devices = _devices(args)
    backend, endpoint, configs = _rendezvous(args)
    if args.master and backend in ("c10d", "static"):
        _check_master(endpoint)
    max_restart = args.max_restart or 0
    console.info("-----------  Configuration  ----------------------")
    shown = dict(vars(args), nproc_per_node=nproc, max_restart=max_restart, devices=args.devices)
    for key in sorted(shown):
        if key not in ("min_nodes", "max_nodes"):
            console.info(f"{key}: {shown[key]}")
    console.info("--------------------------------------------------")
    elastic = args.min_nodes != args.max_nodes
    console.info(f"Job: {args.job_id}, mode {args.run_mode}, replicas {args.max_nodes}[{args.min_nodes}:"
                 f"{args.max_nodes}], elastic {elastic}")
    os.environ.update({"PADDLE_DISTRI_BACKEND": "nccl" if devices else "gloo",
                       "POD_IP": _host_ip(args, endpoint.rpartition(":")[0]), "PADDLE_JOB_ID": args.job_id,
                       "PADDLE_NNODES": str(args.max_nodes)})
    if args.log_dir:
        os.environ["PADDLE_LOG_DIR"] = os.path.abspath(args.log_dir)
    if devices:
        os.environ["TORCHPADDLE_LAUNCH_DEVICES"] = ",".join(devices)
    logs = _WorkerLogs(args.log_dir, args.log_overwrite)
    entrypoint, entry_args = _entry(args)
    handler = _rdzv_registry.get_rendezvous_handler(RendezvousParameters(
        backend=backend, endpoint=endpoint, run_id=args.job_id, min_nodes=args.min_nodes,
        max_nodes=args.max_nodes, **configs))
    master_addr = master_port = None
    if backend == "static":
        master_addr, _, port = endpoint.rpartition(":")
        master_port = int(port)
    spec = WorkerSpec(role="default", local_world_size=nproc, entrypoint=entrypoint, args=entry_args,
                      rdzv_handler=handler, max_restarts=max_restart, monitor_interval=0.1,
                      master_addr=master_addr, master_port=master_port)
    agent = _Agent(spec=spec, logs_specs=logs, start_method="spawn", console=console, logs=logs)
    console.info(f"Run Pod: {args.job_id}, replicas {nproc}, status ready")
    echo = _Echo(logs.path(0), console) if logs.path(0) else None
    if echo:
        echo.start()
    console.info(f"Watching Pod: {args.job_id}, replicas {nproc}, status running")
    started = time.monotonic()
    try:
        try:
            result = agent.run()
        finally:
            if echo:
                echo.stop()
            handler.shutdown()
        return _finish(console, result, agent, logs, started)
    except KeyboardInterrupt:
        console.info("Terminating with signal SIGINT")
        return 130
    except SignalException as e:
        # torch's agent turns SIGTERM/SIGHUP into this exception after stopping the workers.
        console.info(f"Terminating with signal {signal.Signals(e.sigval).name}")
        return 128 + int(e.sigval)
    finally:
        logs.cleanup()


def _finish(console, result, agent, logs, started):
    if result.is_failed():
        console.info("Pod failed")
        rank, code, what = _report(console, result, logs, agent.exit_times)
        console.info(f"Exit code {code} (rank {rank} {what})")
        return code
    console.info(f"Pod completed in {time.monotonic() - started:.1f}s")
    console.info("Exit code 0")
    return 0


def main(argv=None):
    sys.exit(launch(argv))

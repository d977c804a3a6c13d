"""The command line of ``paddle.distributed.launch``: Paddle's options, defaults and PADDLE_* fallbacks."""
import argparse
import os

__all__ = ["parse_args"]

# PADDLE_* variables that stand in for options not given (Paddle's launch reads the same ones).
_ENV_OPTIONS = {
    "POD_IP": "host", "PADDLE_MASTER": "master", "PADDLE_DEVICES": "devices", "PADDLE_NNODES": "nnodes",
    "PADDLE_RUN_MODE": "run_mode", "PADDLE_LOG_LEVEL": "log_level", "PADDLE_LOG_OVERWRITE": "log_overwrite",
    "PADDLE_NPROC_PER_NODE": "nproc_per_node", "PADDLE_JOB_ID": "job_id", "PADDLE_RANK": "rank",
    "PADDLE_LOG_DIR": "log_dir", "PADDLE_MAX_RESTART": "max_restart", "PADDLE_ELASTIC_LEVEL": "elastic_level",
    "PADDLE_ELASTIC_TIMEOUT": "elastic_timeout", "PADDLE_START_PORT": "start_port", "PADDLE_IPS": "ips",
}


def _bool(text):
    if isinstance(text, bool):
        return text
    value = str(text).strip().lower()
    if value in ("1", "true", "yes", "on", "t", "y"):
        return True
    if value in ("0", "false", "no", "off", "f", "n", ""):
        return False
    raise argparse.ArgumentTypeError(f"expected a boolean, got {text!r}")


def _parser():
    p = argparse.ArgumentParser(prog="python -m paddle.distributed.launch",
                                description="Start a distributed (collective) training job on torch's elastic "
                                            "launcher: one process per device on each node.")
    base = p.add_argument_group("Base Parameters")
    base.add_argument("--master", default=None, help="the master/rendezvous server, ip:port")
    base.add_argument("--legacy", default=False, type=_bool, help="use legacy launch (accepted, ignored)")
    base.add_argument("--rank", default=-1, type=int, help="the node rank (-1: assigned at rendezvous)")
    base.add_argument("--log_level", default="INFO", help="log level. Default INFO")
    base.add_argument("--log_overwrite", default=False, type=_bool,
                      help="overwrite existing log files instead of appending. Default False")
    base.add_argument("--sort_ip", default=False, type=_bool, help="rank node by ip (accepted, ignored)")
    base.add_argument("--enable_gpu_log", default=True, type=_bool, help="accepted, ignored")
    base.add_argument("--nnodes", default="1", help="the number of nodes, N or MIN:MAX (elastic)")
    base.add_argument("--nproc_per_node", default=None, type=int, help="the number of processes in a pod")
    base.add_argument("--log_dir", default="log", help="the path for each process's log. Default ./log")
    base.add_argument("--run_mode", default="collective", help="run mode of the job: collective")
    base.add_argument("--job_id", default="default", help="unique id of the job. Default default")
    base.add_argument("--devices", "--gpus", "--npus", "--xpus", dest="devices", default=None,
                      help="accelerator ids, e.g. 0,1 (on CPU, their count sets nproc_per_node)")
    base.add_argument("--host", default=None, help="host ip of this node")
    base.add_argument("--ips", default=None, help="nodes ips, e.g. 10.10.1.1,10.10.1.2")
    base.add_argument("--start_port", default=6070, type=int, help="port of the master with --ips")
    base.add_argument("--auto_parallel_config", default=None, help="accepted, ignored")
    base.add_argument("--auto_cluster_config", default=False, type=_bool, help="accepted, ignored")
    base.add_argument("--auto_tuner_json", default=None, help="not supported")
    base.add_argument("training_script", help="the script (a .py runs with `import paddle` mapped to torchpaddle)")
    base.add_argument("training_script_args", nargs=argparse.REMAINDER)
    ps = p.add_argument_group("Parameter-Server Parameters (not supported)")
    for name in ("--servers", "--trainers", "--trainer_num", "--server_num", "--gloo_port", "--with_gloo"):
        ps.add_argument(name, default=None)
    elastic = p.add_argument_group("Elastic Parameters")
    elastic.add_argument("--max_restart", default=None, type=int,
                         help="how many times the worker group may restart after a failure. Default 0")
    elastic.add_argument("--elastic_level", default=-1, type=int, help="accepted; restarts follow --max_restart")
    elastic.add_argument("--elastic_timeout", default=30, type=int, help="seconds to wait for the nodes to join")
    return p


def parse_args(argv):
    parser = _parser()
    args = parser.parse_args(argv)
    given = {a.split("=")[0].lstrip("-") for a in argv[:argv.index(args.training_script)]
             if a.startswith("--")} if args.training_script in argv else set()
    for env, name in _ENV_OPTIONS.items():
        value = os.environ.get(env)
        if value not in (None, "") and name not in given:
            action = next(a for a in parser._actions if a.dest == name)
            setattr(args, name, action.type(value) if action.type else value)
    if args.run_mode not in ("collective", None):
        parser.error(f"--run_mode {args.run_mode}: only collective training is supported")
    if args.servers or args.trainers or args.server_num or args.trainer_num:
        parser.error("parameter-server options (--servers/--trainers/--server_num/--trainer_num) are not "
                     "supported; use collective training")
    if args.auto_tuner_json:
        parser.error("--auto_tuner_json is not supported")
    if args.nproc_per_node is not None and args.nproc_per_node < 1:
        parser.error(f"--nproc_per_node must be positive, got {args.nproc_per_node}")
    if args.max_restart is not None and args.max_restart < 0:
        parser.error(f"--max_restart must be >= 0, got {args.max_restart}")
    try:
        low, _, high = str(args.nnodes).partition(":")
        args.min_nodes, args.max_nodes = int(low), int(high or low)
    except ValueError:
        parser.error(f"--nnodes must be N or MIN:MAX, got {args.nnodes!r}")
    if not 1 <= args.min_nodes <= args.max_nodes:
        parser.error(f"--nnodes {args.nnodes}: need 1 <= MIN <= MAX")
    return args

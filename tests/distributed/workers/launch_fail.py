"""A Paddle script (``import paddle``) whose rank 1 fails in the way argv[1] names."""
import os
import signal
import sys
import time

import paddle
import paddle.distributed as dist

dist.init_parallel_env()
mode = sys.argv[1]
rank = dist.get_rank()
restart = os.environ.get("TORCHELASTIC_RESTART_COUNT", "0")
print(f"rank {rank} started, attempt {restart}", flush=True)
if mode == "stuck":      # rank 0 fails while rank 1 is stuck: launch must still end
    if rank == 0:
        sys.exit(3)
    time.sleep(600)
if rank == 1 and (mode != "once" or restart == "0"):
    if mode in ("raise", "once", "always"):
        raise RuntimeError(f"boom in rank 1, attempt {restart}")
    os.kill(os.getpid(), signal.SIGKILL)
x = paddle.ones([2])
dist.all_reduce(x)       # the other ranks wait here for the failed one
print(f"rank {rank} done {x.numpy().tolist()}", flush=True)

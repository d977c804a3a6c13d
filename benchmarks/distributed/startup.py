"""The launch start-up workload of distributed_bench.py: join the job, one barrier, exit."""
import sys

if "--torch" in sys.argv:
    import torch.distributed as dist
    dist.init_process_group("gloo")
    dist.barrier()
else:
    import paddle.distributed as dist
    dist.init_parallel_env()
    dist.barrier()

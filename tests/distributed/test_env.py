"""The environment, groups, errors before init, fleet and DistributedStrategy in one process (the values and
error types observed in PaddlePaddle 3.3.1)."""
import datetime
import subprocess

import numpy as np
import pytest

import torchpaddle as paddle
import torchpaddle.distributed as dist
from torchpaddle.distributed import fleet
from torchpaddle.framework.tensor import PaddleAssertionError

_VARS = ["PADDLE_TRAINER_ID", "PADDLE_TRAINERS_NUM", "PADDLE_TRAINER_ENDPOINTS", "PADDLE_CURRENT_ENDPOINT",
         "PADDLE_RANK_IN_NODE", "PADDLE_LOCAL_RANK", "RANK", "WORLD_SIZE", "LOCAL_RANK", "FLAGS_selected_gpus",
         "FLAGS_nccl_nrings", "PADDLE_PG_TIMEOUT", "PADDLE_DISTRI_BACKEND", "MASTER_ADDR", "MASTER_PORT",
         "PADDLE_MASTER"]


@pytest.fixture
def env(monkeypatch):
    for name in _VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(dist.env, "_GLOBAL_ENV", [None])     # read afresh
    return monkeypatch


def test_parallel_env_defaults_match_paddle(env):
    e = dist.ParallelEnv()
    assert (e.rank, e.world_size, e.local_rank, e.nranks) == (0, 1, 0, 1)
    # NOTE: Paddle waits 30 minutes (1800000); a CPU job here waits 5 minutes for a hung rank (see env.py)
    assert (e.current_endpoint, e.trainer_endpoints, e.nrings, e.pg_timeout) == ("", [""], 1, 300000)
    assert e.device_id == 0 and e.dev_id == 0
    assert (dist.get_rank(), dist.get_world_size(), dist.is_initialized(), dist.is_available()) == (0, 1, False, True)


def test_collective_timeout_default_and_override(env):
    assert dist.env._timeout("gloo") == datetime.timedelta(minutes=5)
    assert dist.env._timeout("nccl") == datetime.timedelta(minutes=30)
    env.setenv("PADDLE_PG_TIMEOUT", "60000")
    assert dist.env._timeout("gloo") == datetime.timedelta(minutes=1) == datetime.timedelta(
        milliseconds=dist.ParallelEnv().pg_timeout)
    env.setenv("PADDLE_PG_TIMEOUT", "0")
    with pytest.raises(ValueError, match="PADDLE_PG_TIMEOUT"):
        dist.env._timeout("gloo")


def test_parallel_env_reads_paddle_then_torch_variables(env):
    env.setenv("RANK", "3")
    env.setenv("WORLD_SIZE", "8")
    env.setenv("LOCAL_RANK", "1")
    e = dist.ParallelEnv()
    assert (e.rank, e.world_size) == (3, 8)
    env.setenv("PADDLE_TRAINER_ID", "2")
    env.setenv("PADDLE_TRAINERS_NUM", "4")
    env.setenv("PADDLE_TRAINER_ENDPOINTS", "10.0.0.1:6170,10.0.0.1:6171,10.0.0.2:6170,10.0.0.2:6171")
    env.setenv("PADDLE_CURRENT_ENDPOINT", "10.0.0.2:6170")
    env.setenv("FLAGS_nccl_nrings", "2")
    e = dist.ParallelEnv()
    assert (e.rank, e.world_size, e.current_endpoint, e.nrings) == (2, 4, "10.0.0.2:6170", 2)
    assert e.trainer_endpoints[2] == "10.0.0.2:6170" and len(e.trainer_endpoints) == 4
    env.setenv("PADDLE_TRAINER_ID", "x")
    with pytest.raises(ValueError, match="PADDLE_TRAINER_ID"):
        dist.ParallelEnv()
    env.setenv("PADDLE_TRAINER_ID", "0")
    env.setenv("FLAGS_nccl_nrings", "9")
    with pytest.raises(ValueError, match="nrings"):
        dist.ParallelEnv()


def test_batch_sampler_shards_from_the_environment(env):
    env.setenv("PADDLE_TRAINER_ID", "1")
    env.setenv("PADDLE_TRAINERS_NUM", "2")
    sampler = paddle.io.DistributedBatchSampler(list(range(10)), batch_size=2)
    assert (sampler.local_rank, sampler.nranks) == (1, 2)
    assert list(sampler) == [[2, 3], [6, 7], [9]]
    env.delenv("PADDLE_TRAINER_ID")
    env.delenv("PADDLE_TRAINERS_NUM")
    env.setenv("RANK", "2")          # under torchrun
    env.setenv("WORLD_SIZE", "3")
    sampler = paddle.io.DistributedBatchSampler(list(range(9)), batch_size=3)
    assert (sampler.local_rank, sampler.nranks, list(sampler)) == (2, 3, [[6, 7, 8]])


def test_init_parallel_env_single_process_warns(env):
    with pytest.warns(UserWarning, match="not a parallel execution environment"):
        assert dist.init_parallel_env() is None
    assert not dist.is_initialized()


def test_init_errors(env):
    env.setenv("PADDLE_TRAINERS_NUM", "2")
    env.setenv("PADDLE_TRAINER_ID", "0")
    env.setenv("PADDLE_DISTRI_BACKEND", "bkcl")
    with pytest.raises(ValueError, match="bkcl"):
        dist.init_parallel_env()
    env.setenv("PADDLE_DISTRI_BACKEND", "gloo")
    with pytest.raises(RuntimeError, match="MASTER_ADDR"):
        dist.init_parallel_env()
    env.setenv("PADDLE_PG_TIMEOUT", "-5")
    with pytest.raises(ValueError, match="PADDLE_PG_TIMEOUT"):
        dist.init_parallel_env()
    env.setenv("PADDLE_PG_TIMEOUT", "1000")
    env.setenv("PADDLE_TRAINER_ID", "2")
    with pytest.raises(ValueError, match="out of range"):
        dist.init_parallel_env()


T = paddle.ones([2])
BEFORE_INIT = [
    ("all_reduce", lambda: dist.all_reduce(T)), ("broadcast", lambda: dist.broadcast(T, 0)),
    ("reduce", lambda: dist.reduce(T, 0)), ("all_gather", lambda: dist.all_gather([], T)),
    ("all_gather_object", lambda: dist.all_gather_object([], 1)),
    ("broadcast_object_list", lambda: dist.broadcast_object_list([1], 0)),
    ("scatter", lambda: dist.scatter(T, [T], 0)), ("scatter_object_list", lambda: dist.scatter_object_list([], [1])),
    ("gather", lambda: dist.gather(T, [], 0)), ("reduce_scatter", lambda: dist.reduce_scatter(T, [T])),
    ("alltoall", lambda: dist.alltoall([], [T])), ("alltoall_single", lambda: dist.alltoall_single(T, T)),
    ("send", lambda: dist.send(T, 1)), ("recv", lambda: dist.recv(T, 1)), ("isend", lambda: dist.isend(T, 1)),
    ("irecv", lambda: dist.irecv(T, 1)), ("barrier", lambda: dist.barrier()),
    ("new_group", lambda: dist.new_group([0])), ("get_backend", lambda: dist.get_backend()), ("destroy_process_group", lambda: dist.destroy_process_group()),
]


@pytest.mark.parametrize("api,call", BEFORE_INIT, ids=[a for a, _ in BEFORE_INIT])
def test_collectives_before_init_raise(env, api, call):
    with pytest.raises(RuntimeError, match=rf"{api}: the default process group is not initialized; call "
                                           r"paddle.distributed.init_parallel_env\(\) first"):
        call()


def test_group_lookup_and_types(env):
    with pytest.warns(UserWarning, match="Group 5 is not initialized"):
        assert dist.get_group(5) is None
    with pytest.raises(TypeError, match="group must be a paddle.distributed.Group"):
        dist.all_reduce(T, group="world")
    with pytest.raises(TypeError, match="group"):
        dist.get_rank("world")
    g = dist.Group(1, 12, [0, 2, 3], name="g")
    assert (g.rank, g.ranks, g.nranks, g.world_size, g.id, g.name) == (1, [0, 2, 3], 3, 3, 12, "g")
    assert g.is_member() and g.get_group_rank(3) == 2 and g.get_global_rank(1) == 2
    assert repr(g) == "rank: 1, nranks: 3, id: 12, ranks: 0, 2, 3; name: g"
    outsider = dist.Group(-1, 13, [0, 1])
    assert (outsider.world_size, outsider.is_member(), outsider.get_group_rank(0)) == (-1, False, -1)
    assert dist.get_rank(outsider) == -1 and dist.get_world_size(outsider) == -1


def test_reduce_op_and_task():
    assert (dist.ReduceOp.SUM, dist.ReduceOp.MAX, dist.ReduceOp.MIN, dist.ReduceOp.PROD, dist.ReduceOp.AVG) == \
        (0, 1, 2, 3, 4)
    task = dist.collective.Task()
    assert task.is_completed() and task.wait() and task.is_sync()


def test_new_group_signature_default_timeout():
    import inspect
    sig = inspect.signature(dist.new_group)
    assert sig.parameters["timeout"].default == datetime.timedelta(seconds=1800)


def test_data_parallel_single_process(env):
    layer = paddle.nn.Linear(2, 2)
    dp = paddle.DataParallel(layer, find_unused_parameters=True)
    assert dp.__dict__["_reducer"] is None
    with pytest.raises(ValueError, match="comm_buffer_size"):
        paddle.DataParallel(layer, comm_buffer_size=0)
    with pytest.raises(TypeError, match="group"):
        paddle.DataParallel(layer, group=3)


def test_distributed_strategy_defaults_and_checks():
    s = fleet.DistributedStrategy()
    assert (s.amp, s.recompute, s.find_unused_parameters, s.fuse_grad_size_in_MB, s.last_comm_group_size_MB,
            s.fuse_all_reduce_ops, s.a_sync, s.nccl_comm_num) == (False, False, False, 32, 1.0, True, True, 1)
    assert s.gradient_merge_configs == {"k_steps": 1, "avg": True}
    assert s.hybrid_configs["dp_degree"] == -1 and s.hybrid_configs["mp_degree"] == 1
    assert s.amp_configs["init_loss_scaling"] == 32768.0
    with pytest.warns(UserWarning, match="amp"):
        s.amp = "yes"           # Paddle warns and keeps the old value
    assert s.amp is False
    s.amp = True
    s.amp_configs = {"init_loss_scaling": 1024.0}
    assert s.amp and s.amp_configs["init_loss_scaling"] == 1024.0 and s.amp_configs["incr_ratio"] == 2.0
    with pytest.raises(PaddleAssertionError, match="key:bogus not in amp_configs"):
        s.amp_configs = {"bogus": 1}
    with pytest.raises(TypeError):
        s.amp_configs = [1]
    fresh = fleet.DistributedStrategy()
    assert fresh.amp is False and fresh.amp_configs["init_loss_scaling"] == 32768.0


def test_fleet_single_process(env, tmp_path):
    with pytest.raises(NotImplementedError, match="parameter-server"):
        fleet.init()
    with pytest.raises(TypeError, match="strategy"):
        fleet.init(is_collective=True, strategy={"amp": True})
    s = fleet.DistributedStrategy()
    s.hybrid_configs = {"mp_degree": 2}
    with pytest.raises(NotImplementedError, match="mp_degree=2"):
        fleet.init(is_collective=True, strategy=s)
    strategy = fleet.DistributedStrategy()
    strategy.find_unused_parameters = True
    fleet.init(is_collective=True, strategy=strategy)
    assert (fleet.worker_index(), fleet.worker_num(), fleet.is_first_worker(), fleet.is_worker()) == (0, 1, True, True)
    fleet.barrier_worker()
    model = fleet.distributed_model(paddle.nn.Linear(3, 1))
    assert isinstance(model, paddle.DataParallel) and model.find_unused_parameters
    opt = fleet.distributed_optimizer(paddle.optimizer.SGD(learning_rate=0.5, parameters=model.parameters()))
    x = paddle.to_tensor(np.ones((2, 3), "float32"))
    w0 = model._layers.weight.numpy().copy()
    model(x).sum().backward()
    opt.step()
    opt.clear_grad()
    np.testing.assert_allclose(model._layers.weight.numpy(), w0 - 0.5 * 2.0, rtol=1e-6)
    assert opt.get_lr() == 0.5
    hcg = fleet.get_hybrid_communicate_group()
    assert (hcg.get_data_parallel_world_size(), hcg.get_model_parallel_world_size()) == (1, 1)


def test_signatures_match_paddle():
    """The public signatures against real Paddle 3.3.1 (skipped without its virtualenv)."""
    import paddle_ref
    if not paddle_ref.available():
        pytest.skip("reference PaddlePaddle venv not found")
    names = ["init_parallel_env", "get_rank", "get_world_size", "all_reduce", "broadcast", "reduce", "all_gather",
             "all_gather_object", "broadcast_object_list", "scatter", "scatter_object_list", "gather",
             "reduce_scatter", "alltoall", "alltoall_single", "send", "recv", "isend", "irecv", "barrier", "wait",
             "new_group", "get_group", "destroy_process_group", "get_backend", "spawn", "is_initialized",
             "is_available"]
    code = ("import inspect, json, paddle.distributed as d\n"
            f"print(json.dumps({{n: [p for p in inspect.signature(getattr(d, n)).parameters] for n in {names!r}}}))")
    out = subprocess.run([paddle_ref.PYTHON, "-c", code], capture_output=True, text=True, timeout=300)
    import json
    ref = json.loads(out.stdout.strip().splitlines()[-1])
    import inspect
    for name in names:
        assert list(inspect.signature(getattr(dist, name)).parameters) == ref[name], name

"""DataLoader worker processes: same batches as in-process, worker info and seeding, persistent workers, and
failures (an exception in a worker, a worker killed by a signal, a timeout) surfacing promptly in the main
process. Each test runs under an alarm, so a hang fails the test instead of stalling the run."""
import os
import signal
import time

import numpy as np
import pytest

import torchpaddle as paddle
from torchpaddle import io

pytestmark = pytest.mark.multiprocess


@pytest.fixture(autouse=True)
def deadline():
    def expire(signum, frame):
        raise TimeoutError("DataLoader test exceeded its 60 s deadline (a hang?)")
    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(60)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


class Rows(io.Dataset):
    """Sample i: a float32 row, an int label, a string; fails or dies at chosen indices."""

    def __init__(self, n, fail_at=None, die_at=None, sleep_at=None):
        self.n, self.fail_at, self.die_at, self.sleep_at = n, fail_at, die_at, sleep_at

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i == self.fail_at:
            raise KeyError(f"bad record {i}")
        if i == self.die_at:
            os.kill(os.getpid(), signal.SIGKILL)
        if i == self.sleep_at:
            time.sleep(1.5)
        return np.arange(3, dtype=np.float32) + i, i, f"s{i}"


def _plain(batches):
    return [[f.numpy().tolist() if isinstance(f, paddle.Tensor) else f for f in b] for b in batches]


def test_two_workers_give_the_same_batches_as_none():
    data = Rows(23)
    single = list(io.DataLoader(data, batch_size=4))
    multi = list(io.DataLoader(data, batch_size=4, num_workers=2))
    assert _plain(multi) == _plain(single)
    # use_shared_memory=False (batches through the result pipe in Paddle) gives the same batches
    unshared = list(io.DataLoader(data, batch_size=4, num_workers=2, use_shared_memory=False, drop_last=True))
    assert _plain(unshared) == _plain(single[:-1])
    assert multi[0][0].dtype == paddle.float32 and multi[0][1].dtype == paddle.int64
    assert multi[0][2] == ["s0", "s1", "s2", "s3"]
    multi[0][0][0, 0] = 5.0   # a Tensor from shared memory is an ordinary writable Tensor
    assert multi[0][0].numpy()[0, 0] == 5.0
    # host tensors: a worker forked after CUDA started cannot read GPU ones (in Paddle neither)
    cpu = paddle.CPUPlace()
    tensors = io.TensorDataset([paddle.to_tensor(np.arange(12, dtype="float32").reshape([6, 2]), place=cpu),
                                paddle.to_tensor(np.arange(6), place=cpu)])
    a = list(io.DataLoader(tensors, batch_size=4, num_workers=2))
    assert _plain(a) == _plain(list(io.DataLoader(tensors, batch_size=4)))


def test_worker_info_seeds_and_init_fn():
    class Who(io.Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            info = io.get_worker_info()
            assert info.dataset is self
            return np.array([info.id, info.num_workers, info.seed % 997, os.getpid(),
                             int(os.environ["N5_INIT"])])

    def init(worker_id):
        os.environ["N5_INIT"] = str(100 + worker_id)

    rows = np.concatenate([b.numpy() for b in io.DataLoader(Who(), batch_size=1, num_workers=2,
                                                             worker_init_fn=init)])
    assert rows[:, 0].tolist() == [0, 1, 0, 1] and set(rows[:, 1]) == {2}
    assert len(set(rows[:, 2])) == 1                      # Paddle's WorkerInfo.seed: the shared base seed
    assert len(set(rows[:, 3])) == 2 and os.getpid() not in set(rows[:, 3])
    assert rows[:, 4].tolist() == [100, 101, 100, 101]


def test_workers_leave_paddle_generator_alone():
    paddle.seed(9)
    expected = paddle.rand([3]).numpy()
    paddle.seed(9)
    list(io.DataLoader(Rows(4), batch_size=2, num_workers=2))
    list(io.DataLoader(Rows(4), batch_size=2))
    np.testing.assert_array_equal(paddle.rand([3]).numpy(), expected)


def test_persistent_workers_reuse_processes_across_epochs():
    class Pid(io.Dataset):
        def __len__(self):
            return 6

        def __getitem__(self, i):
            return np.array([i, os.getpid()])

    loader = io.DataLoader(Pid(), batch_size=2, num_workers=2, persistent_workers=True)
    epochs = [np.concatenate([b.numpy() for b in loader]) for _ in range(2)]
    assert epochs[0][:, 0].tolist() == epochs[1][:, 0].tolist() == list(range(6))
    assert set(epochs[0][:, 1]) == set(epochs[1][:, 1])


def test_persistent_workers_recover_after_a_worker_error():
    loader = io.DataLoader(Rows(6, fail_at=4), batch_size=2, num_workers=2, persistent_workers=True)
    for _ in range(2):
        with pytest.raises(KeyError):
            list(loader)
    ok = io.DataLoader(Rows(6), batch_size=2, num_workers=2, persistent_workers=True)
    assert len(list(ok)) == len(list(ok)) == 3


def test_iterable_dataset_without_sharding_repeats_per_worker():
    class Stream(io.IterableDataset):
        def __iter__(self):
            return iter([np.array([i]) for i in range(3)])

    got = sorted(int(x) for b in io.DataLoader(Stream(), batch_size=2, num_workers=2) for x in b.numpy().ravel())
    assert got == [0, 0, 1, 1, 2, 2]


def test_worker_exception_names_worker_and_original_error():
    loader = io.DataLoader(Rows(8, fail_at=5), batch_size=1, num_workers=2)
    start = time.time()
    with pytest.raises(KeyError) as info:
        list(loader)
    message = str(info.value)
    assert "worker process 1" in message and "bad record 5" in message and "__getitem__" in message
    assert time.time() - start < 30
    with pytest.raises(KeyError, match="bad record 5"):   # in-process, the original exception itself
        list(io.DataLoader(Rows(8, fail_at=5), batch_size=1))


def test_worker_killed_by_signal_is_a_runtime_error_not_a_hang():
    loader = io.DataLoader(Rows(8, die_at=3), batch_size=1, num_workers=2)
    start = time.time()
    with pytest.raises(RuntimeError, match="(?i)worker.*(killed|exited unexpectedly)"):
        list(loader)
    assert time.time() - start < 30


def test_timeout_is_respected():
    loader = io.DataLoader(Rows(4, sleep_at=1), batch_size=1, num_workers=1, timeout=0.3)
    start = time.time()
    with pytest.raises(RuntimeError, match="timed out"):
        list(loader)
    assert time.time() - start < 30

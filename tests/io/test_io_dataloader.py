"""paddle.io in one process: what the reference cases cannot show (random orders from Paddle's generator,
where only permutation properties are checked), our deliberate differences from Paddle, and error cases."""
import types

import numpy as np
import pytest

import torchpaddle as paddle
from torchpaddle import io


class Items(io.Dataset):
    def __init__(self, items):
        self.items = items

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def _ids(dataset):
    return [int(np.asarray(dataset[i]).reshape(-1)[0]) for i in range(len(dataset))]


def test_paddle_io_is_the_data_package_and_save_load_stay_top_level():
    assert paddle.io.DataLoader is io.DataLoader
    assert callable(paddle.save) and callable(paddle.load)
    assert sorted(io.__all__) == sorted(["Dataset", "IterableDataset", "TensorDataset", "ComposeDataset",
                                         "ChainDataset", "BatchSampler", "DistributedBatchSampler", "DataLoader",
                                         "get_worker_info", "Sampler", "SequenceSampler", "RandomSampler",
                                         "WeightedRandomSampler", "random_split", "Subset", "SubsetRandomSampler",
                                         "ConcatDataset"])
    from torchpaddle.io.dataloader.collate import default_collate_fn
    batch = default_collate_fn([(np.ones(2), 1), (np.zeros(2), 2)])
    assert isinstance(batch, list) and batch[0].shape == (2, 2) and batch[1].tolist() == [1, 2]


def test_random_split_is_a_partition_repeatable_under_paddle_seed():
    data = Items([np.array([i]) for i in range(23)])
    for lengths in ([0.5, 0.3, 0.2], [10, 13], [1.0]):
        paddle.seed(5)
        parts = io.random_split(data, lengths)
        ids = [_ids(p) for p in parts]
        assert sorted(sum(ids, [])) == list(range(23))
        paddle.seed(5)
        assert [_ids(p) for p in io.random_split(data, lengths)] == ids
    assert [len(p) for p in io.random_split(data, [0.5, 0.3, 0.2])] == [12, 7, 4]
    g = paddle.Generator()
    g.manual_seed(1)
    first = _ids(io.random_split(data, [23], generator=g)[0])
    g.manual_seed(1)
    assert _ids(io.random_split(data, [23], generator=g)[0]) == first
    with pytest.raises(TypeError):
        io.random_split(data, [10, 13], generator="seed")
    with pytest.raises(ValueError):
        io.random_split(data, [10, 12])
    with pytest.raises(ValueError):
        io.random_split(data, [25, -2])


def test_subset_random_sampler_is_a_permutation_repeatable_under_paddle_seed():
    indices = [3, 9, 4, 12, 0]
    paddle.seed(3)
    first = list(io.SubsetRandomSampler(indices))
    assert sorted(first) == sorted(indices)
    paddle.seed(3)
    assert list(io.SubsetRandomSampler(indices)) == first
    loader = io.DataLoader(Items([np.array([i]) for i in range(13)]),
                           batch_sampler=io.BatchSampler(sampler=io.SubsetRandomSampler(indices), batch_size=2))
    assert sorted(int(x) for b in loader for x in b.numpy().ravel()) == sorted(indices)


def test_weighted_sampler_accepts_tensor_list_and_2d_weights():
    np.random.seed(0)
    assert len(list(io.WeightedRandomSampler([0.0, 1.0, 0.0], 4))) == 4
    assert set(io.WeightedRandomSampler(paddle.to_tensor([0.0, 0.0, 2.0]), 3)) == {2}
    # Paddle divides each column by a row sum here; we normalise each row (2-D weights draw per row)
    s = io.WeightedRandomSampler(np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 5.0]]), 2)
    assert len(s) == 4 and list(s) == [0, 0, 2, 2]
    for bad, exc in (([1.0, -1.0], ValueError), ([np.nan, 1.0], ValueError), ([0.0, 0.0], ValueError),
                     (["a", "b"], TypeError), (np.ones((2, 2, 2)), ValueError)):
        with pytest.raises(exc):
            io.WeightedRandomSampler(bad, 1)
    with pytest.raises(ValueError):
        io.WeightedRandomSampler([1.0, 0.0], 2, replacement=False)


def test_strings_and_number_only_batches_are_returned_as_is():
    # Paddle drops batches that hold no array at all; we return them.
    assert list(io.DataLoader(Items(["a", "b", "c"]), batch_size=2)) == [["a", "b"], ["c"]]
    out = list(io.DataLoader(Items([1, 2, 3]), batch_size=None))
    assert out == [1, 2, 3]


def test_custom_collate_outputs_become_tensors_in_paddle_structure():
    data = Items([(np.full(2, i, np.float32), i) for i in range(5)])

    def collate(batch):
        xs, ys = zip(*batch)
        return {"x": np.stack(xs), "y": paddle.to_tensor(list(ys)), "n": len(batch), "tag": ("t", np.int32(1))}

    out = list(io.DataLoader(data, batch_size=2, collate_fn=collate))
    assert len(out) == 3
    b = out[0]
    assert isinstance(b["x"], paddle.Tensor) and b["x"].shape == [2, 2] and b["x"].dtype == paddle.float32
    assert isinstance(b["y"], paddle.Tensor) and b["y"].numpy().tolist() == [0, 1]
    assert b["n"] == 2 and b["tag"] == ["t", np.int32(1)]
    assert b["x"].stop_gradient
    # arrays are copied out of the dataset, as Paddle copies them
    src = np.zeros(3, np.float32)
    got = next(iter(io.DataLoader(Items([src]), batch_size=None)))
    got[0] = 7.0
    assert src[0] == 0.0


def test_tuple_collate_output_becomes_a_list_and_tensors_stack():
    data = Items([paddle.full([2], float(i)) for i in range(4)])
    batches = list(io.DataLoader(data, batch_size=3, collate_fn=lambda b: (paddle.stack(b), len(b))))
    assert isinstance(batches[0], list) and batches[0][0].shape == [3, 2] and batches[0][1] == 3
    tensors = io.TensorDataset([paddle.arange(10, dtype="float32").reshape([5, 2]), paddle.arange(5)])
    loader = io.DataLoader(tensors, batch_size=2, shuffle=False)
    first = next(iter(loader))
    assert first[0].numpy().tolist() == [[0.0, 1.0], [2.0, 3.0]] and first[1].numpy().tolist() == [0, 1]


def test_collate_errors_name_the_problem():
    with pytest.raises(RuntimeError, match="fields number"):
        list(io.DataLoader(Items([(np.zeros(1),), (np.zeros(1), np.zeros(1))]), batch_size=2))
    with pytest.raises(ValueError, match=r"shapes \[\(2,\), \(3,\)\]"):
        list(io.DataLoader(Items([np.zeros(2), np.zeros(3)]), batch_size=2))
    with pytest.raises(ValueError, match="cannot stack"):
        list(io.DataLoader(Items([paddle.zeros([2]), paddle.zeros([3])]), batch_size=2))
    with pytest.raises(TypeError, match="batch data"):
        list(io.DataLoader(Items([object(), object()]), batch_size=2))


def test_dataloader_argument_errors():
    data = Items([np.zeros(1)] * 4)
    for kwargs, exc in (({"batch_size": -1}, ValueError), ({"batch_size": 1.5}, ValueError),
                        ({"num_workers": -1}, AssertionError), ({"timeout": -1}, AssertionError),
                        ({"prefetch_factor": 0}, AssertionError), ({"collate_fn": 3}, TypeError),
                        ({"worker_init_fn": "f"}, TypeError), ({"places": []}, ValueError),
                        ({"batch_sampler": io.BatchSampler(data), "shuffle": True}, AssertionError)):
        with pytest.raises(exc):
            io.DataLoader(data, **kwargs)
    with pytest.raises(TypeError, match="dataset"):
        io.DataLoader(42)


def test_distributed_batch_sampler_defaults_from_paddle_env(monkeypatch):
    monkeypatch.setenv("PADDLE_TRAINERS_NUM", "3")
    monkeypatch.setenv("PADDLE_TRAINER_ID", "1")
    s = io.DistributedBatchSampler(list(range(10)), batch_size=2)
    assert (s.nranks, s.local_rank, s.num_samples, s.total_size) == (3, 1, 4, 12)
    assert list(s) == [[2, 3], [8, 9]]
    monkeypatch.delenv("PADDLE_TRAINERS_NUM")
    monkeypatch.delenv("PADDLE_TRAINER_ID")
    s = io.DistributedBatchSampler(list(range(5)), batch_size=2)
    assert (s.nranks, s.local_rank) == (1, 0) and list(s) == [[0, 1], [2, 3], [4]]
    with pytest.raises(ValueError, match="rank 2"):
        io.DistributedBatchSampler(list(range(5)), 2, num_replicas=2, rank=2)


def test_distributed_batch_sampler_ranks_cover_the_padded_dataset():
    for n, nranks, bs in ((10, 3, 2), (17, 4, 3), (5, 2, 8), (1, 3, 1)):
        for shuffle in (False, True):
            seen = []
            for rank in range(nranks):
                s = io.DistributedBatchSampler(list(range(n)), bs, num_replicas=nranks, rank=rank, shuffle=shuffle)
                got = sum(list(s), [])
                assert len(got) == s.num_samples
                seen += got
            # every index is used, and the padding (total_size - n) is the only repetition
            assert sorted(set(seen)) == list(range(n)) and len(seen) == s.total_size


def test_loader_with_distributed_sampler_and_len():
    data = Items([np.array([i]) for i in range(11)])
    sampler = io.DistributedBatchSampler(data, batch_size=2, num_replicas=2, rank=1, drop_last=True)
    loader = io.DataLoader(data, batch_sampler=sampler)
    assert len(loader) == len(sampler) == 3
    assert [b.numpy().ravel().tolist() for b in loader] == [[2, 3], [6, 7], [10, 0]]
    it = iter(loader)
    assert len(it) == 3


def test_iterable_dataset_rules():
    class Stream(io.IterableDataset):
        def __iter__(self):
            return iter([np.array([i]) for i in range(5)])

    loader = io.DataLoader(Stream(), batch_size=2)
    assert [b.numpy().ravel().tolist() for b in loader] == [[0, 1], [2, 3], [4]]
    assert [b.numpy().tolist() for b in io.DataLoader(Stream(), batch_size=None)] == [[i] for i in range(5)]
    with pytest.raises(ValueError):
        len(loader)
    with pytest.raises(ValueError):
        io.DataLoader(Stream(), shuffle=True)


def test_worker_info_is_none_in_main_process_and_read_only():
    assert io.get_worker_info() is None
    from torchpaddle.io.dataloader.worker import WorkerInfo
    info = WorkerInfo(id=0, num_workers=1, seed=3, dataset=None)
    with pytest.raises(RuntimeError):
        info.id = 2


def test_static_mode_return_list_false_gives_feed_dicts():
    data = Items([(np.full(2, i, np.float32), np.array([i])) for i in range(3)])
    paddle.enable_static()
    try:
        feeds = [types.SimpleNamespace(name="x"), types.SimpleNamespace(name="y")]
        with pytest.raises(AssertionError):
            io.DataLoader(data, return_list=False)
        out = list(io.DataLoader(data, feed_list=feeds, return_list=False, batch_size=2))
    finally:
        paddle.disable_static()
    assert len(out) == 2 and isinstance(out[0], list) and sorted(out[0][0]) == ["x", "y"]
    assert out[0][0]["x"].shape == [2, 2] and out[1][0]["y"].numpy().tolist() == [[2]]


def test_datasets_and_samplers_basics():
    data = Items(list(range(4)))
    assert list(io.SequenceSampler(data)) == [0, 1, 2, 3]
    sub = io.Subset(data, [3, 1])
    assert len(sub) == 2 and [sub[0], sub[1]] == [3, 1]
    cat = io.ConcatDataset([data, Items([10, 11])])
    assert [cat[i] for i in range(len(cat))] == [0, 1, 2, 3, 10, 11] and cat[-2] == 10
    with pytest.raises(IndexError):
        cat[6]
    with pytest.raises(ValueError):
        cat[-7]
    with pytest.raises(TypeError):
        io.TensorDataset([paddle.ones([2]), np.ones(2)])
    with pytest.raises(ValueError):
        io.TensorDataset([paddle.to_tensor(1.0)])
    with pytest.raises(NotImplementedError):
        iter(io.Sampler(data))
    assert io.Dataset[int] is not None   # generic, as in Paddle

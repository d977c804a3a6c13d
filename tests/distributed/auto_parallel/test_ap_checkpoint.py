"""Sharded checkpoints (save_state_dict / load_state_dict / load_merged_state_dict / ShardedWeight): saved on 4
gloo ranks and loaded on 2 and 1, saved on a 2-rank mesh and loaded on 4, each with other placements; Paddle's
file layout both ways with real Paddle 3.3.1; hostile and corrupt files refused without running anything."""
import io
import os
import pickle
import sys
import types
import warnings

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, HERE)

import paddle_ref  # noqa: E402
import torchpaddle as paddle  # noqa: E402
import torchpaddle.distributed as dist  # noqa: E402
from _harness import check_ok, run_ranks  # noqa: E402
from ckpt_cases import LOAD, global_values  # noqa: E402
from ckpt_reference import D, flat_numpy, read, trained_state, write  # noqa: E402
from torchpaddle.framework.io import CorruptFileError, UnsafePickleError  # noqa: E402

WORKER = os.path.join(HERE, "_ckpt_worker.py")
MODULE = "tests.distributed.auto_parallel.ckpt_reference"
G = global_values()
PLACEMENTS = {"S0": "[Shard(dim=0)]", "S1": "[Shard(dim=1)]", "R": "[Replicate()]",
              "P": "[Partial(reduce_type=SUM)]", "plain": "None"}


def _job(n, out, *actions):
    check_ok(run_ranks([WORKER, os.path.join(out, "rank{}.pkl"), *actions], n, timeout=300))
    found = []
    for rank in range(n):
        with open(os.path.join(out, f"rank{rank}.pkl"), "rb") as f:
            res = pickle.load(f)
        assert "error" not in res, f"rank {rank}:\n{res['error']}"
        found.append(res)
    return found


def _check_loaded(per_rank, n):
    for rank, found in enumerate(per_rank):
        assert sorted(found) == sorted(LOAD)
        for key, kind in LOAD.items():
            got, want = found[key], G[key]
            if kind == "sw":
                rows = want.shape[0] // n
                assert got["offset"] == (rank * rows, 0)
                np.testing.assert_array_equal(got["local"], want[rank * rows:(rank + 1) * rows], err_msg=key)
                continue
            np.testing.assert_array_equal(got["value"], want, err_msg=f"rank {rank} {key}")
            assert got["dtype"] == f"paddle.{want.dtype.name}", key
            if kind.startswith("2d:"):
                expect = "[Shard(dim=1), Shard(dim=0)]" if n == 4 else "[Shard(dim=1)]"
            else:
                expect = PLACEMENTS[kind]
            assert got["placements"] == expect, (key, got["placements"])
            if kind in ("S0", "S1"):   # torch.chunk's split: ceil(size / n) per rank, the last ones smaller
                dim = int(kind[1])
                step = -(-want.shape[dim] // n)
                assert got["local_shape"][dim] == max(0, min(step, want.shape[dim] - rank * step)), key
            if kind == "R":
                assert got["local_shape"] == list(want.shape), key


def _load_on_1(ck4):
    mesh = dist.ProcessMesh([0], dim_names=["x"])
    state = {}
    for key, kind in LOAD.items():
        zeros = paddle.zeros(list(G[key].shape), dtype=G[key].dtype.name)
        if kind in ("S0", "S1", "R", "P"):
            place = {"S0": dist.Shard(0), "S1": dist.Shard(1), "R": dist.Replicate(), "P": dist.Partial()}[kind]
            zeros = dist.shard_tensor(zeros, mesh, [place])
        state[key] = zeros
    before = {k: id(v) for k, v in state.items()}
    dist.load_state_dict(state, ck4)
    for key, value in state.items():
        assert id(value) == before[key], "loaded in place"
        np.testing.assert_array_equal(value.numpy(), G[key], err_msg=key)
    merged = dist.load_merged_state_dict(ck4, prefix="opt")
    assert sorted(merged) == ["part", "to_partial", "w_col_beta1_pow", "w_col_moment1"]
    for key, value in merged.items():
        np.testing.assert_array_equal(value.numpy(), G["opt." + key])


def _check_layout(ck4):
    files = sorted(os.listdir(ck4))
    assert files == ["0.metadata", "0_0.distcp", "1_0.distcp", "2_0.distcp", "3_0.distcp"]
    held = {}
    for rank in range(4):
        with open(os.path.join(ck4, f"{rank}_0.distcp"), "rb") as f:
            data = pickle.load(f)   # our own file: a plain pickle of NumPy arrays and the name table
        names = data.pop("StructuredToParameterName@@")
        assert sorted(names) == sorted(data)
        for key, array in data.items():
            assert isinstance(array, np.ndarray)
            held.setdefault(key, []).append(rank)
    # replicated chunks are written once, spread over the files
    assert len(held["model.bias"]) == 1 and len(held["step"]) == 1
    assert sorted(held["model.w2d"]) == [0, 1, 2, 3]
    with open(os.path.join(ck4, "0.metadata"), "rb") as f:
        raw = f.read()
    assert b"paddle.distributed.flex_checkpoint.dcp.metadata" in raw and b"torchpaddle" not in raw


def _paddle_reads(ck4):
    theirs = paddle_ref.results(MODULE, "read", ck4)
    for part in ("merged", "loaded"):
        assert sorted(theirs[part]) == sorted(G)
        for key, want in G.items():
            np.testing.assert_array_equal(theirs[part][key], want, err_msg=f"{part} {key}")
            assert theirs[part][key].dtype == want.dtype


@pytest.mark.multiprocess
def test_reshard_across_rank_counts(tmp_path):
    """One 4-rank job saves ``ck4`` (a 4-rank mesh) and ``ck2`` (a mesh of ranks 0-1) and loads ``ck2`` onto 4
    ranks; a 2-rank job loads ``ck4``; this process loads ``ck4`` on 1 rank; real Paddle reads ``ck4`` (one
    test, so that one job serves all under pytest-xdist)."""
    root = str(tmp_path)
    ck4, ck2 = os.path.join(root, "ck4"), os.path.join(root, "ck2")
    ranks = _job(4, root, f"save:{ck4}:4", f"save:{ck2}:2", f"load:{ck2}")
    _check_loaded([r[ck2] for r in ranks], 4)
    _check_layout(ck4)
    ranks = _job(2, root, f"load:{ck4}")
    _check_loaded([r[ck4] for r in ranks], 2)
    _load_on_1(ck4)
    if paddle_ref.available():   # the conformance part: real Paddle 3.3.1 reads the 4-rank checkpoint
        _paddle_reads(ck4)


@pytest.mark.conformance
def test_paddle_checkpoint_loads_here(tmp_path):
    theirs = paddle_ref.results(MODULE, "write", str(tmp_path))
    # a model and optimizer in another state: loading replaces it in place
    state, lin, opt = trained_state(paddle, scale=2.0)
    state["dist_w"] = dist.shard_tensor(paddle.zeros([4, 3], dtype="float64"), dist.ProcessMesh([0]),
                                        [dist.Replicate()])
    dist.load_state_dict(state, str(tmp_path))
    ours = flat_numpy(state)
    assert sorted(ours) == sorted(theirs) and len([k for k in ours if k.startswith("opt.")]) == 8
    for key, want in theirs.items():
        np.testing.assert_array_equal(ours[key], want, err_msg=key)
    np.testing.assert_array_equal(lin.weight.numpy(), theirs["model.weight"])
    names = {p.name: n for n, p in lin.named_parameters()}
    for key, value in opt.state_dict().items():
        owner = next(p for p in names if key.startswith(p + "_"))
        np.testing.assert_array_equal(value.numpy(), theirs["opt." + names[owner] + key[len(owner):]], err_msg=key)
    merged = read(paddle, str(tmp_path))
    for key, want in theirs.items():
        np.testing.assert_array_equal(merged["merged"][key], want, err_msg=key)
        np.testing.assert_array_equal(merged["loaded"][key], want, err_msg=key)


@pytest.mark.conformance
def test_our_checkpoint_loads_in_paddle(tmp_path):
    ours = write(paddle, str(tmp_path))
    np.testing.assert_array_equal(ours["dist_w"], D)
    theirs = paddle_ref.results(MODULE, "read", str(tmp_path))
    for part in ("merged", "loaded"):
        assert sorted(theirs[part]) == sorted(ours)
        for key, want in ours.items():
            np.testing.assert_array_equal(theirs[part][key], want, err_msg=f"{part} {key}")


def test_sharded_weight_round_trip(tmp_path):
    """One process saving two ShardedWeights that cover a tensor: load_merged_state_dict joins them."""
    full = np.arange(24, dtype="float32").reshape(6, 4)
    top = dist.ShardedWeight("w", paddle.to_tensor(full[:2]), (2, 4), (6, 4), (0, 0))
    rest = dist.build_sharded_state_dict({"b": paddle.to_tensor(full[0])}, prefix="m.")
    assert rest["m.b"].global_shape == (4,) and rest["m.b"].global_offset == (0,)
    dist.save_state_dict({"w": top, **rest}, str(tmp_path))
    with pytest.raises(ValueError, match="holds only 8 of the 24"):
        dist.load_merged_state_dict(str(tmp_path))
    target = dist.ShardedWeight("w", paddle.zeros([1, 2]), (1, 2), (6, 4), (1, 1))
    dist.load_state_dict({"w": target, "m.b": paddle.zeros([4])}, str(tmp_path))
    np.testing.assert_array_equal(target.local_tensor.numpy(), full[1:2, 1:3])
    piece = dist.shard_weight("w", paddle.zeros([2, 4]), 0, types.SimpleNamespace(rank=1, nranks=3))
    assert (piece.global_shape, piece.global_offset, piece.local_shape) == ((6, 4), (2, 0), (2, 4))
    with pytest.raises(ValueError, match="Shard axis 2 is invalid"):
        dist.shard_weight("w", paddle.zeros([2, 4]), 2, types.SimpleNamespace(rank=0, nranks=2))
    with pytest.raises(ValueError, match="does not fit"):
        dist.ShardedWeight("w", paddle.zeros([2, 4]), (2, 4), (6, 4), (5, 0))
    with pytest.raises(ValueError, match="local_shape"):
        dist.ShardedWeight("w", paddle.zeros([2, 4]), (2, 3), (6, 4), (0, 0))


def test_unique_id_and_bad_input(tmp_path):
    path = str(tmp_path)
    dist.save_state_dict({"x": paddle.to_tensor([1.0, 2.0])}, path)
    dist.save_state_dict({"x": paddle.to_tensor([3.0, 4.0])}, path, unique_id=1)
    assert set(os.listdir(path)) == {"0.metadata", "0_0.distcp", "1.metadata", "0_1.distcp"}
    x = paddle.zeros([2])
    dist.load_state_dict({"x": x}, path)   # the highest id
    np.testing.assert_array_equal(x.numpy(), [3.0, 4.0])
    dist.load_state_dict({"x": x}, path, unique_id=0)
    np.testing.assert_array_equal(x.numpy(), [1.0, 2.0])
    y = paddle.zeros([2], dtype="float64")   # another dtype: converted into the target's
    dist.load_state_dict({"x": y}, path)
    assert y.dtype == paddle.float64 and y.numpy().tolist() == [3.0, 4.0]
    with pytest.raises(ValueError, match=r"has shape \[3\] but the checkpoint holds 'x' of shape \[2\]"):
        dist.load_state_dict({"x": paddle.zeros([3])}, path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dist.load_state_dict({"x": x, "nope": paddle.zeros([1])}, path)
    assert any("nope" in str(w.message) for w in caught)
    with pytest.raises(TypeError, match="state_dict must be a dict"):
        dist.save_state_dict([x], path)
    with pytest.raises(ValueError, match="should be a dict, paddle.Tensor or ShardedWeight"):
        dist.save_state_dict({"x": np.zeros(2)}, path)
    with pytest.raises(TypeError, match="keys must be str"):
        dist.save_state_dict({1: x}, path)
    with pytest.raises(ValueError, match="unique_id"):
        dist.save_state_dict({"x": x}, path, unique_id=-1)
    with pytest.raises(ValueError, match="comm_method"):
        dist.load_state_dict({"x": x}, path, comm_method="carrier pigeon")
    with pytest.raises(NotImplementedError, match="safetensors"):
        dist.save_state_dict({"x": x}, path, safetensors=True)
    with pytest.raises(FileNotFoundError, match="7.metadata"):
        dist.load_state_dict({"x": x}, path, unique_id=7)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        dist.load_merged_state_dict(str(tmp_path / "missing"))


class _Boom:
    def __reduce__(self):
        return (os.system, (f"touch {_Boom.marker}",))


def _hostile(obj):
    buf = io.BytesIO()
    pickle.dump(obj, buf, protocol=4)
    return buf.getvalue()


def test_hostile_files_are_refused(tmp_path):
    path = str(tmp_path)
    dist.save_state_dict({"x": paddle.to_tensor([1.0, 2.0])}, path)
    good_meta = open(os.path.join(path, "0.metadata"), "rb").read()
    _Boom.marker = str(tmp_path / "pwned")
    x = paddle.zeros([2])
    # a data file that would run a command when unpickled
    with open(os.path.join(path, "0_0.distcp"), "wb") as f:
        f.write(_hostile({"x": _Boom()}))
    with pytest.raises(UnsafePickleError, match="posix.system|os.system"):
        dist.load_state_dict({"x": x}, path)
    # the metadata file likewise
    with open(os.path.join(path, "0.metadata"), "wb") as f:
        f.write(_hostile(_Boom()))
    for load in (lambda: dist.load_state_dict({"x": x}, path), lambda: dist.load_merged_state_dict(path)):
        with pytest.raises(UnsafePickleError, match="refused"):
            load()
    assert not os.path.exists(_Boom.marker)
    # a metadata record pointing outside the folder
    sneaky = good_meta.replace(b"0_0.distcp", b"../x.distc")
    with open(os.path.join(path, "0.metadata"), "wb") as f:
        f.write(sneaky)
    with pytest.raises(CorruptFileError, match="not a <rank>_<id>.distcp"):
        dist.load_state_dict({"x": x}, path)
    with open(os.path.join(path, "0.metadata"), "wb") as f:
        f.write(good_meta[:len(good_meta) // 2])
    with pytest.raises(CorruptFileError, match="truncated"):
        dist.load_state_dict({"x": x}, path)
    assert x.numpy().tolist() == [0.0, 0.0]

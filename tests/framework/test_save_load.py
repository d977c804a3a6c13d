"""paddle.save / paddle.load: Paddle 3.3.1's exact file layout in both directions, the allow-list unpickler,
corrupt files and atomic saves. Fixtures in tests/fixtures/paddle_io were written by real Paddle
(make_fixtures.py); expected.json holds what real paddle.load returned for them."""
import collections
import io
import json
import os
import pickle
import random
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import torchpaddle as paddle
import paddle_ref
from conftest import ROOT
from torchpaddle.framework import io as pio
from tests.fixtures.paddle_io import cases
from torchpaddle.framework.parameter import Parameter

FIXTURES = os.path.join(ROOT, "tests", "fixtures", "paddle_io")

with open(os.path.join(FIXTURES, "expected.json")) as _f:
    EXPECTED = json.load(_f)["cases"]


def _fixture(name):
    return os.path.join(FIXTURES, name + ".pdparams")


def _ones(shape):
    return paddle.to_tensor(np.ones(shape, np.float32))


def _zeros(shape):
    return paddle.to_tensor(np.zeros(shape, np.float32))


def _roundtrip(obj, **kwargs):
    buffer = io.BytesIO()
    paddle.save(obj, buffer, **kwargs)
    buffer.seek(0)
    return paddle.load(buffer)


# -- files written by real Paddle load here ----------------------------------------------------------
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_paddle_fixture_loads_like_paddle(name):
    for label, expected in EXPECTED[name]["loads"].items():
        ours = cases.describe(paddle.load(_fixture(name), **cases.LOAD_CONFIGS[label]))
        assert ours == expected, f"{name} [{label}]"


@pytest.mark.skipif(int(np.__version__.split(".")[0]) < 2, reason="NumPy 1.x pickles arrays as numpy.core")
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_save_writes_the_same_bytes_as_paddle(name):
    obj, kwargs = cases.build(paddle, Parameter)[name]
    buffer = io.BytesIO()
    paddle.save(obj, buffer, **kwargs)
    with open(_fixture(name), "rb") as f:
        assert buffer.getvalue() == f.read()


def test_paddle_fixture_values_and_names():
    state = paddle.load(_fixture("state_dict_p4"))
    assert type(state) is dict and list(state) == ["weight", "bias", "LR_Scheduler"]
    assert state["weight"].name == "linear_0.w_0" and state["bias"].name == "linear_0.b_0"
    assert type(state["weight"]) is paddle.Tensor and state["weight"].stop_gradient
    np.testing.assert_array_equal(state["weight"].numpy(), cases.values([3, 2], "float32"))
    assert state["LR_Scheduler"] == {"last_epoch": 3, "last_lr": 0.05}
    table = paddle.load(_fixture("state_dict_p2"), keep_name_table=True)["StructuredToParameterName@@"]
    assert table == {"weight": "linear_0.w_0", "bias": "linear_0.b_0"}
    dtypes = paddle.load(_fixture("dtypes_sd_p4"))
    for kind, t in dtypes.items():
        assert t.dtype == getattr(paddle, kind) and t.name == f"dt_{kind}"
    assert dtypes["int64"].numpy().tolist() == cases.values([2, 3], "int64", 4).astype(np.int64).tolist()
    assert dtypes["int64"].numpy()[1, 2] > 2 ** 35
    raw = paddle.load(_fixture("dtypes_list_p2"), return_numpy=True)
    assert raw[0].dtype == np.uint16  # bfloat16 travels as uint16, as in Paddle


def test_paddle_dtype_objects_load_as_dtypes():
    assert paddle.load(_fixture("dtype_objects")) == {"dt": paddle.bfloat16, "vt": paddle.float64, "n": 1}


def test_binary_format_roundtrip_and_bad_input():
    t = paddle.to_tensor(cases.values([2, 3], "float32").astype(np.float32)).astype("bfloat16")
    back = _roundtrip(t, use_binary_format=True)
    assert back.dtype == paddle.bfloat16 and back.shape == [2, 3]
    np.testing.assert_array_equal(back.astype("float32").numpy(), t.astype("float32").numpy())
    with pytest.raises(NotImplementedError):
        paddle.save({"a": t}, io.BytesIO(), use_binary_format=True)
    with pytest.raises(TypeError):
        paddle.save(t, io.BytesIO(), use_binary_format=1)


# -- files written here load in real Paddle --------------------------------------------------------------
def _extra_objects():
    big = paddle.to_tensor(np.arange(40, dtype=np.float32).reshape(4, 10))
    big.name = "big_0"
    made = Parameter.from_tensor(paddle.to_tensor(np.arange(6.0).reshape(3, 2)).T, name="made.w_0")
    return {
        "split_p2": ({"big": big, "small": made}, {"protocol": 2}),  # with _MAX_SLICE_BYTES patched below
        "strided_p4": ([made, {"k": made}], {"protocol": 4}),
        "param_sd": ({"a.w": Parameter([2, 2], "float64", name="a.w_0"), "a.b": Parameter([2], "int64", name="a.b_0")},
                     {"protocol": 4}),
    }


def test_files_written_here_load_in_real_paddle(tmp_path, monkeypatch):
    if not paddle_ref.available():
        pytest.skip(f"reference PaddlePaddle venv not found at {paddle_ref.PYTHON}")
    monkeypatch.setattr(pio, "_MAX_SLICE_BYTES", 64)  # force Paddle's protocol-2 slicing of big arrays
    objects = dict(cases.build(paddle, Parameter), **_extra_objects())
    spec, ours = {}, {}
    for name, (obj, kwargs) in objects.items():
        path = str(tmp_path / f"{name}.pdparams")
        paddle.save(obj, path, **kwargs)
        configs = cases.LOAD_CONFIGS if isinstance(obj, dict) else cases.BASIC_LOAD_CONFIGS
        spec[path] = configs
        ours[path] = {label: cases.describe(paddle.load(path, **cfg)) for label, cfg in configs.items()}
    with open(tmp_path / "split_p2.pdparams", "rb") as f:
        assert b"UnpackBigParamInfor@@" in f.read()
    spec_path, out_path = tmp_path / "spec.json", tmp_path / "out.json"
    spec_path.write_text(json.dumps(spec))
    paddle_ref.run_module("tests.fixtures.paddle_io.make_fixtures", "--describe", str(spec_path), str(out_path))
    theirs = json.loads(out_path.read_text())
    for path in spec:
        assert theirs[path] == ours[path], os.path.basename(path)
    name = str(tmp_path / "split_p2.pdparams")
    items = dict(theirs[name]["default"]["items"])
    assert items["'big'"]["shape"] == [4, 10] and items["'big'"]["name"] == "big_0"


# -- formats and API details ------------------------------------------------------------------------------
def test_state_dict_layout_and_load_options():
    sd = collections.OrderedDict(w=Parameter([2, 3], "float32", name="fc.w_0"), b=_ones([3]))
    buffer = io.BytesIO()
    paddle.save(sd, buffer)
    raw = pickle.loads(buffer.getvalue())
    assert type(raw) is dict and list(raw) == ["w", "b", "StructuredToParameterName@@"]
    assert raw["StructuredToParameterName@@"] == {"w": "fc.w_0", "b": sd["b"].name}
    assert isinstance(raw["w"], np.ndarray)
    buffer.seek(0)
    loaded = paddle.load(buffer)
    assert list(loaded) == ["w", "b"] and loaded["w"].name == "fc.w_0" and type(loaded["w"]) is paddle.Tensor
    buffer.seek(0)
    assert isinstance(paddle.load(buffer, return_numpy=True)["w"], np.ndarray)


def test_nested_objects_use_name_ndarray_tuples():
    t = paddle.to_tensor([1.0, 2.0])
    obj = {"model": {"w": t}, "epoch": 3, "hist": [t, (t, "x")], "s": {1, 2}}
    raw = pickle.loads(_bytes(obj))
    assert raw["model"]["w"][0] == t.name and isinstance(raw["model"]["w"][1], np.ndarray)
    back = _roundtrip(obj)
    assert back["epoch"] == 3 and back["s"] == {1, 2} and back["hist"][1][1] == "x"
    assert back["model"]["w"].name == t.name and back["hist"][0].numpy().tolist() == [1.0, 2.0]


def _bytes(obj, **kwargs):
    buffer = io.BytesIO()
    paddle.save(obj, buffer, **kwargs)
    return buffer.getvalue()


def test_ndarray_conversion_rules_match_paddle():
    # with a Tensor record present, bare ndarrays stay ndarrays; without one, they all become Tensors
    mixed = _roundtrip({"a": np.ones(2), "t": _ones([1])})
    assert isinstance(mixed["a"], np.ndarray) and isinstance(mixed["t"], paddle.Tensor)
    only = _roundtrip([np.ones(2, np.float64), "x"])
    assert isinstance(only[0], paddle.Tensor) and only[0].dtype == paddle.float64
    assert _roundtrip([np.ones(2, np.uint16)])[0].dtype == paddle.bfloat16
    named = _roundtrip(("hello", np.ones(2)))
    assert isinstance(named, paddle.Tensor) and named.name == "hello"
    with pytest.raises(ValueError, match="uint32"):
        _roundtrip([np.ones(2, np.uint32)])
    assert _roundtrip([np.ones(2, ">f4")])[0].numpy().tolist() == [1.0, 1.0]


def test_scalars_and_empty_state_dict():
    assert _roundtrip({"a": 1, "b": 2.5, "c": "s", "d": None, "e": True, "f": 1 + 2j}) == \
        {"a": 1, "b": 2.5, "c": "s", "d": None, "e": True, "f": 1 + 2j}
    assert _roundtrip({"a": np.float32(1.5)})["a"] == np.float32(1.5)
    with pytest.warns(UserWarning, match="empty"):
        assert _roundtrip({}) == {}
    for obj in (5, "abc", None, [1, [2, (3,)]]):
        assert _roundtrip(obj) == obj


@pytest.mark.parametrize("protocol", [2, 3, 4])
def test_protocols_roundtrip(protocol):
    obj = {"w": paddle.to_tensor(np.arange(6, dtype=np.int64).reshape(2, 3)), "n": 1}
    back = _roundtrip(obj, protocol=protocol)
    assert back["w"].dtype == paddle.int64 and back["w"].numpy().tolist() == [[0, 1, 2], [3, 4, 5]]
    assert _bytes(_ones(1), protocol=protocol)[:2] == bytes([0x80, protocol])


def test_big_array_slicing_for_protocol_2(monkeypatch):
    monkeypatch.setattr(pio, "_MAX_SLICE_BYTES", 40)
    w = paddle.to_tensor(np.arange(30, dtype=np.float32).reshape(3, 10))
    raw = pickle.loads(_bytes({"w": w, "b": _ones([2])}, protocol=2))
    assert raw["UnpackBigParamInfor@@"]["w"] == {"OriginShape": (3, 10), "slices": ["w@@.0", "w@@.1", "w@@.2"]}
    back = _roundtrip({"w": w, "b": _ones([2])}, protocol=2)
    assert list(back) == ["b", "w"] and back["w"].numpy().tolist() == w.numpy().tolist()
    assert "UnpackBigParamInfor@@" not in pickle.loads(_bytes({"w": w}, protocol=4))


_PART = np.arange(1024, dtype=np.float32)
_BAD_SLICES = {  # label -> (UnpackBigParamInfor@@ entries, the slice arrays in the file)
    "one slice listed 2000 times": ({"w": {"OriginShape": (2000, 1024), "slices": ["w@@.0"] * 2000}},
                                    {"w@@.0": _PART}),
    "one array under 2000 names": ({"w": {"OriginShape": (2000, 1024), "slices": [f"w@@.{i}" for i in range(2000)]}},
                                   {f"w@@.{i}": _PART for i in range(2000)}),
    "huge declared shape": ({"w": {"OriginShape": (2 ** 40, 2 ** 20), "slices": ["w@@.0"]}}, {"w@@.0": _PART}),
    "shape the slices do not fill": ({"w": {"OriginShape": (3, 1024), "slices": ["w@@.0"]}}, {"w@@.0": _PART}),
    "negative shape": ({"w": {"OriginShape": (-1, 1024), "slices": ["w@@.0"]}}, {"w@@.0": _PART}),
    "missing slice": ({"w": {"OriginShape": (1024,), "slices": ["w@@.7"]}}, {"w@@.0": _PART}),
    "slice shared by two entries": ({"w": {"OriginShape": (1024,), "slices": ["s"]},
                                     "v": {"OriginShape": (1024,), "slices": ["s"]}}, {"s": _PART}),
    "entry named like a slice": ({"w@@.1": {"OriginShape": (1024,), "slices": ["w@@.0"]},
                                  "w": {"OriginShape": (1024,), "slices": ["w@@.1"]}},
                                 {"w@@.0": _PART, "w@@.1": _PART + 1}),
    "2-D slice": ({"w": {"OriginShape": (1024,), "slices": ["w@@.0"]}}, {"w@@.0": _PART.reshape(32, 32)}),
    "mixed dtypes": ({"w": {"OriginShape": (2048,), "slices": ["a", "b"]}},
                     {"a": _PART, "b": _PART.astype(np.float64)}),
    "no slices": ({"w": {"OriginShape": (0,), "slices": []}}, {}),
    "not a dict": (["w"], {}),
}


@pytest.mark.parametrize("label", sorted(_BAD_SLICES))
def test_bad_big_array_slices_are_refused_before_allocating(tmp_path, label):
    # a few KiB naming one slice thousands of times would otherwise be joined into a huge array first
    info, slices = _BAD_SLICES[label]
    data = pickle.dumps(dict(slices, **{"UnpackBigParamInfor@@": info}), protocol=2)
    with pytest.raises(pio.CorruptFileError, match="UnpackBigParamInfor@@"):
        paddle.load(io.BytesIO(data))
    (tmp_path / "m.pdparams").write_bytes(data)
    with pytest.raises(ValueError, match="UnpackBigParamInfor@@"):
        paddle.static.load_program_state(str(tmp_path / "m"))


def test_shared_objects_load_once_and_stay_shared():
    # NOTE: Paddle rebuilds every path through a shared object; here an object the file shares (a Tensor saved
    # twice, a list held by several others) is converted once and stays one object
    t = paddle.to_tensor(np.arange(3, dtype=np.float32))
    inner = [t, {"k": t}]
    out = _roundtrip([inner, inner, (t, t)])
    assert out[0] is out[1] and out[0][0] is out[0][1]["k"] is out[2][0] is out[2][1]
    assert out[0][0].numpy().tolist() == [0.0, 1.0, 2.0]
    cyclic = [np.arange(2.0)]
    cyclic.append(cyclic)
    back = paddle.load(io.BytesIO(pickle.dumps(cyclic, protocol=4)))
    assert back[1] is back and back[0].numpy().tolist() == [0.0, 1.0]
    # one array under two names of a state dict: two named Tensors over one buffer, not two copies
    array = np.arange(4, dtype=">f4")   # big-endian: each conversion would copy
    table = {"a": "layer.a", "b": "layer.b"}
    sd = paddle.load(io.BytesIO(pickle.dumps({"a": array, "b": array, "StructuredToParameterName@@": table})))
    assert (sd["a"].name, sd["b"].name) == ("layer.a", "layer.b")
    assert sd["a"]._t.data_ptr() == sd["b"]._t.data_ptr() and sd["b"].numpy().tolist() == [0, 1, 2, 3]


@pytest.mark.parametrize("kwargs,exc", [({"protocol": 1}, ValueError), ({"protocol": 5}, ValueError),
                                        ({"protocol": "4"}, ValueError), ({"foo": 1}, ValueError),
                                        ({"use_binary_format": "yes"}, TypeError)])
def test_save_rejects_bad_arguments(kwargs, exc):
    with pytest.raises(exc):
        paddle.save(_ones([1]), io.BytesIO(), **kwargs)


def test_save_rejects_what_paddle_rejects(tmp_path):
    NT = collections.namedtuple("NT", "a b")
    for obj in ({"a": b"xy"}, NT(1, 2), collections.defaultdict(int, a=1), {"s": _ones([2]).shape},
                [frozenset([1])]):
        with pytest.raises(NotImplementedError, match="iterable objects supported"):
            paddle.save(obj, io.BytesIO())
    layer_cls = type("Layer", (), {"__module__": "torchpaddle.nn.layer.layers"})
    with pytest.raises(ValueError, match="Layer"):
        paddle.save([layer_cls()], io.BytesIO())
    for path in (tmp_path / "x.pd", 3):  # pathlib paths are refused by Paddle too
        with pytest.raises(ValueError, match="BytesIO"):
            paddle.save(_ones([1]), path)
    with pytest.raises(ValueError, match="filename is empty"):
        paddle.save(_ones([1]), str(tmp_path) + "/")
    with pytest.raises(IsADirectoryError):
        paddle.save(_ones([1]), str(tmp_path))
    with pytest.warns(UserWarning, match="deprecated"):
        paddle.save(_ones([1]), io.BytesIO(), pickle_protocol=2)


def test_save_makes_missing_folders(tmp_path):
    path = str(tmp_path / "a" / "b" / "m.pdparams")
    paddle.save({"w": _ones([2])}, path)
    assert paddle.load(path)["w"].shape == [2]


def test_load_arguments_and_missing_paths(tmp_path):
    missing = str(tmp_path / "nope.pdparams")
    with pytest.raises(ValueError, match="not exists"):
        paddle.load(missing)
    with pytest.raises(FileNotFoundError):
        paddle.load(missing)
    with pytest.raises(ValueError, match="directory"):
        paddle.load(str(tmp_path))
    with pytest.raises(ValueError, match="not supported"):
        paddle.load(_fixture("tensor_p4"), foo=1)
    for bad in (None, 3, tmp_path / "x"):
        with pytest.raises(TypeError):
            paddle.load(bad)


def test_bytesio_positions():
    buffer = io.BytesIO(b"XYZ")
    buffer.seek(3)
    paddle.save(_ones([1]), buffer)
    paddle.save(_zeros([2]), buffer)
    buffer.seek(3)
    assert paddle.load(buffer).shape == [1] and paddle.load(buffer).shape == [2]
    bad = io.BytesIO(b"\x80\x04garbage")
    with pytest.raises(pio.CorruptFileError):
        paddle.load(bad)
    assert bad.tell() == 0


def test_add_safe_globals_allows_a_trusted_class(monkeypatch):
    monkeypatch.setattr(pio, "_ALLOWED", dict(pio._ALLOWED))
    data = pickle.dumps({"p": _Point(1, 2)}, protocol=4)
    with pytest.raises(pio.UnsafePickleError, match="_Point"):
        paddle.load(io.BytesIO(data))
    pio.add_safe_globals([_Point])
    assert paddle.load(io.BytesIO(data))["p"].xy == (1, 2)


class _Point:
    def __init__(self, x, y):
        self.xy = (x, y)


# -- safety: nothing from a file runs ----------------------------------------------------------------------
class _Reduce:
    def __init__(self, fn, *args):
        self.fn, self.args = fn, args

    def __reduce__(self):
        return self.fn, self.args


def _payloads(marker):
    command = f"touch {marker}"
    evil = _Reduce(os.system, command)
    via_getattr = (b"\x80\x02cbuiltins\ngetattr\n(cbuiltins\n__import__\n(Vos\ntRVsystem\ntR(V"
                   + command.encode() + b"\ntR.")
    return {
        "os.system": pickle.dumps(evil, protocol=4),
        "os.system p2": pickle.dumps(evil, protocol=2),
        "nested in dict": pickle.dumps({"w": np.ones(2), "x": [1, {"y": evil}]}, protocol=4),
        "inside a state dict": pickle.dumps({"w": np.ones(2), "StructuredToParameterName@@": {"w": evil}}),
        "builtins.getattr": via_getattr,
        "eval": pickle.dumps(_Reduce(eval, f"__import__('os').system('{command}')")),
        "exec": pickle.dumps(_Reduce(exec, f"import os; os.system('{command}')")),
        "subprocess": pickle.dumps(_Reduce(subprocess.call, ["touch", str(marker)])),
        "numpy gadget": pickle.dumps(_Reduce(np.testing.assert_, True)),
        "reconstruct abuse": (b"\x80\x02cnumpy.core.multiarray\n_reconstruct\nccollections\nOrderedDict\n"
                              b"K\x00\x85U\x01b\x87R."),
        "protocol 0 INST": b"(S'" + command.encode() + b"'\nios\nsystem\n.",
        "bytes(n) allocation": b"\x80\x02cbuiltins\nbytes\n(J\x00\x00\x00\x7ftR.",
        "persistent id": b"\x80\x02X\x01\x00\x00\x00aQ.",
    }


@pytest.mark.parametrize("label", sorted(_payloads("m")))
def test_malicious_pickles_run_nothing(tmp_path, label):
    marker = tmp_path / "pwned"
    data = _payloads(marker)[label]
    path = tmp_path / "evil.pdparams"
    path.write_bytes(data)
    for source in (str(path), io.BytesIO(data)):
        with pytest.raises(pio.UnsafePickleError):
            paddle.load(source)
    assert not marker.exists()


def test_payloads_are_real(tmp_path):
    marker = tmp_path / "pwned"
    pickle.loads(_payloads(marker)["nested in dict"])  # plain pickle (and real Paddle's load) runs it
    assert marker.exists()


def test_forbidden_global_raises_unsafe_error_naming_it(tmp_path):
    data = _payloads(tmp_path / "pwned")["nested in dict"]
    with pytest.raises(pio.UnsafePickleError, match="posix.system|os.system"):
        paddle.load(io.BytesIO(data))


# -- corrupt and truncated files -----------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["tensor_p4", "state_dict_p2", "nested_p4", "binary_f32"])
def test_every_truncation_is_a_clear_error(tmp_path, name):
    with open(_fixture(name), "rb") as f:
        data = f.read()
    path = tmp_path / "cut.pdparams"
    for size in range(len(data)):
        path.write_bytes(data[:size])
        with pytest.raises(pio.CorruptFileError) as info:
            paddle.load(str(path))
        assert isinstance(info.value, ValueError) and isinstance(info.value, pickle.UnpicklingError)


def test_empty_and_garbage_files(tmp_path):
    path = tmp_path / "f.pdparams"
    path.write_bytes(b"")
    with pytest.raises(pio.CorruptFileError, match="empty"):
        paddle.load(str(path))
    path.write_bytes(b"hello world garbage" * 10)
    with pytest.raises(pio.CorruptFileError, match="can not parse"):
        paddle.load(str(path))


def test_random_corruption_never_crashes():
    # NOTE: this found a NumPy 2.4 segfault (dtype.__setstate__ on a 6-tuple) that plain pickle.load hits
    rng = random.Random(0)
    sources = [open(os.path.join(FIXTURES, n), "rb").read() for n in sorted(os.listdir(FIXTURES))
               if n.endswith(".pdparams")]
    outcomes = collections.Counter()
    for _ in range(1500):
        data = bytearray(rng.choice(sources))
        where, action = rng.randrange(len(data)), rng.random()
        if action < 0.6:
            for _ in range(rng.randint(1, 6)):
                data[rng.randrange(len(data))] = rng.randrange(256)
        elif action < 0.8:
            del data[where:where + rng.randint(1, 20)]
        else:
            data[where:where] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        try:
            paddle.load(io.BytesIO(bytes(data)))
            outcomes["loaded"] += 1
        except (pickle.UnpicklingError, ValueError) as exc:  # CorruptFileError, UnsafePickleError, bad dtype
            outcomes[type(exc).__name__] += 1
    assert outcomes["CorruptFileError"] > 500


# -- atomic saves -------------------------------------------------------------------------------------------------
class _Boom:
    """Raises while being pickled, after the big tensor before it has reached the temporary file."""
    seen = []

    def __reduce__(self):
        folder = os.path.dirname(self.path)
        temps = [n for n in os.listdir(folder) if n.endswith(".tmp")]
        _Boom.seen = [os.path.getsize(os.path.join(folder, n)) for n in temps]
        raise RuntimeError("boom")


def test_failed_save_keeps_the_previous_file_and_leaves_no_temp(tmp_path):
    path = str(tmp_path / "ckpt.pdparams")
    paddle.save({"w": _ones([3])}, path)
    before = open(path, "rb").read()
    boom = _Boom()
    boom.path = path
    with pytest.raises(RuntimeError, match="boom"):
        paddle.save([_zeros([300000]), boom], path)
    assert _Boom.seen and _Boom.seen[0] > 1_000_000  # the failure happened mid-write
    assert open(path, "rb").read() == before and paddle.load(path)["w"].numpy().tolist() == [1.0] * 3
    assert os.listdir(tmp_path) == ["ckpt.pdparams"]
    buffer = io.BytesIO(b"keep")
    buffer.seek(4)
    with pytest.raises(RuntimeError):
        paddle.save([_zeros([10]), boom], buffer)
    assert buffer.getvalue() == b"keep"


def test_save_keeps_permissions_and_symlinks(tmp_path):
    path = tmp_path / "m.pdparams"
    paddle.save(_ones([1]), str(path))
    umask = os.umask(0)
    os.umask(umask)
    assert os.stat(path).st_mode & 0o777 == 0o666 & ~umask
    os.chmod(path, 0o640)
    paddle.save(_ones([2]), str(path))
    assert os.stat(path).st_mode & 0o777 == 0o640
    link = tmp_path / "link.pdparams"
    link.symlink_to(path)
    paddle.save(_ones([3]), str(link))
    assert link.is_symlink() and paddle.load(str(path)).shape == [3]


_KILL_CHILD = textwrap.dedent("""
    import sys, time
    import numpy as np
    import torchpaddle as paddle

    class Block:
        def __reduce__(self):
            print("mid", flush=True)
            time.sleep(60)
            return (int, (0,))

    mode, path = sys.argv[1], sys.argv[2]
    if mode == "block":
        paddle.save([paddle.to_tensor(np.zeros([2_000_000], np.float32)), Block()], path)
    else:
        print("go", flush=True)
        i = 0
        while True:
            i += 1
            paddle.save({"w": paddle.to_tensor(np.full([4_000_000], float(i), np.float32))}, path)
""")


def _spawn(mode, path):
    env = dict(os.environ, PYTHONPATH=ROOT)
    proc = subprocess.Popen([sys.executable, "-c", _KILL_CHILD, mode, path], stdout=subprocess.PIPE, env=env,
                            cwd=ROOT, text=True)
    line = proc.stdout.readline().strip()
    return proc, line


@pytest.mark.multiprocess
@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_sigkill_mid_save_leaves_previous_file_intact(tmp_path):
    path = str(tmp_path / "ckpt.pdparams")
    paddle.save({"w": _ones(5) * 7}, path)
    before = open(path, "rb").read()
    proc, line = _spawn("block", path)
    try:
        assert line == "mid"
        temps = [n for n in os.listdir(tmp_path) if n.endswith(".tmp")]
        assert len(temps) == 1 and os.path.getsize(tmp_path / temps[0]) > 0
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert open(path, "rb").read() == before
    assert paddle.load(path)["w"].numpy().tolist() == [7.0] * 5


@pytest.mark.slow
@pytest.mark.multiprocess
@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_sigkill_at_random_times_always_leaves_a_complete_checkpoint(tmp_path):
    path = str(tmp_path / "ckpt.pdparams")
    paddle.save({"w": paddle.to_tensor(np.zeros([4_000_000], np.float32))}, path)
    rng = random.Random(1)
    for _ in range(2):
        proc, line = _spawn("loop", path)
        try:
            assert line == "go"
            time.sleep(rng.uniform(0.2, 0.8))
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        w = paddle.load(path)["w"].numpy()
        assert w.shape == (4_000_000,) and (w == w[0]).all()
        for name in os.listdir(tmp_path):  # killed saves may leave a temp file, never a torn checkpoint
            if name.endswith(".tmp"):
                os.unlink(tmp_path / name)

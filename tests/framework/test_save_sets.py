"""Saves that write several files as one set (framework/atomic.py): Model.save and jit.save here, static.save
and save_inference_model in tests/static/test_static_io_sets.py. Also paddle.save to a FIFO or a device and
the removal of temporaries left by killed saves."""
import io
import os
import shutil
import signal
import stat
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import torchpaddle as paddle
from conftest import ROOT
from save_faults import Killed, disk_full_at_fsync, killed_at_rename
from torchpaddle.framework import atomic
from torchpaddle.framework.atomic import IncompleteSaveError

# these tests check the legacy .pdmodel files (PIR .json: tests/static/test_pir_json.py)
pytestmark = pytest.mark.usefixtures("legacy_program_format")


def _model(value, optimizer=True):
    """A Model whose Linear(2, 3) holds ``value`` everywhere, with Adam state after one step when asked. Fresh
    name counters, as in a new process: the optimizer state is keyed by parameter names."""
    with paddle.utils.unique_name.guard():
        net = paddle.nn.Linear(2, 3)
        model = paddle.Model(net)
        if optimizer:
            model.prepare(paddle.optimizer.Adam(0.1, parameters=net.parameters()), paddle.nn.MSELoss())
            model.train_batch([np.ones([4, 2], "float32")], [np.zeros([4, 3], "float32")])
    for p in net.parameters():
        p.set_value(np.full(p.shape, value, "float32"))
    return model


def _weights(model):
    return {k: v.numpy().copy() for k, v in model.network.state_dict().items()}


def _loaded_weights(prefix):
    model = _model(0.0)
    model.load(prefix)
    return _weights(model)


def _files(folder):
    return sorted(os.listdir(folder))


# -- Model.save ---------------------------------------------------------------------------------------------
def test_model_save_members_hold_exactly_what_paddle_save_writes(tmp_path):
    model = _model(1.0)
    prefix = str(tmp_path / "m")
    model.save(prefix)
    assert _files(tmp_path) == ["m.pdopt", "m.pdparams", "m.tpsave"]
    for suffix, state in ((".pdparams", model.network.state_dict()), (".pdopt", model._optimizer.state_dict())):
        plain = io.BytesIO()
        paddle.save(state, plain)
        with open(prefix + suffix, "rb") as f:
            assert f.read() == plain.getvalue(), suffix   # no byte of ours inside Paddle's files
    assert all((v == 1.0).all() for v in _loaded_weights(prefix).values())


@pytest.mark.parametrize("renames", [0, 1])
def test_model_save_killed_before_a_member_moved_leaves_the_old_set(tmp_path, renames):
    # 0: killed before its manifest replaced the old one; 1: after, but before any member was renamed
    prefix = str(tmp_path / "m")
    _model(1.0).save(prefix)
    with killed_at_rename(renames), pytest.raises(Killed):
        _model(2.0).save(prefix)
    assert all((v == 1.0).all() for v in _loaded_weights(prefix).values())
    assert paddle.load(prefix + ".pdopt")


def test_model_save_killed_between_members_is_refused_on_load(tmp_path):
    prefix = str(tmp_path / "m")
    _model(1.0).save(prefix)
    with killed_at_rename(2), pytest.raises(Killed):   # manifest, then .pdparams renamed; the old .pdopt stays
        _model(2.0).save(prefix)
    message = r"m\.pdopt is not what that save wrote while m\.pdparams is: the save was interrupted"
    with pytest.raises(IncompleteSaveError, match=message):
        _model(0.0).load(prefix)
    for suffix in (".pdparams", ".pdopt"):
        with pytest.raises(ValueError, match="m.tpsave to load them as they are"):
            paddle.load(prefix + suffix)
    os.unlink(prefix + ".tpsave")   # what the message offers: take the files as they are
    assert all((v == 2.0).all() for v in _loaded_weights(prefix).values())


def test_model_save_that_fails_writing_keeps_the_old_set(tmp_path):
    prefix = str(tmp_path / "m")
    _model(1.0).save(prefix)
    before = {n: (tmp_path / n).read_bytes() for n in _files(tmp_path)}
    with disk_full_at_fsync(1), pytest.raises(OSError, match="No space left"):   # writing .pdopt fails
        _model(2.0).save(prefix)
    assert {n: (tmp_path / n).read_bytes() for n in _files(tmp_path)} == before   # and no temporary is left
    assert all((v == 1.0).all() for v in _loaded_weights(prefix).values())


def test_model_save_removes_an_optimizer_file_left_by_an_earlier_save(tmp_path):
    prefix = str(tmp_path / "m")
    _model(1.0).save(prefix)
    _model(2.0, optimizer=False).save(prefix)
    assert _files(tmp_path) == ["m.pdparams", "m.tpsave"]   # the old .pdopt would resume the wrong run


def test_single_file_save_over_a_member_takes_it_out_of_the_set(tmp_path):
    prefix = str(tmp_path / "m")
    _model(1.0).save(prefix)
    paddle.save(_model(3.0).network.state_dict(), prefix + ".pdparams")
    assert _files(tmp_path) == ["m.pdopt", "m.pdparams"]
    assert all((v == 3.0).all() for v in _loaded_weights(prefix).values())


def test_a_copied_set_is_checked_by_content(tmp_path):
    prefix = str(tmp_path / "m")
    _model(1.0).save(prefix)
    copy = tmp_path / "copy"
    copy.mkdir()
    for name in _files(tmp_path):
        if name != "copy":
            shutil.copy(tmp_path / name, copy / name)   # new inodes: the check falls back to hashes
    assert all((v == 1.0).all() for v in _loaded_weights(str(copy / "m")).values())
    data = bytearray((copy / "m.pdopt").read_bytes())
    data[len(data) // 2] ^= 1   # same size, other content
    (copy / "m.pdopt").write_bytes(bytes(data))
    with pytest.raises(IncompleteSaveError, match="m.pdopt is not what that save wrote"):
        _loaded_weights(str(copy / "m"))


def test_bad_manifest_is_a_clear_error(tmp_path):
    prefix = str(tmp_path / "m")
    _model(1.0).save(prefix)
    for text, why in ((b"{not json", "not JSON"), (b'{"format": "other"}', "not a torchpaddle save manifest"),
                      (b'{"format": "torchpaddle-save-set", "version": 9}', "version 9"),
                      (b'{"format": "torchpaddle-save-set", "version": 1}', "no member table"),
                      (b'{"format": "torchpaddle-save-set", "version": 1, "members": {"/etc/passwd": {}}}',
                       "bad entry")):
        (tmp_path / "m.tpsave").write_bytes(text)
        with pytest.raises(ValueError, match=f"cannot read the save manifest .*m.tpsave \\({why}"):
            paddle.load(prefix + ".pdparams")


# -- jit.save -----------------------------------------------------------------------------------------------
def _jit_layer(value):
    layer = paddle.nn.Linear(2, 3)
    for p in layer.parameters():
        p.set_value(np.full(p.shape, value, "float32"))
    return layer


def _jit_save(value, prefix):
    paddle.jit.save(_jit_layer(value), prefix, input_spec=[paddle.static.InputSpec([None, 2], "float32")])


def test_jit_save_killed_between_members_is_refused_on_load(tmp_path):
    prefix = str(tmp_path / "net")
    x = paddle.ones([1, 2])
    _jit_save(1.0, prefix)
    with killed_at_rename(1), pytest.raises(Killed):   # the manifest only: the old files are one whole set
        _jit_save(2.0, prefix)
    assert paddle.jit.load(prefix)(x).numpy().tolist() == [[3.0] * 3]
    with killed_at_rename(2), pytest.raises(Killed):   # the new .pdmodel beside the old .pdiparams
        _jit_save(2.0, prefix)
    with pytest.raises(IncompleteSaveError, match=r"net\.pdiparams.* not what that save wrote while net\.pdmodel"):
        paddle.jit.load(prefix)
    with pytest.raises(IncompleteSaveError):
        paddle.load(prefix)   # the state dict of a jit.save prefix
    _jit_save(2.0, prefix)
    assert paddle.jit.load(prefix)(x).numpy().tolist() == [[6.0] * 3]


# -- a real kill ----------------------------------------------------------------------------------------------
_CHILD = textwrap.dedent("""
    import os, signal, sys, time
    import numpy as np
    import torchpaddle as paddle

    mode, path = sys.argv[1], sys.argv[2]
    if mode == "block":   # stopped while its temporary file is being written
        class Block:
            def __reduce__(self):
                print("mid", flush=True)
                time.sleep(60)
                return (int, (0,))
        paddle.save([paddle.to_tensor(np.zeros([1000], np.float32)), Block()], path)
    else:   # a Model.save that dies right after renaming its .pdparams into place
        real = os.replace
        def replace(src, dst):
            real(src, dst)
            if dst.endswith(".pdparams"):
                os.kill(os.getpid(), signal.SIGKILL)
        os.replace = replace
        net = paddle.nn.Linear(2, 3)
        model = paddle.Model(net)
        model.prepare(paddle.optimizer.Adam(0.1, parameters=net.parameters()), paddle.nn.MSELoss())
        model.train_batch([np.ones([4, 2], "float32")], [np.zeros([4, 3], "float32")])
        for p in net.parameters():
            p.set_value(np.full(p.shape, 2.0, "float32"))
        model.save(path)
""")


def _run_child(mode, path):
    return subprocess.Popen([sys.executable, "-c", _CHILD, mode, path], stdout=subprocess.PIPE, cwd=ROOT,
                            env=dict(os.environ, PYTHONPATH=ROOT), text=True)


@pytest.mark.multiprocess
@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_sigkill_between_members_of_model_save_is_refused(tmp_path):
    prefix = str(tmp_path / "m")
    _model(1.0).save(prefix)
    proc = _run_child("set", prefix)
    proc.communicate(timeout=120)
    assert proc.returncode == -signal.SIGKILL
    temps = [n for n in _files(tmp_path) if n.endswith(".tmp")]
    assert len(temps) == 1 and temps[0].startswith(".m.pdopt.")   # the kill left the new .pdopt unrenamed
    with pytest.raises(IncompleteSaveError, match="m.pdopt is not what that save wrote"):
        _model(0.0).load(prefix)
    _model(3.0).save(prefix)   # the next save finishes the job and clears the dead save's temporary
    assert _files(tmp_path) == ["m.pdopt", "m.pdparams", "m.tpsave"]
    assert all((v == 3.0).all() for v in _loaded_weights(prefix).values())


@pytest.mark.multiprocess
@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_next_save_removes_the_temporary_of_a_killed_save(tmp_path):
    path = str(tmp_path / "ckpt.pdparams")
    proc = _run_child("block", path)
    try:
        assert proc.stdout.readline().strip() == "mid"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert len([n for n in _files(tmp_path) if n.endswith(".tmp")]) == 1
    paddle.save({"w": paddle.ones([2])}, path)
    assert _files(tmp_path) == ["ckpt.pdparams"]


# -- stale temporaries ----------------------------------------------------------------------------------------
def _dead_pid():
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_only_temporaries_of_dead_or_long_gone_saves_are_removed(tmp_path):
    host, other_host, dead = atomic._HOST, "0" * 8 if atomic._HOST != "0" * 8 else "1" * 8, _dead_pid()
    day_ago = time.time() - 2 * 24 * 3600
    names = {
        f".m.pdparams.{host}-{dead}-{'a' * 12}.tmp": False,            # its process is gone
        f".m.pdparams.{host}-{os.getppid()}-{'b' * 12}.tmp": True,     # a live process may still write it
        f".m.pdparams.{host}-{os.getpid()}-{'c' * 12}.tmp": True,      # ... or another thread of ours
        f".m.pdparams.{other_host}-{dead}-{'d' * 12}.tmp": True,       # another host's, fresh: cannot tell
        f".m.pdparams.{other_host}-{dead}-{'e' * 12}.tmp.old": False,  # another host's, two days old
        f".m.pdparams.{'f' * 12}.tmp": True,                           # older torchpaddle, fresh
        f".m.pdparams.{'9' * 12}.tmp.old": False,                      # older torchpaddle, two days old
        f".m.pdparamsx.{host}-{dead}-{'a' * 12}.tmp": True,            # another file's
        ".m.pdparams.notes.tmp": True,                                 # not a name we make
        f".m.pdopt.{host}-{dead}-{'a' * 12}.tmp": False,               # a set save cleans every member's
        f".m.tpsave.{host}-{dead}-{'a' * 12}.tmp": False,              # ... and its manifest's
    }
    for name in names:
        real = name.removesuffix(".old")
        (tmp_path / real).write_bytes(b"x")
        if name.endswith(".old"):
            os.utime(tmp_path / real, (day_ago, day_ago))
    paddle.save({"w": paddle.ones([2])}, str(tmp_path / "m.pdparams"))
    _model(1.0).save(str(tmp_path / "m"))
    kept = {n.removesuffix(".old") for n, keep in names.items() if keep}
    assert set(_files(tmp_path)) == kept | {"m.pdparams", "m.pdopt", "m.tpsave"}


# -- FIFOs and devices ----------------------------------------------------------------------------------------
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_save_to_a_fifo_writes_through_it(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []

    def read():
        with open(fifo, "rb") as f:
            got.append(f.read())
    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    state = {"w": paddle.to_tensor([1.0, 2.0, 3.0])}
    paddle.save(state, str(fifo))
    reader.join(30)
    plain = io.BytesIO()
    paddle.save(state, plain)
    assert got == [plain.getvalue()]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and _files(tmp_path) == ["pipe"]
    assert paddle.load(io.BytesIO(got[0]))["w"].numpy().tolist() == [1.0, 2.0, 3.0]


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="needs /dev/null")
def test_save_to_dev_null_writes_through_it(monkeypatch):
    real = os.replace

    def guarded(src, dst, **kwargs):   # a regression must fail here, not replace the machine's /dev/null
        assert not os.path.exists(dst) or stat.S_ISREG(os.stat(dst).st_mode), f"renaming over {dst}"
        return real(src, dst, **kwargs)
    monkeypatch.setattr(os, "replace", guarded)
    paddle.save({"w": paddle.ones([3])}, "/dev/null")
    paddle.save(paddle.ones([3]), "/dev/null", use_binary_format=True)
    paddle.static.save_to_file("/dev/null", b"bytes")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    assert not [n for n in os.listdir("/dev") if n.startswith(".null.")]   # no temporary file was made

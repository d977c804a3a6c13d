"""``python -m torchpaddle script.py``: unchanged Paddle scripts, argv, exit codes, the paddle alias."""
import importlib.util
import os
import subprocess
import sys
import textwrap

import pytest

import paddle_ref
from conftest import ROOT

EXAMPLE = os.path.join(ROOT, "examples", "linear_regression.py")


def run(*args, cwd=None, timeout=300, python=sys.executable, module=True):
    env = dict(os.environ, PYTHONPATH=ROOT, GLOG_minloglevel="3")
    cmd = [python, "-m", "torchpaddle", *args] if module else [python, *args]
    return subprocess.run(cmd, cwd=cwd or ROOT, env=env, capture_output=True, text=True, timeout=timeout)


def script(tmp_path, body, name="prog.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return str(path)


def final_loss(stdout):
    line = [ln for ln in stdout.splitlines() if ln.startswith("loss ")][-1]
    first, last = line[len("loss "):].split(" -> ")
    return float(first), float(last)


@pytest.mark.parametrize("extra", [[], ["--use-grad", "--steps", "60"]], ids=["backward", "paddle.grad"])
def test_example_runs_on_torchpaddle(extra):
    out = run(EXAMPLE, *extra)
    assert out.returncode == 0, out.stdout + out.stderr
    first, last = final_loss(out.stdout)
    assert last < 0.01 * first
    assert "w = [2.0" in out.stdout or "w = [1.99" in out.stdout


def test_example_exit_code_reports_failure_to_converge():
    out = run(EXAMPLE, "--steps", "1")
    assert out.returncode == 1, out.stderr


@pytest.mark.conformance
def test_example_runs_unchanged_on_real_paddle():
    if not paddle_ref.available():
        pytest.skip("reference PaddlePaddle venv not found")
    out = run(EXAMPLE, python=paddle_ref.PYTHON, module=False, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr[-3000:]
    first, last = final_loss(out.stdout)
    assert last < 0.01 * first


def test_argv_name_path_and_exit_code(tmp_path):
    sub = tmp_path / "pkg"
    sub.mkdir()
    (sub / "helper_mod.py").write_text("VALUE = 41\n")
    path = script(sub, """
        import os, sys
        import helper_mod  # found through sys.path[0], the script's own folder
        import paddle
        print("argv", sys.argv)
        print("name", __name__, "file", os.path.basename(__file__))
        print("path0", sys.path[0])
        if __name__ == "__main__":
            sys.exit(helper_mod.VALUE - 38)
        """)
    out = run(path, "a", "--flag", "b c", cwd=str(tmp_path))
    assert out.returncode == 3, out.stderr
    assert f"argv {[path, 'a', '--flag', 'b c']}" in out.stdout
    assert "name __main__ file prog.py" in out.stdout
    assert f"path0 {os.path.realpath(str(sub))}" in out.stdout


def test_exit_forms(tmp_path):
    assert run(script(tmp_path, "import sys; sys.exit()\n")).returncode == 0
    out = run(script(tmp_path, "import sys; sys.exit('bad input')\n"))
    assert out.returncode == 1 and "bad input" in out.stderr


def test_uncaught_exception_prints_traceback_and_exits_1(tmp_path):
    path = script(tmp_path, """
        def inner():
            raise ValueError("boom")
        inner()
        """)
    out = run(path)
    assert out.returncode == 1
    assert out.stderr.startswith("Traceback (most recent call last):")
    assert "ValueError: boom" in out.stderr and "prog.py" in out.stderr
    assert "runpy" not in out.stderr and "__main__.py" not in out.stderr  # the runner's frames are hidden
    syntax = run(script(tmp_path, "x = (\n", name="bad.py"))
    assert syntax.returncode == 1 and "SyntaxError" in syntax.stderr


def test_paddle_modules_are_torchpaddle_modules(tmp_path):
    candidates = ["autograd", "autograd.py_layer", "framework", "nn", "nn.functional", "optimizer", "io",
                  "static", "jit", "vision", "linalg", "device"]
    present = [m for m in candidates if importlib.util.find_spec("torchpaddle." + m.split(".")[0]) is not None
               and importlib.util.find_spec("torchpaddle." + m) is not None]
    assert "autograd" in present
    path = script(tmp_path, f"""
        import sys, importlib
        import paddle
        import torchpaddle
        from paddle import autograd
        from paddle.autograd import PyLayer
        import paddle.autograd as A
        assert paddle is torchpaddle and sys.modules["paddle"] is torchpaddle
        assert autograd is A is torchpaddle.autograd and PyLayer is torchpaddle.autograd.PyLayer
        for name in {present!r}:
            alias = importlib.import_module("paddle." + name)
            real = importlib.import_module("torchpaddle." + name)
            assert alias is real and sys.modules["paddle." + name] is real, name
            assert real.__spec__.name == "torchpaddle." + name  # its own identity is kept
        try:
            import paddle.no_such_module
        except ModuleNotFoundError as e:
            assert e.name == "paddle.no_such_module" and "paddle.no_such_module" in str(e), e
        else:
            raise AssertionError("expected ModuleNotFoundError")
        try:
            from paddle.no_such_module import x
        except ModuleNotFoundError as e:
            assert e.name == "paddle.no_such_module", e
        x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
        (x * x).backward()
        print("grad", x.grad.numpy().tolist())
        """)
    out = run(path)
    assert out.returncode == 0, out.stderr
    assert "grad [2.0, 4.0]" in out.stdout


def test_pickle_of_script_classes(tmp_path):
    path = script(tmp_path, """
        import pickle
        class Record:
            def __init__(self, v):
                self.v = v
        r = pickle.loads(pickle.dumps(Record(7)))
        print("value", r.v, type(r).__module__)
        """)
    out = run(path)
    assert out.returncode == 0, out.stderr
    assert "value 7 __main__" in out.stdout


def test_dash_c_and_dash_m(tmp_path):
    out = run("-c", "import sys, paddle; print(sys.argv, paddle.__name__, __name__); sys.exit(4)", "x", "y")
    assert out.returncode == 4, out.stderr
    assert "['-c', 'x', 'y'] torchpaddle __main__" in out.stdout
    (tmp_path / "mymod.py").write_text("import sys, paddle\nprint('mod', __name__, sys.argv[1:], paddle.__name__)\n")
    out = run("-m", "mymod", "z", cwd=str(tmp_path))
    assert out.returncode == 0, out.stderr
    assert "mod __main__ ['z'] torchpaddle" in out.stdout
    out = run("-c", "raise KeyError('k')")
    assert out.returncode == 1 and "KeyError" in out.stderr


def test_usage_and_missing_script(capsys):
    # In-process: these paths return before anything runs.
    from torchpaddle.__main__ import main
    assert main([]) == 2 and "usage" in capsys.readouterr().err
    assert main(["--help"]) == 0 and "usage" in capsys.readouterr().out
    assert main(["-c"]) == 2 and "Argument expected" in capsys.readouterr().err
    assert main(["--bogus"]) == 2 and "unknown option" in capsys.readouterr().err
    out = run("no_such_script.py")
    assert out.returncode == 2 and "can't open file" in out.stderr


def test_install_as_paddle_in_process():
    code = textwrap.dedent("""
        import sys
        import torchpaddle
        assert torchpaddle.install_as_paddle() is torchpaddle
        torchpaddle.install_as_paddle()  # idempotent
        import paddle, paddle.autograd
        assert paddle is torchpaddle and paddle.autograd is torchpaddle.autograd
        assert sum(type(f).__name__ == "_AliasFinder" for f in sys.meta_path) == 1
        print("ok")
        """)
    out = run("-c", code, module=False)
    assert out.returncode == 0 and "ok" in out.stdout, out.stderr


def test_install_as_paddle_refuses_a_real_paddle():
    code = textwrap.dedent("""
        import sys, types
        sys.modules["paddle"] = types.ModuleType("paddle")  # stands in for the real package
        import torchpaddle
        try:
            torchpaddle.install_as_paddle()
        except RuntimeError as e:
            print("refused:", e)
        """)
    out = run("-c", code, module=False)
    assert out.returncode == 0 and "refused:" in out.stdout and "already imported" in out.stdout, out.stderr

"""``python -m torchpaddle script.py [args]``: run an unchanged Paddle script on torchpaddle.

Also ``-c "code" [args]`` and ``-m module [args]`` (``-m paddle.X`` runs ``torchpaddle.X``), like python.
The script sees what ``python script.py`` would give it: sys.argv, ``__name__ == "__main__"``, its own
folder as sys.path[0], and its exit status.
"""
import builtins
import os
import runpy
import sys
import types

_USAGE = """usage: python -m torchpaddle script.py [args ...]
       python -m torchpaddle -c "code" [args ...]
       python -m torchpaddle -m module [args ...]
Runs a PaddlePaddle program with `paddle` (and every `paddle.*` module) provided by torchpaddle."""


def _report(exc):
    """Print the traceback the way python would, without the runner's own frames."""
    tb = exc.__traceback__
    while tb is not None and (tb.tb_frame.f_code.co_filename == __file__
                              or "runpy" in tb.tb_frame.f_code.co_filename):
        tb = tb.tb_next
    sys.excepthook(type(exc), exc.with_traceback(tb), tb)


def _run(kind, target, args):
    if kind == "script":
        if not os.path.exists(target):
            sys.stderr.write(f"{sys.executable}: can't open file {os.path.abspath(target)!r}: "
                             "[Errno 2] No such file or directory\n")
            return 2
        sys.argv = [target, *args]
        sys.path[0] = os.path.dirname(os.path.realpath(target))

        def run():
            runpy.run_path(target, run_name="__main__")
    elif kind == "code":
        sys.argv = ["-c", *args]
        sys.path[0] = ""

        def run():
            # Like python -c: the code runs as the real __main__ module (so its classes pickle).
            module = types.ModuleType("__main__")
            module.__builtins__ = builtins
            sys.modules["__main__"] = module
            exec(compile(target, "<string>", "exec"), module.__dict__)
    else:
        if target == "paddle" or target.startswith("paddle."):
            target = "torchpaddle" + target[len("paddle"):]
        sys.argv = [target, *args]  # runpy replaces argv[0] with the module's file
        sys.path[0] = os.getcwd()

        def run():
            runpy.run_module(target, run_name="__main__", alter_sys=True)
    try:
        run()
    except (SystemExit, KeyboardInterrupt):
        raise
    except BaseException as exc:  # noqa: B036  python's own top level reports anything uncaught
        _report(exc)
        return 1
    return 0


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        (sys.stdout if argv else sys.stderr).write(_USAGE + "\n")
        return 0 if argv else 2
    first = argv.pop(0)
    if first in ("-c", "-m"):
        if not argv:
            sys.stderr.write(f"Argument expected for the {first} option\n{_USAGE}\n")
            return 2
        kind, target = ("code" if first == "-c" else "module"), argv.pop(0)
    elif first.startswith("-"):
        sys.stderr.write(f"unknown option {first}\n{_USAGE}\n")
        return 2
    else:
        kind, target = "script", first
    from torchpaddle import install_as_paddle
    install_as_paddle()
    return _run(kind, target, argv)


def _finish(code):
    """A script that used torch.distributed leaves without interpreter finalization (see
    torchpaddle.distributed.env.finish_process); any other exits as usual."""
    dist = sys.modules.get("torch.distributed")
    if dist is not None and dist.is_available() and dist.is_initialized():
        from torchpaddle.distributed.env import finish_process
        finish_process(code)
    return code


if __name__ == "__main__":
    try:
        _code = main()
    except SystemExit as _exit:
        if _exit.code is not None and not isinstance(_exit.code, int):
            print(_exit.code, file=sys.stderr)
        _code = _exit.code if isinstance(_exit.code, int) or _exit.code is None else 1
    sys.exit(_finish(_code or 0))

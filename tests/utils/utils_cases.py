"""paddle.utils and paddle.hub cases run on real PaddlePaddle 3.3.1 (``python -m tests.utils.utils_cases OUT.pkl``)
and on torchpaddle by tests/utils/test_utils_conformance.py: run_check's output, try_import, require_version,
deprecated, DLPack exchange and local hub repositories. Only NumPy is imported at module level; every case
gets the ``paddle`` module."""
import contextlib
import io
import os
import sys
import tempfile
import warnings

import numpy as np

from tests.nn.layer_case_tools import dump

CASES = {}


def c_run_check(paddle):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        result = paddle.utils.run_check()
    return [result, buf.getvalue(), paddle.get_device(), paddle.in_dynamic_mode()]


def c_try_import_found(paddle):
    return paddle.utils.try_import("json").__name__


def c_try_import_missing(paddle):
    try:
        paddle.utils.try_import("no_such_module_xyz.sub")
    except ImportError as exc:
        return str(exc)


def c_try_import_custom_message(paddle):
    try:
        paddle.utils.try_import("no_such_module_xyz", "install it")
    except ImportError as exc:
        return str(exc)


_VERSIONS = {"min_old": ("3.0.0",), "min_short": ("3.3",), "min_zero": ("0.0.0",), "equal": ("3.3.1", "3.3.1"),
             "range_old": ("1.0.0", "2.0.0"), "too_new": ("10.0.0",), "four_parts": ("3.3.1.1",),
             "reversed": ("1.0", "0.5"), "int": (3,), "bad_format": ("3.a",), "bad_max": ("1.0", "x"),
             "max_int": ("1.0", 2)}


def _require_case(args):
    def case(paddle):
        try:
            return ["ok", paddle.utils.require_version(*args)]
        except Exception as exc:  # noqa: BLE001 - the message is the result (Paddle raises a bare Exception)
            return [type(exc).__name__, str(exc)]
    return case


for _name, _args in _VERSIONS.items():
    CASES[f"require_version_{_name}"] = _require_case(_args)


def _deprecated_case(kwargs, call=True):
    def case(paddle):
        def old(x):
            """Old docs."""
            return x + 1
        old.__module__ = "mylib"
        wrapped = paddle.utils.deprecated(**kwargs)(old)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                result = wrapped(1) if call else None
            except RuntimeError as exc:
                result = ["RuntimeError", str(exc)]
        return [result, wrapped.__doc__, [(w.category.__name__, str(w.message)) for w in caught],
                wrapped.__name__]
    return case


CASES["deprecated_warns"] = _deprecated_case(dict(since="2.0.0", update_to="paddle.new_api", reason="it is old",
                                                  level=1))
CASES["deprecated_silent"] = _deprecated_case(dict(since="1.0", level=0))
CASES["deprecated_future_version"] = _deprecated_case(dict(since="99.0", level=1))
CASES["deprecated_no_since"] = _deprecated_case(dict(level=1))
CASES["deprecated_raises"] = _deprecated_case(dict(since="2.0.0", level=2))
CASES["deprecated_bad_level"] = _deprecated_case(dict(level=3), call=False)
CASES["deprecated_bad_update_to"] = _deprecated_case(dict(update_to="torch.x"), call=False)


def c_deprecated_without_docstring(paddle):
    def f():
        return 1
    return [paddle.utils.deprecated(since="1.0", level=1)(f).__doc__]


def c_dlpack_shares_memory(paddle):
    x = paddle.to_tensor([1.0, 2.0, 3.0])
    y = paddle.utils.dlpack.from_dlpack(paddle.utils.dlpack.to_dlpack(x))
    y[0] = 9.0
    return [x, y, paddle.from_dlpack is paddle.utils.dlpack.from_dlpack,
            paddle.to_dlpack is paddle.utils.dlpack.to_dlpack]


def c_dlpack_dtypes(paddle):
    out = []
    for dtype in ("float16", "bfloat16", "int32", "bool", "float64", "uint8"):
        x = paddle.to_tensor([1, 0]).astype(dtype)
        out.append(str(paddle.utils.dlpack.from_dlpack(paddle.utils.dlpack.to_dlpack(x)).dtype))
    return out


def c_dlpack_from_numpy(paddle):
    return paddle.utils.dlpack.from_dlpack(np.arange(4.0).reshape(2, 2))


def c_dlpack_from_tensor_object(paddle):
    x = paddle.to_tensor([1, 2], stop_gradient=False, dtype="float32")
    return paddle.utils.dlpack.from_dlpack(x)


def c_dlpack_capsule_used_twice(paddle):
    capsule = paddle.utils.dlpack.to_dlpack(paddle.to_tensor([1.0]))
    paddle.utils.dlpack.from_dlpack(capsule)
    return paddle.utils.dlpack.from_dlpack(capsule)


def c_dlpack_to_non_tensor(paddle):
    return paddle.utils.dlpack.to_dlpack(np.ones(2))


def c_dlpack_from_int(paddle):
    return paddle.utils.dlpack.from_dlpack(3)


# -- hub with source='local' ---------------------------------------------------------------------------------
_HUBCONF = '''"""a local hub"""
dependencies = ["numpy"]
import numpy as np


def tiny_model(width=3, scale=1.0):
    """Build a tiny model: a dict with weights."""
    return {"weights": np.full([width], scale, dtype="float32")}


def _private():
    return 1


class Builder:
    pass


VALUE = 3
'''


def _hub_case(call, hubconf=_HUBCONF):
    def case(paddle):
        with tempfile.TemporaryDirectory() as repo:
            with open(os.path.join(repo, "hubconf.py"), "w") as f:
                f.write(hubconf)
            return call(paddle, repo)
    return case


CASES["hub_list"] = _hub_case(lambda p, repo: p.hub.list(repo, source="local"))
CASES["hub_help"] = _hub_case(lambda p, repo: p.hub.help(repo, "tiny_model", source="local"))
CASES["hub_help_private"] = _hub_case(lambda p, repo: p.hub.help(repo, "_private", source="local"))
CASES["hub_load"] = _hub_case(lambda p, repo: p.hub.load(repo, "tiny_model", source="local", width=2, scale=0.5))
CASES["hub_load_class"] = _hub_case(lambda p, repo: type(p.hub.load(repo, "Builder", source="local")).__name__)
CASES["hub_load_not_callable"] = _hub_case(lambda p, repo: p.hub.load(repo, "VALUE", source="local"))
CASES["hub_load_missing"] = _hub_case(lambda p, repo: p.hub.load(repo, "nope", source="local"))
CASES["hub_load_non_str"] = _hub_case(lambda p, repo: p.hub.load(repo, 3, source="local"))
CASES["hub_bad_source"] = _hub_case(lambda p, repo: p.hub.list(repo, source="svn"))
CASES["hub_missing_dependency"] = _hub_case(lambda p, repo: p.hub.load(repo, "m", source="local"),
                                            "dependencies = ['numpy', 'no_such_pkg_xyz']\ndef m():\n    return 1\n")
CASES["hub_list_ignores_dependencies"] = _hub_case(lambda p, repo: p.hub.list(repo, source="local"),
                                                   "dependencies = ['no_such_pkg_xyz']\ndef m():\n    return 1\n")
CASES["hub_no_hubconf"] = lambda p: p.hub.list(tempfile.gettempdir() + "/no_such_hub_dir_xyz", source="local")


def c_hub_state_dict_from_cache(paddle):
    with tempfile.TemporaryDirectory() as folder:
        paddle.save({"w": paddle.to_tensor([1.0, 2.0])}, os.path.join(folder, "model.pdparams"))
        loaded = paddle.hub.load_state_dict_from_url("https://example.invalid/x/model.pdparams", model_dir=folder)
        as_numpy = paddle.hub.load_state_dict_from_url("https://example.invalid/x/model.pdparams", model_dir=folder,
                                                       map_location="numpy")
        return [loaded, as_numpy]


for _fn in list(globals().values()):
    if callable(_fn) and getattr(_fn, "__name__", "").startswith("c_"):
        CASES[_fn.__name__[2:]] = _fn


if __name__ == "__main__":
    dump(CASES, sys.argv[1])

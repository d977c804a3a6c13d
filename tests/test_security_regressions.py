"""PaddlePaddle's published security advisories (security/advisory/pdsa-*.md in PaddlePaddle/Paddle), and
crash reports of the same kind from Paddle's issue tracker, replayed against torchpaddle.

Each replay feeds the advisory's proof-of-concept inputs (rewritten here, with the random values of the
PoCs pinned to the extremes they were drawn from) to the same API. It passes when the call raises a clear
Python exception (ValueError, TypeError, IndexError, RuntimeError, ...) or returns the result NumPy says is
right; code-injection replays pass when the payload never runs. A crash must show up as a failing test, not
as a dead pytest, so the replays run in a child interpreter: a segfault, an FPE or a hang costs only the
replay that caused it (the child is restarted for the rest). See tests/security_cases.md for the sources.

``test_replay_matches_paddle`` runs the same replays on real PaddlePaddle 3.3.1 and compares exception types
(skipped where Paddle itself crashes, returns a wrong result, or no longer has the API).
"""
import dataclasses
import importlib
import json
import os
import queue
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading

import pytest

from conftest import ROOT
import paddle_ref

import torchpaddle

# Exception types that count as "a clear error" for a bad input (anything else, e.g. AttributeError or
# ZeroDivisionError, means the input reached code that did not expect it).
CLEAR_ERRORS = ("ValueError", "TypeError", "IndexError", "RuntimeError", "NotImplementedError",
                "OverflowError", "MemoryError")
IMPORT_TIMEOUT = 120
CASE_TIMEOUT = 30
I32_MIN, I32_MAX = -2 ** 31, 2 ** 31 - 1


@dataclasses.dataclass
class Replay:
    id: str                 # advisory id (PDSA-yyyy-nnn[-variant]) or ISSUE-<n> / EDGE-<api>
    api: str                # attribute path under paddle that the replay needs
    code: str               # runs with: paddle, np, os, t, check, must_raise, api, TMP, MARK, I32_MIN, I32_MAX
    later: str = None       # API outside `002:paddle`: skip while torchpaddle lacks it ("the nn issue")
    inject: bool = False    # code-injection replay: any exception is fine, the payload must not run
    conformance: bool = True  # compare the exception type with real Paddle 3.3.1
    title: str = ""


def R(id, api, code, **kw):
    return Replay(id, api, textwrap.dedent(code).strip() + "\n", **kw)


CASES = [
    # --- published advisories -------------------------------------------------------------------------
    R("PDSA-2022-001", "nn.functional.gather_tree", """
        ids = t([[2, 2], [6, 1]], "int64")
        out = paddle.nn.functional.gather_tree(ids, ids)
        must_raise("gather_tree with 2-D ids (needs [max_time, batch, beam])")
    """, later="nn issue", title="OOB read in gather_tree"),
    R("PDSA-2022-001-parent-oob", "nn.functional.gather_tree", """
        ids = t([[[2, 2]], [[6, 1]]], "int64")
        parents = t([[[0, 0]], [[5, 1]]], "int64")
        out = paddle.nn.functional.gather_tree(ids, parents)
        must_raise("gather_tree with parent 5 >= beam_size 2")
    """, later="nn issue", title="OOB read in gather_tree (parent index past the beam)"),
    R("PDSA-2022-002", "audio.functional.get_window", """
        payload = "hann(1) or __import__('pathlib').Path(%r).touch() or _hann" % MARK
        out = paddle.audio.functional.get_window(payload, 8)
        must_raise("an unknown window name")
    """, later="audio issue", inject=True, title="Code injection in paddle.audio.functional.get_window"),
    R("PDSA-2023-001", "diagonal", """
        x = t(np.ones([1, 1, 1, 1]), "int64")
        out = paddle.diagonal(x, t(-5, "int32"), t(-999999, "int32"), t(-9999999, "int32"))
        must_raise("diagonal with axis1=-999999 on a 4-D tensor")
    """, later="manipulation issue (paddle.diagonal is outside 002:paddle)",
      title="Use after free in paddle.diagonal"),
    R("PDSA-2023-001-int-args", "diagonal", """
        out = paddle.diagonal(t(np.ones([1, 1, 1, 1]), "int64"), -5, -999999, -9999999)
        must_raise("diagonal with axis1=-999999 on a 4-D tensor")
    """, later="manipulation issue (paddle.diagonal is outside 002:paddle)"),
    R("PDSA-2023-002", "flip", """
        x = (t(np.ones([1, 2, 3]), "int64"),)
        axis = t([[I32_MIN, I32_MAX, 7], [-4, 3, 0], [I32_MIN, -1, I32_MAX]], "int32")
        out = paddle.flip(x, axis)
        must_raise("flip of a tuple with a 3x3 axis tensor")
    """, title="Null pointer dereference in paddle.flip"),
    R("PDSA-2023-002-tensor-x", "flip", """
        axis = t([[I32_MIN, I32_MAX, 7], [-4, 3, 0], [I32_MIN, -1, I32_MAX]], "int32")
        out = paddle.flip(t(np.ones([1, 2, 3]), "int64"), axis)
        must_raise("flip with a 3x3 axis tensor of out-of-range axes")
    """),
    R("PDSA-2023-002-tuple-x", "flip", """
        x = np.arange(6).reshape(1, 2, 3)
        check(paddle.flip((t(x, "int64"),), [0]), np.flip(np.stack([x]), 0))  # NumPy's reading of a tuple
    """),
    R("PDSA-2023-002-huge-axis", "flip", """
        out = paddle.flip(t(np.ones([1, 2, 3]), "int64"), [I32_MAX])
        must_raise("flip with axis 2**31-1 on a 3-D tensor")
    """),
    R("PDSA-2023-003", "trace", """
        x = t(np.arange(8.0).reshape(2, 2, 2))
        out = paddle.trace(x, t(3, "int32"), t(-6666666, "int32"), t(-5, "int32"))
        must_raise("trace with axis1=-6666666 on a 3-D tensor")
    """, title="Heap buffer overflow in paddle.trace"),
    R("PDSA-2023-003-int-args", "trace", """
        out = paddle.trace(t(np.arange(8.0).reshape(2, 2, 2)), 3, -6666666, -5)
        must_raise("trace with axis1=-6666666 on a 3-D tensor")
    """),
    R("PDSA-2023-004", "linalg.matrix_power", """
        out = paddle.linalg.matrix_power(t(np.zeros([1, 1, 0, 0]), "float32"), -1)
        check(out, np.zeros([1, 1, 0, 0], "float32"), "float32")
    """, later="linalg issue (paddle.linalg.* is outside 002:paddle)",
      title="FPE in paddle.linalg.matrix_power"),
    R("PDSA-2023-005", "distributed.fleet.utils.LocalFS", """
        fs = api("distributed.fleet.utils.LocalFS")()
        fs.mkdirs(os.path.join(TMP, "hi;touch %s;" % MARK))
    """, later="distributed issue", inject=True, title="Command injection in fs.py (LocalFS.mkdirs)"),
    R("PDSA-2023-006", "nanmedian", """
        out = paddle.nanmedian(t(np.zeros([0, 0, 0, 0, 0]), "float32"))
        check(out, np.array(np.nan, "float32"), "float32")
    """, later="reduction issue (paddle.nanmedian is outside 002:paddle)", title="FPE in paddle.nanmedian"),
    R("PDSA-2023-007", "linalg.matrix_rank", """
        out = paddle.linalg.matrix_rank(t(np.zeros([0, 0, 0, 0, 0]), "float32"))
        check(out, np.zeros([0, 0, 0], "int64"))
    """, later="linalg issue (paddle.linalg.* is outside 002:paddle)", title="FPE in paddle.linalg.matrix_rank"),
    R("PDSA-2023-008", "dot", """
        x = t(np.zeros([0, 0]), "float32")
        out = paddle.dot(x, x)
        check(out, np.zeros([0], "float32"), "float32")
    """, title="Segfault in paddle.dot"),
    R("PDSA-2023-009", "linalg.eig", """
        w, v = paddle.linalg.eig(t(np.zeros([3, 6, 0, 2, 2]), "float32"))
        check(w, np.zeros([3, 6, 0, 2], "complex64"), "complex64")
        check(v, np.zeros([3, 6, 0, 2, 2], "complex64"), "complex64")
    """, later="linalg issue (paddle.linalg.* is outside 002:paddle)", title="FPE in paddle.linalg.eig"),
    R("PDSA-2023-010", "mode", """
        out = paddle.mode(t(np.float64(5.0)), axis=t(I32_MAX, "int32"), keepdim=True)
        must_raise("mode over axis 2**31-1 of a 0-D tensor")
    """, later="search issue (paddle.mode is outside 002:paddle)", title="Segfault in paddle.mode"),
    R("PDSA-2023-010-min-axis", "mode", """
        out = paddle.mode(t(np.float64(5.0)), axis=I32_MIN, keepdim=True)
        must_raise("mode over axis -2**31 of a 0-D tensor")
    """, later="search issue (paddle.mode is outside 002:paddle)"),
    R("PDSA-2023-011", "nextafter", """
        out = paddle.nextafter(t(np.ones([1, 2]), "float32"), t(np.ones([0, 0, 0, 0, 0]), "float32"))
        must_raise("nextafter of non-broadcastable shapes [1, 2] and [0, 0, 0, 0, 0]")
    """, later="math issue (paddle.nextafter is outside 002:paddle)",
      title="Null pointer dereference in paddle.nextafter"),
    R("PDSA-2023-012", "put_along_axis", """
        out = paddle.put_along_axis(t([7], "int32"), t([2 ** 62], "int64"), t(3, "int32"), axis=0,
                                    reduce="assign")
        must_raise("put_along_axis with index 2**62 into a length-1 axis")
    """, later="indexing issue (paddle.put_along_axis is outside 002:paddle)",
      title="Segfault in paddle.put_along_axis"),
    R("PDSA-2023-012-negative-index", "put_along_axis", """
        out = paddle.put_along_axis(t([7], "int32"), t([-2 ** 62], "int64"), t(3, "int32"), axis=0,
                                    reduce="assign")
        must_raise("put_along_axis with index -2**62 into a length-1 axis")
    """, later="indexing issue (paddle.put_along_axis is outside 002:paddle)"),
    R("PDSA-2023-013", "searchsorted", """
        out = paddle.searchsorted(t(np.array(0)), t(np.float64(3.5)), out_int32=True, right=True)
        must_raise("searchsorted in a 0-D sorted_sequence")
    """, later="search issue (paddle.searchsorted is outside 002:paddle)",
      title="Stack overflow in paddle.searchsorted"),
    R("PDSA-2023-014", "topk", """
        x = t(np.zeros([6, 2, 1, 4, 2, 0]), "float64")
        values, indices = paddle.topk(x, t(1, "int32"), axis=2, largest=False, sorted=True)
        check(values, np.zeros([6, 2, 1, 4, 2, 0], "float64"), "float64")
        check(indices, np.zeros([6, 2, 1, 4, 2, 0], "int64"), "int64")
    """, title="FPE in paddle.topk"),
    R("PDSA-2023-015", "lerp", """
        out = paddle.lerp(t(np.float64(1.0)), t(np.zeros([4, 0, 0, 2, 6]), "float64"), t(np.float64(0.5)))
        check(out, np.zeros([4, 0, 0, 2, 6], "float64"), "float64")
    """, later="math issue (paddle.lerp is outside 002:paddle)", title="FPE in paddle.lerp"),
    R("PDSA-2023-016", "linalg.lu_unpack", """
        x = t(np.ones([1, 6, 4, 8, 2]), "float32")
        out = paddle.linalg.lu_unpack(x, t(I32_MAX, "int32"), True, True)
        must_raise("lu_unpack with 0-D pivots")
    """, later="linalg issue (paddle.linalg.* is outside 002:paddle)",
      title="Stack overflow in paddle.linalg.lu_unpack"),
    R("PDSA-2023-017", "amin", """
        out = paddle.amin(t(np.zeros([0, 0, 6, 3]), "float32"), axis=-1, keepdim=True)
        check(out, np.zeros([0, 0, 6, 1], "float32"), "float32")
    """, later="reduction issue (paddle.amin is outside 002:paddle)", title="FPE in paddle.amin"),
    R("PDSA-2023-018", "repeat_interleave", """
        x = t(np.ones([4, 4, 8, 3, 2, 4]), "float64")
        out = paddle.repeat_interleave(x, t([[I32_MIN], [I32_MAX]], "int32"), axis=-2)
        must_raise("repeat_interleave with 2-D repeats holding -2**31")
    """, later="manipulation issue (paddle.repeat_interleave is outside 002:paddle)",
      title="Heap buffer overflow in paddle.repeat_interleave"),
    R("PDSA-2023-019", "incubate.distributed.fleet.fleet_util.FleetUtil", """
        util = api("incubate.distributed.fleet.fleet_util.FleetUtil")()
        util.get_online_pass_interval(days="{20190720..20190729}", hours="9;touch %s" % MARK,
                                      split_interval=5, split_per_pass=2, is_data_hourly_placed=False)
    """, later="distributed issue", inject=True, title="Command injection in get_online_pass_interval"),
    R("PDSA-2023-020", "utils.download._wget_download", """
        api("utils.download._wget_download")("aa; touch %s" % MARK, os.path.join(TMP, "bb"))
    """, later="utils issue (private helper; Paddle 3.3.1 no longer has it)", inject=True, conformance=False,
      title="Command injection in _wget_download"),
    R("PDSA-2023-020-get_path_from_url", "utils.download.get_path_from_url", """
        url = "http://127.0.0.1:9/x;touch %s;.tar" % MARK   # port 9: refused at once, nothing leaves the host
        paddle.utils.download.get_path_from_url(url, root_dir=os.path.join(TMP, "dl"))
    """, later="utils issue", inject=True),
    R("PDSA-2023-021", "crop", """
        x = t(np.arange(4).reshape(2, 2), "int32")
        out = paddle.crop(x, t([-1, 0], "int32"), t(np.zeros([0]), "int32"))
        must_raise("crop with 0 offsets for a 2-D tensor")
    """, later="manipulation issue (paddle.crop is outside 002:paddle)",
      title="Null pointer dereference in paddle.crop"),
    R("PDSA-2023-021-minus-one", "crop", """
        out = paddle.crop(t(np.arange(4).reshape(2, 2), "int32"), shape=[-1, 0], offsets=[0, 0])
        check(out, np.zeros([2, 0], "int32"), "int32")   # -1 keeps the rest of the dimension
    """, later="manipulation issue (paddle.crop is outside 002:paddle)"),
    R("PDSA-2023-022", "argmax", """
        out = paddle.argmax(t(np.zeros([0]), "int32"), axis=0)
        must_raise("argmax of an empty tensor")
    """, title="FPE in paddle.argmin and paddle.argmax"),
    R("PDSA-2023-022-argmin", "argmin", """
        out = paddle.argmin(t(np.zeros([0]), "int32"), axis=0)
        must_raise("argmin of an empty tensor")
    """),
    R("PDSA-2023-022-no-axis", "argmax", """
        out = paddle.argmax(t(np.zeros([0, 3]), "float32"))
        must_raise("argmax of an empty tensor")
    """),
    R("PDSA-2023-023", "jit.dy2static.convert_operators.convert_shape_compare", """
        fn = api("jit.dy2static.convert_operators.convert_shape_compare")
        fn("prefix", '+ str(__import__("os").system("touch %s")) +' % MARK, "1")
    """, later="jit issue (Paddle 3.3.1 no longer has it)", inject=True, conformance=False,
      title="Command injection in convert_shape_compare"),
    R("SAFE-LOAD-pickle", "load", """
        import pickle
        class Evil:
            def __reduce__(self):
                return (os.system, ("touch %s" % MARK,))
        path = os.path.join(TMP, "evil.pdparams")
        with open(path, "wb") as f:
            pickle.dump({"w": Evil()}, f, protocol=2)
        paddle.load(path)
    """, inject=True, title="paddle.load must not run code from a pickle (DESIGN: allow-list unpickler)"),

    # --- hostile files: each is built here and must be refused quickly (DESIGN: never crash or hang) ---------
    # Paddle 3.3.1 has no safe load (it hangs, crashes or follows the file), so these are not compared with it.
    # Each wants a ValueError: a MemoryError would mean the file was followed until memory ran out.
    R("HOSTILE-pdmodel-parent-loop", "static.load_inference_model", """
        s = api("static.serialization")
        desc = s.framework_pb2.ProgramDesc()
        for idx, parent in [(0, -1), (1, 2), (2, 1)]:
            desc.blocks.add(idx=idx, parent_idx=parent)
        desc.blocks[1].ops.append(s.make_op_desc("relu", {"X": ["x"]}, {"Out": ["y"]}))
        with open(os.path.join(TMP, "m.pdmodel"), "wb") as f:
            f.write(desc.SerializeToString())
        open(os.path.join(TMP, "m.pdiparams"), "wb").close()
        try:
            paddle.static.load_inference_model(os.path.join(TMP, "m"), paddle.static.Executor())
        except Exception as e:
            assert isinstance(e, ValueError) and "1 -> 2 -> 1" in str(e), repr(e)
        else:
            must_raise("a .pdmodel whose blocks are each other's parents")
    """, conformance=False, title="a .pdmodel whose blocks are each other's parents made every loader hang"),
    R("HOSTILE-pdmodel-bad-block-tree", "static.deserialize_program", """
        s = api("static.serialization")
        def program(parents, forward=None, runs=()):
            desc = s.framework_pb2.ProgramDesc()
            for idx, parent in enumerate(parents):
                desc.blocks.add(idx=idx, parent_idx=parent)
            if forward:
                desc.blocks[forward[0]].forward_block_idx = forward[1]
            for block, sub in runs:  # an op in `block` running `sub`
                desc.blocks[block].ops.append(s.make_op_desc(
                    "conditional_block", {"Cond": ["c"]}, {"Out": []}, {"sub_block": sub}, {"sub_block": "BLOCK"}))
            return desc.SerializeToString()
        bad = {"self parent": program([-1, 1]), "parent out of range": program([-1, 5]),
               "negative parent": program([-1, -7]), "global block with a parent": program([1, 0]),
               "three-block parent loop": program([-1, 3, 1, 2]), "forward block is itself": program([-1, 0], (1, 1)),
               "forward block out of range": program([-1, 0], (1, 9)),
               "op runs its own block": program([-1, 0], runs=[(1, 1)]),
               "two blocks run each other": program([-1, 0, 0], runs=[(1, 2), (2, 1)])}
        for label, data in bad.items():
            try:
                paddle.static.deserialize_program(data)
            except Exception as e:
                assert isinstance(e, ValueError) and "block" in str(e), (label, repr(e))
            else:
                must_raise(label)
        nested = paddle.static.deserialize_program(program([-1, 0, 1], runs=[(0, 1), (1, 2)]))
        check(np.array(nested.num_blocks), np.array(3))
    """, conformance=False, title="parent / forward / sub-block indices that loop or point nowhere"),
    R("HOSTILE-program-parent-loop-lookup", "static.Program", """
        program = paddle.static.Program()
        inner = program._create_block()
        inner = program._create_block()   # parent: the first sub-block
        program.blocks[1].parent_idx = 2  # a hand-made loop 1 -> 2 -> 1
        try:
            inner.var("missing")
        except Exception as e:
            assert isinstance(e, ValueError) and "loop" in str(e), repr(e)
        else:
            must_raise("a variable lookup through a parent loop")
    """, conformance=False, title="Block variable lookups must not spin on a parent_idx loop"),
    R("HOSTILE-pickle-billion-laughs", "load", """
        import pickle
        leaf = [("w", np.arange(3, dtype="float32"))]
        level = leaf
        for _ in range(60):        # 8**60 paths through one shared list per level: a few hundred bytes
            level = [level] * 8
        path = os.path.join(TMP, "laughs.pdparams")
        with open(path, "wb") as f:
            pickle.dump(level, f, protocol=2)
        assert os.path.getsize(path) < 2000
        for return_numpy in (False, True):
            out = paddle.load(path, return_numpy=return_numpy)
            assert out[0] is out[7] and out[3][5][1] is out[0][0][0]   # shared lists stay shared
            for _ in range(60):
                out = out[6]
            check(out[0], np.arange(3, dtype="float32"))
    """, conformance=False, title="a pickle of shared nested lists made paddle.load walk 8**60 paths"),
    R("HOSTILE-pickle-deep-nesting", "load", """
        import pickle
        depth = 100000
        # a tensor record at the bottom of lists nested far deeper than the recursion limit
        inner = pickle.dumps(("w", np.arange(2, dtype="float32")), protocol=4)[2:-1]
        path = os.path.join(TMP, "deep.pdparams")
        with open(path, "wb") as f:
            f.write(b"\\x80\\x04" + b"(" * depth + inner + b"l" * depth + b".")
        out = paddle.load(path)
        for _ in range(depth):
            out = out[0]
        check(out, np.arange(2, dtype="float32"))
    """, conformance=False, title="lists nested 100000 deep load without recursion"),
    R("HOSTILE-pickle-deep-tuple-key", "load", """
        depth = 300000   # CPython hashes nested tuples by C recursion: a key this deep overflows the C stack
        nest = b"K\\x00" + b"\\x85" * depth
        files = {"dict key": b"\\x80\\x04}" + nest + b"K\\x01s.",
                 "dict key (SETITEMS)": b"\\x80\\x04}(" + nest + b"K\\x01u.",
                 "set member": b"\\x80\\x04\\x8f(" + nest + b"\\x90.",
                 "frozenset member": b"\\x80\\x04(" + nest + b"\\x91.",
                 "dict() argument": b"\\x80\\x04\\x8c\\x08builtins\\x8c\\x04dict\\x93" + nest + b"\\x85\\x85R."}
        for label, data in files.items():
            path = os.path.join(TMP, "key.pdparams")
            with open(path, "wb") as f:
                f.write(data)
            try:
                paddle.load(path)
            except Exception as e:
                assert isinstance(e, ValueError) and "nests tuples" in str(e), (label, repr(e))
            else:
                must_raise("a " + label + " nested 300000 tuples deep")
        # a Paddle dtype (NEWOBJ + BUILD) whose state is that tuple: it is looked up in a table afterwards
        with open(path, "wb") as f:
            f.write(b"\\x80\\x04\\x8c\\x06paddle\\x8c\\x05dtype\\x93)\\x81" + nest + b"b.")
        try:
            paddle.load(path)
        except Exception as e:
            import pickle
            assert isinstance(e, pickle.UnpicklingError) and "must be an int" in str(e), repr(e)
        else:
            must_raise("a Paddle dtype whose state is a tuple nested 300000 deep")
    """, conformance=False, title="a dict key nested 300000 tuples deep crashed the process when hashed"),
    R("HOSTILE-pickle-copy-amplification", "load", """
        import struct
        n = 1 << 16   # a 64 KiB array state (memoized), then 2000 arrays built from it for 8 bytes each
        dtype = (b"\\x8c\\x05numpy\\x8c\\x05dtype\\x93\\x8c\\x02f4\\x89\\x88\\x87R"
                 b"(K\\x03\\x8c\\x01<NNNJ\\xff\\xff\\xff\\xffJ\\xff\\xff\\xff\\xffK\\x00tb")
        arrays = (b"\\x80\\x04]\\x8c\\x16numpy._core.multiarray\\x8c\\x0c_reconstruct\\x93\\x940"
                  b"\\x8c\\x05numpy\\x8c\\x07ndarray\\x93\\x940h\\x01K\\x00\\x85C\\x01b\\x87\\x940"
                  b"(K\\x01J" + struct.pack("<i", n // 4) + b"\\x85" + dtype + b"\\x89B" + struct.pack("<I", n)
                  + bytes(n) + b"t\\x940" + b"h\\x00h\\x02Rh\\x03ba" * 2000 + b".")
        # the same with list(), bytearray() and protocol 2's _codecs.encode of one memoized object
        lists = (b"\\x80\\x04]\\x8c\\x08builtins\\x8c\\x04list\\x93\\x940(" + b"N" * n + b"l\\x940"
                 + b"h\\x00h\\x01\\x85Ra" * 2000 + b".")
        blobs = (b"\\x80\\x04]\\x8c\\x08builtins\\x8c\\tbytearray\\x93\\x940B" + struct.pack("<I", n) + bytes(n)
                 + b"\\x940" + b"h\\x00h\\x01\\x85Ra" * 2000 + b".")
        texts = (b"\\x80\\x04]\\x8c\\x07_codecs\\x8c\\x06encode\\x93\\x940X" + struct.pack("<I", n) + b"a" * n
                 + b"\\x940" + b"h\\x00h\\x01\\x8c\\x06latin1\\x86Ra" * 2000 + b".")
        for label, data in {"ndarray": arrays, "list": lists, "bytearray": blobs, "_codecs.encode": texts}.items():
            path = os.path.join(TMP, "copies.pdparams")
            with open(path, "wb") as f:
                f.write(data)
            try:
                paddle.load(path, return_numpy=True)
            except Exception as e:
                assert isinstance(e, ValueError) and "over and over" in str(e), (label, repr(e))
            else:
                must_raise("a " + label + " copied 2000 times from one memoized object")
    """, conformance=False, title="a small pickle made paddle.load copy one memoized object thousands of times"),
    R("HOSTILE-pdparams-repeated-slice", "load", """
        import pickle
        part = np.zeros(1 << 18, "float32")   # 1 MiB, listed 20000 times: 20 GiB if joined before any check
        info = {"w": {"OriginShape": (20000, 1 << 18), "slices": ["w@@.0"] * 20000}}
        path = os.path.join(TMP, "split.pdparams")
        with open(path, "wb") as f:
            pickle.dump({"w@@.0": part, "UnpackBigParamInfor@@": info}, f, protocol=2)
        for load in (paddle.load, paddle.static.load_program_state):
            try:
                load(path)
            except Exception as e:
                assert isinstance(e, ValueError) and "UnpackBigParamInfor@@" in str(e), repr(e)
            else:
                must_raise("a .pdparams listing one slice 20000 times")
    """, conformance=False, title="a .pdparams repeating one big-array slice allocated gigabytes before any check"),
    R("HOSTILE-pdmodel-fuzz", "static.deserialize_program", """
        s = api("static.serialization")
        desc = s.framework_pb2.ProgramDesc()
        for idx, parent in [(0, -1), (1, 0), (2, 1), (3, 0)]:
            block = desc.blocks.add(idx=idx, parent_idx=parent)
            block.vars.append(s.make_var_desc("x%d" % idx, [2, 3], "float32", persistable=idx == 0))
        desc.blocks[3].forward_block_idx = 1
        for block, sub in [(0, 1), (1, 2), (0, 3)]:
            desc.blocks[block].ops.append(s.make_op_desc(
                "conditional_block", {"Cond": ["x0"]}, {"Out": ["x%d" % sub]}, {"sub_block": sub}, {"sub_block": "BLOCK"}))
        data = desc.SerializeToString()
        rng = np.random.RandomState(0)
        for i in range(400):   # flipped bits, set bytes, truncations: each parses or raises ValueError, quickly
            damaged = bytearray(data)
            where = int(rng.randint(len(damaged)))
            if i % 3 == 0:
                damaged[where] ^= 1 << int(rng.randint(8))
            elif i % 3 == 1:
                damaged[where] = int(rng.randint(256))
            else:
                damaged = damaged[:where]
            try:
                program = paddle.static.deserialize_program(bytes(damaged))
            except ValueError:
                continue
            for block in program.blocks:   # what a loader does next: look names up through the parents
                block._find_var_recursive("x0")
    """, conformance=False, title="damaged .pdmodel files with sub-blocks parse or raise ValueError"),

    # --- crash reports from Paddle's issue tracker --------------------------------------------------
    R("ISSUE-49919-min", "min", """
        out = paddle.min(t(np.zeros([0, 3]), "float32"), axis=0)
        must_raise("min over an empty axis")
    """, title="#49919 case 20: divide by 0 in paddle.min"),
    R("ISSUE-49919-chunk", "chunk", """
        out = paddle.chunk(t([5.421010862427522e-18, 0.0, 0.0, 0.0], "float32"), chunks=0)
        must_raise("chunk into 0 chunks")
    """, title="#49919 case 24: divide by 0 in paddle.chunk"),
    R("ISSUE-49919-dot", "dot", """
        out = paddle.dot(t(np.zeros([0]), "float32"), t(np.zeros([0]), "float32"))
        check(out, np.array(0.0, "float32"), "float32")
    """, title="#49919 case 25: divide by 0 in paddle.dot"),
    R("ISSUE-49958-split", "split", """
        out = paddle.split(t(np.arange(4.0), "float32"), num_or_sections=0)
        must_raise("split into 0 sections")
    """, title="#49958: divide by 0 in paddle.split"),
    R("ISSUE-71164-renorm", "renorm", """
        out = paddle.renorm(t(np.zeros([0, 0, 0]), "float32"), p=2.0, axis=1, max_norm=5.0)
        check(out, np.zeros([0, 0, 0], "float32"), "float32")
    """, later="math issue (paddle.renorm is outside 002:paddle)", title="#71164: FPE in renorm"),
    R("ISSUE-76946-gather-axis", "gather", """
        out = paddle.gather(t(np.arange(24.0).reshape(2, 3, 4), "float32"), t([0, 1], "int64"), axis=-4)
        must_raise("gather along axis -4 of a 3-D tensor")
    """, title="#76946: stack-buffer-underflow in paddle.gather"),
    R("ISSUE-76947-reshape-0d", "reshape", """
        out = paddle.reshape(t(np.float16(0)), [-1])
        check(out, np.zeros([1], "float16"), "float16")
    """, title="#76947: stack-buffer-overflow in paddle.reshape of a 0-D tensor"),
    R("ISSUE-76948-transpose-short-perm", "transpose", """
        out = paddle.transpose(t(np.arange(24.0).reshape(2, 3, 4), "float32"), [1, 0])
        must_raise("transpose of a 3-D tensor with a 2-entry perm")
    """, title="#76948: heap-buffer-overflow in paddle.transpose"),
    R("ISSUE-76955-conv2d-nhwc", "nn.functional.conv2d", """
        x = t(np.ones([1, 11, 12, 1]), "float32")
        w = t(np.ones([1, 1, 7, 1]), "float32")
        out = paddle.nn.functional.conv2d(x, w, dilation=2, data_format="NHWC")
        must_raise("conv2d whose dilated kernel (13 x 1) exceeds the input (11 x 12)")
    """, later="nn issue", title="#76955: SIGFPE in conv2d with NHWC input",
      # Paddle 3.3.1 no longer crashes but fails later on an allocator precondition (RuntimeError
      # "meta data must be valid"), not on the shapes: we raise the ValueError naming them instead.
      conformance=False),

    # --- the same failure classes on the other `002:paddle` ops -------------------------------------
    R("EDGE-gather-oob", "gather", """
        out = paddle.gather(t(np.arange(6.0).reshape(3, 2), "float32"), t([0, 3], "int64"))
        must_raise("gather index 3 on an axis of size 3")
    """),
    R("EDGE-gather-huge-index", "gather", """
        out = paddle.gather(t(np.arange(6.0).reshape(3, 2), "float32"), t([2 ** 62], "int64"))
        must_raise("gather index 2**62")
    """),
    R("EDGE-gather-huge-axis", "gather", """
        out = paddle.gather(t(np.arange(6.0).reshape(3, 2), "float32"), t([0], "int64"), axis=I32_MAX)
        must_raise("gather along axis 2**31-1")
    """),
    R("EDGE-gather_nd-oob", "gather_nd", """
        out = paddle.gather_nd(t(np.arange(6.0).reshape(3, 2), "float32"), t([[5, 0]], "int64"))
        must_raise("gather_nd index 5 on an axis of size 3")
    """),
    R("EDGE-gather_nd-long-index", "gather_nd", """
        out = paddle.gather_nd(t(np.arange(6.0).reshape(3, 2), "float32"), t([[0, 0, 0]], "int64"))
        must_raise("gather_nd with 3 index components for a 2-D tensor")
    """),
    R("EDGE-index_select-oob", "index_select", """
        out = paddle.index_select(t(np.arange(6.0).reshape(3, 2), "float32"), t([7], "int64"))
        must_raise("index_select index 7 on an axis of size 3")
    """),
    R("EDGE-index_sample-oob", "index_sample", """
        out = paddle.index_sample(t(np.arange(6.0).reshape(2, 3), "float32"), t([[0, 9], [1, 2]], "int64"))
        must_raise("index_sample index 9 on rows of length 3")
    """),
    R("EDGE-scatter-oob", "scatter", """
        out = paddle.scatter(t(np.zeros([3, 2]), "float32"), t([5], "int64"), t(np.ones([1, 2]), "float32"))
        must_raise("scatter index 5 into 3 rows")
    """),
    R("EDGE-scatter_nd_add-oob", "scatter_nd_add", """
        out = paddle.scatter_nd_add(t(np.zeros([3]), "float32"), t([[7]], "int64"), t([1.0], "float32"))
        must_raise("scatter_nd_add index 7 into 3 elements")
    """),
    R("EDGE-scatter_nd-oob", "scatter_nd", """
        out = paddle.scatter_nd(t([[7]], "int64"), t([1.0], "float32"), [3])
        must_raise("scatter_nd index 7 into shape [3]")
    """),
    R("EDGE-multiplex-oob", "multiplex", """
        x = t(np.ones([2, 2]), "float32")
        out = paddle.multiplex([x, x], t([[5], [0]], "int32"))
        must_raise("multiplex index 5 with 2 inputs")
    """),
    R("EDGE-slice-huge-axis", "slice", """
        out = paddle.slice(t(np.arange(12.0).reshape(3, 4), "float32"), axes=[I32_MAX], starts=[0], ends=[1])
        must_raise("slice along axis 2**31-1 of a 2-D tensor")
    """),
    R("EDGE-slice-huge-bounds", "slice", """
        x = np.arange(12.0, dtype="float32").reshape(3, 4)
        out = paddle.slice(t(x), axes=[1], starts=[-2 ** 62], ends=[2 ** 62])
        check(out, x)
    """),
    R("EDGE-strided_slice-zero-stride", "strided_slice", """
        out = paddle.strided_slice(t(np.arange(12.0).reshape(3, 4), "float32"), axes=[1], starts=[0],
                                   ends=[4], strides=[0])
        must_raise("strided_slice with stride 0")
    """),
    R("EDGE-transpose-huge-perm", "transpose", """
        out = paddle.transpose(t(np.arange(6.0).reshape(2, 3), "float32"), [0, I32_MAX])
        must_raise("transpose with perm entry 2**31-1")
    """),
    R("EDGE-eye-negative", "eye", """
        out = paddle.eye(-1)
        must_raise("eye(-1)")
    """),
    R("EDGE-full-negative-shape", "full", """
        out = paddle.full([-2, 3], 1.0)
        must_raise("full with shape [-2, 3]")
    """),
    R("EDGE-full-huge-shape", "full", """
        out = paddle.full([2 ** 40, 2 ** 40], 1.0)
        must_raise("full with 2**80 elements")
    """),
    R("EDGE-zeros-negative-shape", "zeros", """
        out = paddle.zeros([2, -3])
        must_raise("zeros with shape [2, -3]")
    """),
    R("EDGE-arange-zero-step", "arange", """
        out = paddle.arange(0, 10, 0)
        must_raise("arange with step 0")
    """),
    R("EDGE-arange-huge", "arange", """
        out = paddle.arange(0, 1e30, 1e-30)
        must_raise("arange of 1e60 elements")
    """),
    R("EDGE-linspace-negative-num", "linspace", """
        out = paddle.linspace(0, 1, -1)
        must_raise("linspace with num=-1")
    """),
    R("EDGE-randint-empty-range", "randint", """
        out = paddle.randint(5, 5, [2])
        must_raise("randint with low == high")
    """),
    R("EDGE-randperm-negative", "randperm", """
        out = paddle.randperm(-1)
        must_raise("randperm(-1)")
    """),
    R("EDGE-multinomial-too-many", "multinomial", """
        out = paddle.multinomial(t([0.5, 0.5], "float32"), num_samples=3, replacement=False)
        must_raise("3 samples without replacement from 2 categories")
    """),
    R("EDGE-multinomial-negative-prob", "multinomial", """
        out = paddle.multinomial(t([-0.5, 1.5], "float32"), num_samples=1)
        must_raise("multinomial with a negative probability")
    """),
    R("EDGE-histogram-zero-bins", "histogram", """
        out = paddle.histogram(t(np.arange(4.0), "float32"), bins=0)
        must_raise("histogram with 0 bins")
    """),
    R("EDGE-histogram-min-gt-max", "histogram", """
        out = paddle.histogram(t(np.arange(4.0), "float32"), bins=4, min=5, max=1)
        must_raise("histogram with min > max")
    """),
    R("EDGE-histogram-empty", "histogram", """
        out = paddle.histogram(t(np.zeros([0]), "float32"), bins=4)
        check(out, np.zeros([4]))
    """),
    R("EDGE-topk-k-too-big", "topk", """
        out = paddle.topk(t(np.arange(3.0), "float32"), k=5)
        must_raise("topk k=5 of 3 elements")
    """),
    R("EDGE-topk-k-zero", "topk", """
        out = paddle.topk(t(np.arange(3.0), "float32"), k=0)
        must_raise("topk k=0")
    """),
    R("EDGE-topk-axis-out-of-range", "topk", """
        out = paddle.topk(t(np.arange(3.0), "float32"), k=1, axis=5)
        must_raise("topk along axis 5 of a 1-D tensor")
    """),
    R("EDGE-tile-negative", "tile", """
        out = paddle.tile(t(np.arange(2.0), "float32"), [-1])
        must_raise("tile with repeat_times -1")
    """),
    R("EDGE-broadcast_to-mismatch", "broadcast_to", """
        out = paddle.broadcast_to(t(np.arange(3.0), "float32"), [2, 4])
        must_raise("broadcast_to of [3] to [2, 4]")
    """),
    R("EDGE-median-empty", "median", """
        out = paddle.median(t(np.zeros([0]), "float32"))
        check(out, np.array(np.nan, "float32"))
    """),
    R("EDGE-max-empty", "max", """
        out = paddle.max(t(np.zeros([0, 3]), "float32"))
        must_raise("max of an empty tensor")
    """),
    R("EDGE-prod-huge-axis", "prod", """
        out = paddle.prod(t(np.arange(2.0), "float32"), axis=I32_MAX)
        must_raise("prod along axis 2**31-1")
    """),
    R("EDGE-sum-duplicate-axes", "sum", """
        out = paddle.sum(t(np.arange(2.0), "float32"), axis=[0, 0])
        must_raise("sum over axis [0, 0]")
    """),
    R("EDGE-cumsum-axis-out-of-range", "cumsum", """
        out = paddle.cumsum(t(np.arange(6.0).reshape(2, 3), "float32"), axis=-3)
        must_raise("cumsum along axis -3 of a 2-D tensor")
    """),
    R("EDGE-argsort-axis-out-of-range", "argsort", """
        out = paddle.argsort(t(np.arange(2.0), "float32"), axis=3)
        must_raise("argsort along axis 3 of a 1-D tensor")
    """),
    R("EDGE-roll-huge-shift", "roll", """
        x = np.arange(3.0, dtype="float32")
        check(paddle.roll(t(x), shifts=2 ** 62), np.roll(x, 2 ** 62))
    """),
    R("EDGE-roll-axis-out-of-range", "roll", """
        out = paddle.roll(t(np.arange(3.0), "float32"), shifts=1, axis=3)
        must_raise("roll along axis 3 of a 1-D tensor")
    """),
    R("EDGE-concat-axis-out-of-range", "concat", """
        x = t(np.ones([1, 3]), "float32")
        out = paddle.concat([x, x], axis=9)
        must_raise("concat along axis 9 of 2-D tensors")
    """),
    R("EDGE-unbind-axis-out-of-range", "unbind", """
        out = paddle.unbind(t(np.ones([2, 3]), "float32"), axis=4)
        must_raise("unbind along axis 4 of a 2-D tensor")
    """),
    R("EDGE-squeeze-axis-out-of-range", "squeeze", """
        out = paddle.squeeze(t(np.ones([1, 3]), "float32"), axis=5)
        must_raise("squeeze axis 5 of a 2-D tensor")
    """),
    R("EDGE-unsqueeze-axis-out-of-range", "unsqueeze", """
        out = paddle.unsqueeze(t(np.ones([1, 3]), "float32"), axis=9)
        must_raise("unsqueeze at axis 9 of a 2-D tensor")
    """),
    R("EDGE-flatten-stop-before-start", "flatten", """
        out = paddle.flatten(t(np.ones([2, 3]), "float32"), start_axis=1, stop_axis=0)
        must_raise("flatten with stop_axis < start_axis")
    """),
    R("EDGE-diag-huge-offset", "diag", """
        out = paddle.diag(t(np.ones([2, 2]), "float32"), offset=2 ** 40)
        check(out, np.zeros([0], "float32"))   # no such diagonal: empty (NumPy overflows, Paddle raises)
    """),
    R("EDGE-cross-no-size-3-axis", "cross", """
        x = t(np.ones([2, 2]), "float32")
        out = paddle.cross(x, x)
        must_raise("cross of [2, 2] tensors (no axis of size 3)")
    """),
    R("EDGE-masked_select-mismatch", "masked_select", """
        out = paddle.masked_select(t(np.arange(3.0), "float32"), t([True, False]))
        must_raise("masked_select with a [2] mask for a [3] tensor")
    """),
    R("EDGE-where-mismatch", "where", """
        x = t(np.arange(3.0), "float32")
        out = paddle.where(t([True, False]), x, x)
        must_raise("where with a [2] condition for [3] tensors")
    """),
    R("EDGE-mv-mismatch", "mv", """
        out = paddle.mv(t(np.ones([2, 3]), "float32"), t(np.ones([4]), "float32"))
        must_raise("mv of [2, 3] and [4]")
    """),
    R("EDGE-bmm-mismatch", "bmm", """
        out = paddle.bmm(t(np.ones([2, 2, 3]), "float32"), t(np.ones([3, 3, 2]), "float32"))
        must_raise("bmm with batch 2 vs 3")
    """),
    R("EDGE-dot-3d", "dot", """
        x = t(np.zeros([0, 0, 0]), "float32")
        out = paddle.dot(x, x)
        must_raise("dot of 3-D tensors")
    """),
    R("EDGE-inverse-empty", "inverse", """
        check(paddle.inverse(t(np.zeros([0, 0]), "float32")), np.zeros([0, 0], "float32"), "float32")
    """),
    R("EDGE-kron-empty", "kron", """
        check(paddle.kron(t(np.zeros([0, 2]), "float32"), t(np.zeros([2, 0]), "float32")),
              np.zeros([0, 0], "float32"), "float32")
    """),
    R("EDGE-shard_index-zero-shards", "shard_index", """
        out = paddle.shard_index(t([[1]], "int64"), index_num=2, nshards=0, shard_id=0)
        must_raise("shard_index with nshards=0")
    """),
    R("EDGE-increment-non-scalar", "increment", """
        out = paddle.increment(t(np.ones([2]), "float32"), 1.0)
        must_raise("increment of a 2-element tensor")
    """),
    R("EDGE-stack-empty-list", "stack", """
        out = paddle.stack([])
        must_raise("stack of an empty list")
    """),
]
BY_ID = {c.id: c for c in CASES}
assert len(BY_ID) == len(CASES), "duplicate replay ids"


# --- the child interpreter ----------------------------------------------------------------------------
# Reads one JSON replay per stdin line, prints START before running it and RESULT after; anything the
# library prints is ignored (only TAG lines count).
TAG = "@@replay@@"
_CHILD = r'''
import faulthandler, importlib, json, os, resource, shutil, sys, tempfile
faulthandler.enable()
# A replay that asks for an absurd allocation gets a MemoryError/RuntimeError instead of the OOM killer.
resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))
import numpy as np
paddle = importlib.import_module(sys.argv[1])
TAG = "@@replay@@"


class Mismatch(Exception):
    """The call returned, but not what NumPy says (or a payload ran): a silently wrong result."""


def api(path):
    obj, name = paddle, paddle.__name__
    for part in path.split("."):
        name = name + "." + part
        try:
            obj = getattr(obj, part)
        except AttributeError:
            obj = importlib.import_module(name)
    return obj


def t(data, dtype=None):
    return paddle.to_tensor(np.asarray(data, dtype=dtype))


def check(out, ref, dtype=None):
    ref = np.asarray(ref)
    shape = list(getattr(out, "shape", np.shape(out)))
    if shape != list(ref.shape):
        raise Mismatch(f"returned shape {shape}, expected {list(ref.shape)}")
    try:
        got = out.numpy() if hasattr(out, "numpy") else np.asarray(out)
    except Exception as e:
        raise Mismatch(f"the returned tensor cannot be read back: {type(e).__name__}: {e}")
    if got.shape != ref.shape:
        raise Mismatch(f"returned data of shape {list(got.shape)}, expected {list(ref.shape)}")
    if dtype is not None and str(got.dtype) != dtype:
        raise Mismatch(f"returned dtype {got.dtype}, expected {dtype}")
    try:
        np.testing.assert_allclose(got, ref, rtol=1e-6, atol=0, equal_nan=True)
    except AssertionError as e:
        raise Mismatch("wrong values: " + str(e).strip()[:400])


def must_raise(what):
    raise Mismatch(f"returned a result for {what}; the only correct outcome is an exception")


for line in sys.stdin:
    case = json.loads(line)
    print(TAG, "START", case["id"], flush=True)
    tmp = tempfile.mkdtemp(prefix="replay-")
    mark = os.path.join(tmp, "payload-ran")
    ns = dict(paddle=paddle, np=np, os=os, t=t, check=check, must_raise=must_raise, api=api,
              TMP=tmp, MARK=mark, I32_MIN=-2 ** 31, I32_MAX=2 ** 31 - 1)
    try:
        exec(compile(case["code"], case["id"], "exec"), ns)
        res = {"outcome": "ok"}
    except Mismatch as e:
        res = {"outcome": "wrong", "msg": str(e)}
    except BaseException as e:
        msg = str(e).strip()
        res = {"outcome": "raised", "exc": type(e).__name__, "mro": [c.__name__ for c in type(e).__mro__],
               "msg": msg if len(msg) < 600 else msg[:200] + " ... " + msg[-400:]}
    if os.path.exists(mark):
        res = {"outcome": "wrong", "msg": "the injected payload ran (it created " + mark + ")"}
    shutil.rmtree(tmp, ignore_errors=True)
    print(TAG, "RESULT", json.dumps(dict(res, id=case["id"])), flush=True)
'''


def _describe_exit(rc):
    if rc is not None and rc < 0:
        try:
            return f"killed by {signal.Signals(-rc).name}"
        except ValueError:
            return f"killed by signal {-rc}"
    return f"exited with status {rc}"


def run_replays(python, module, cases):
    """Run ``cases`` in ``python -c _CHILD module``; restart after a crash or hang. Returns {id: result}."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               GLOG_minloglevel="3", FLAGS_call_stack_level="0", PYTHONFAULTHANDLER="1")
    results, pending = {}, [c.id for c in cases]
    while pending:
        with tempfile.TemporaryFile("w+") as stdin, tempfile.TemporaryFile("w+") as stderr:
            for cid in pending:
                stdin.write(json.dumps({"id": cid, "code": BY_ID[cid].code}) + "\n")
            stdin.seek(0)
            proc = subprocess.Popen([python, "-c", _CHILD, module], stdin=stdin, stdout=subprocess.PIPE,
                                    stderr=stderr, cwd=ROOT, env=env, text=True)
            lines = queue.Queue()
            threading.Thread(target=lambda: ([lines.put(ln) for ln in proc.stdout], lines.put(None)),
                             daemon=True).start()
            current, timeout, failure = None, IMPORT_TIMEOUT, None
            while True:
                try:
                    line = lines.get(timeout=timeout)
                except queue.Empty:
                    proc.kill()
                    failure = f"hung: no result within {timeout} s (killed)"
                    break
                if line is None:
                    proc.wait()
                    failure = _describe_exit(proc.returncode)
                    break
                if TAG not in line:  # library output; a C-level print may also share our line
                    continue
                _, kind, payload = line[line.index(TAG):].rstrip("\n").split(" ", 2)
                if kind == "START":
                    current, timeout = payload, CASE_TIMEOUT
                else:
                    res = json.loads(payload)
                    results[res["id"]] = res
                    pending.remove(res["id"])
                    current = None
            proc.wait()
            stderr.seek(0)
            tail = stderr.read()[-3000:]
        if not pending:
            break
        if current is None:  # died before any replay started: the import itself failed
            for cid in pending:
                results[cid] = {"outcome": "harness", "msg": f"{module} failed to start ({failure}):\n{tail}"}
            break
        results[current] = {"outcome": "crash", "msg": f"{failure}\n--- child stderr (tail) ---\n{tail}"}
        pending.remove(current)
    return results


# --- which replays can run here ------------------------------------------------------------------------
def _has(path):
    obj, name = torchpaddle, "torchpaddle"
    for part in path.split("."):
        name += "." + part
        if hasattr(obj, part):
            obj = getattr(obj, part)
            continue
        try:
            obj = importlib.import_module(name)
        except ImportError:
            return False
    return True


AVAILABLE = {c.id: _has(c.api) for c in CASES}


def _params():
    for c in CASES:
        marks = []
        if c.later is not None:
            marks.append(pytest.mark.skipif(not AVAILABLE[c.id],
                                            reason=f"paddle.{c.api} arrives with the {c.later}"))
        yield pytest.param(c, id=c.id, marks=marks)


def _require(case):
    if not AVAILABLE[case.id]:
        pytest.fail(f"paddle.{case.api} is missing from torchpaddle (a `002:paddle` API): cannot replay")


@pytest.fixture(scope="session")
def ours():
    return run_replays(sys.executable, "torchpaddle", [c for c in CASES if AVAILABLE[c.id]])


@pytest.fixture(scope="session")
def reference():
    if not paddle_ref.available():
        pytest.skip(f"reference PaddlePaddle venv not found at {paddle_ref.PYTHON} (set PADDLE_REF_PYTHON)")
    return run_replays(paddle_ref.PYTHON, "paddle", [c for c in CASES if c.conformance])


def _fmt(res):
    if res["outcome"] == "raised":
        return f"raised {res['exc']}: {res['msg'][:300]}"
    if res["outcome"] == "ok":
        return "returned a correct result"
    return f"{res['outcome']}: {res['msg']}"


# --- tests -----------------------------------------------------------------------------------------------
@pytest.mark.multiprocess
@pytest.mark.parametrize("case", list(_params()))
def test_replay(case, ours):
    """The replay raises a clear exception or returns the NumPy-correct result; it never crashes or hangs,
    and an injected payload never runs."""
    _require(case)
    res = ours[case.id]
    where = f"{case.id} (paddle.{case.api})"
    assert res["outcome"] in ("ok", "raised"), f"{where}: {_fmt(res)}"
    if res["outcome"] == "raised" and not case.inject:
        assert set(res["mro"]) & set(CLEAR_ERRORS), \
            f"{where}: raised {res['exc']} (not one of {', '.join(CLEAR_ERRORS)}): {res['msg'][:300]}"


@pytest.mark.conformance
@pytest.mark.multiprocess
@pytest.mark.parametrize("case", [p for p in _params() if p.values[0].conformance])
def test_replay_matches_paddle(case, ours, reference):
    """Where Paddle 3.3.1 handles the replay soundly, torchpaddle raises the same exception type (or returns
    a result too)."""
    _require(case)
    theirs, mine = reference[case.id], ours[case.id]
    if theirs["outcome"] in ("crash", "wrong", "harness"):
        pytest.skip(f"Paddle 3.3.1 does not handle this soundly: {_fmt(theirs)[:300]}")
    if mine["outcome"] not in ("ok", "raised"):
        pytest.skip("torchpaddle fails the replay itself (see test_replay)")
    where = f"{case.id} (paddle.{case.api})"
    if theirs["outcome"] == "ok":
        assert mine["outcome"] == "ok", f"{where}: Paddle returns a result, we {_fmt(mine)}"
    else:
        assert mine["outcome"] == "raised", f"{where}: Paddle raises {theirs['exc']} ({theirs['msg'][:200]}), " \
                                            f"we return a result"
        assert theirs["exc"] in mine["mro"], \
            f"{where}: Paddle raises {theirs['exc']} ({theirs['msg'][:200]}), we raise {mine['exc']}: " \
            f"{mine['msg'][:200]}"

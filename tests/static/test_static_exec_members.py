"""The extra:static-exec inventory rows beyond CompiledProgram: Executor.run/close and the Program members
Paddle 2.x documents, each checked for its behaviour."""
import numpy as np
import pytest
import torch

import torchpaddle as paddle
import paddle_ref
from tests.static import variable_cases
from tests.static.data_parallel_common import B, W, X, Y, linear_grads, linear_program, start, values_of


def test_executor_run_and_close(static_mode):
    main, startup, loss, names, _ = linear_program()
    exe = start(startup, paddle.static.global_scope(), {names[0]: W, names[1]: B})
    out, = exe.run(main, feed={"x": X, "y": Y}, fetch_list=[loss])
    np.testing.assert_allclose(out, linear_grads(X, Y, W, B)[0], rtol=1e-5)
    out, = exe.run(main, feed={"x": X, "y": Y}, fetch_list=[loss], return_numpy=False)
    assert isinstance(out, paddle.Tensor)
    exe.close()
    with pytest.raises(RuntimeError, match="closed"):
        exe.run(main, feed={"x": X, "y": Y}, fetch_list=[loss])


def test_program_blocks(static_mode):
    main, _ = static_mode
    assert main.num_blocks == 1 and main.global_block() is main.block(0) is main.current_block()
    sub = main._create_block()
    assert main.num_blocks == 2 and main.current_block() is sub is main.block(1)
    assert sub.parent_idx == 0
    main._rollback()
    assert main.current_block() is main.global_block()


def test_program_vars_parameters_and_text(static_mode):
    main, startup, loss, names, _ = linear_program()
    assert names == ["fc_0.w_0", "fc_0.b_0"]
    assert [p.name for p in main.all_parameters()] == names
    var_names = {v.name for v in main.list_vars()}
    assert {"x", "y", loss.name, names[0] + "@GRAD"} <= var_names
    text = main.to_string(True)
    assert text == str(main)
    for piece in ("mul", "elementwise_add", "reduce_mean", "sgd", names[0]):
        assert piece in text
    assert "persistable" in main.to_string(True, with_details=True)


def test_program_random_seed_clone_and_parse(static_mode):
    main, startup, loss, names, test = linear_program(test_clone=True)
    main.random_seed = 42
    assert main.random_seed == 42 and main.clone().random_seed == 42
    with pytest.raises(ValueError, match="random_seed must be an int"):
        main.random_seed = "42"
    assert not any(op.type.endswith("_grad") or op.type == "sgd" for op in test.global_block().ops)
    again = paddle.static.Program.parse_from_string(test.desc_bytes())
    assert [op.type for op in again.global_block().ops] == [op.type for op in test.global_block().ops]


def test_program_state_dict_round_trip(static_mode):
    main, startup, loss, names, _ = linear_program(paddle.optimizer.Adam(0.1))
    exe = start(startup, paddle.static.global_scope(), {names[0]: W, names[1]: B})
    exe.run(main, feed={"x": X, "y": Y}, fetch_list=[loss])
    params = main.state_dict("param")
    assert sorted(params) == sorted(names)
    opt = main.state_dict("opt")
    assert opt and not set(opt) & set(names) and any("moment1" in k for k in opt)
    saved = {k: v.numpy() for k, v in main.state_dict("all").items()}
    exe.run(main, feed={"x": X, "y": Y}, fetch_list=[loss])
    main.set_state_dict(saved)
    now = values_of(paddle.static.global_scope(), list(saved))
    for k in saved:
        np.testing.assert_array_equal(now[k], saved[k])
    with pytest.raises(ValueError, match="mode must be"):
        main.state_dict("weights")


def test_executor_run_fetch_list_and_feed_forms(static_mode):
    # as Paddle 3.3.1 (compared with it in test_conformance_static.py: fetch_list_forms, feed_forms)
    main, startup, loss, names, _ = linear_program(optimizer=False)
    exe = start(startup, paddle.static.global_scope(), {names[0]: W, names[1]: B})
    want = linear_grads(X, Y, W, B)[0]
    feed = {"x": X, "y": Y}
    for fetch in (loss, loss.name, (loss,), [[loss]], [(loss, loss.name)]):
        for out in exe.run(main, feed=feed, fetch_list=fetch):
            np.testing.assert_allclose(out, want, rtol=1e-5)
    for each in ([feed], (feed,)):
        np.testing.assert_allclose(exe.run(main, feed=each, fetch_list=[loss])[0], want, rtol=1e-5)
    for program in (main, paddle.static.CompiledProgram(main)):
        with pytest.warns(UserWarning, match="'bogus' is not in the program"):
            out, = exe.run(program, feed=[dict(feed, bogus=X)], fetch_list=[loss])
        np.testing.assert_allclose(out, want, rtol=1e-5)
    with pytest.raises(AssertionError, match="one dict per place"):
        exe.run(main, feed=[feed, feed], fetch_list=[loss])
    with pytest.raises(TypeError, match="feed must be a dict"):
        exe.run(main, feed=[X], fetch_list=[loss])
    with pytest.raises(AssertionError, match="fetch_list must be a list or tuple"):
        exe.run(main, feed=feed, fetch_list={loss})
    with pytest.raises(TypeError, match=r"fetch_list\[1\] must be a Variable or a name \(str\), got int"):
        exe.run(main, feed=feed, fetch_list=[loss, [loss, 1]])


def test_variable_cpu_shape_place_and_value_errors(static_mode):
    main, startup = static_mode
    x = paddle.static.data("x", [-1, 4], "float32")
    y = x.cpu()
    assert [(op.type, op.attr("dst_place_type")) for op in main.global_block().ops] == [("memcpy", 0)]
    assert isinstance(y.shape, paddle.framework.tensor.Size)
    assert y.shape == (-1, 4) and y.shape == [-1, 4] and (-1, 4) == y.shape and y.shape != (4, -1)
    assert paddle.ones([2, 3]).shape == (2, 3)
    with pytest.warns(UserWarning, match="has no place"):
        assert x.place is None
    exe = paddle.static.Executor(paddle.CPUPlace())
    out, = exe.run(main, feed={"x": X}, fetch_list=[y])
    np.testing.assert_array_equal(out, X)
    with pytest.raises(AssertionError, match="no value"):
        x.numpy()
    with pytest.raises(TypeError, match="no value"):
        int(x)
    with pytest.raises(TypeError, match="first dimension is unknown"):
        len(x)
    with pytest.warns(UserWarning, match="device_id is not supported"):
        on_gpu = x.cuda(0)
    assert main.global_block().ops[-1].attr("dst_place_type") == 1 and on_gpu.shape == (-1, 4)
    if not torch.cuda.is_available():
        with pytest.raises(NotImplementedError, match="dst_place_type=1"):
            exe.run(main, feed={"x": X}, fetch_list=[on_gpu])


@pytest.mark.conformance
def test_variable_members_match_real_paddle():
    paddle_ref.compare_tree(variable_cases.run(paddle), paddle_ref.results("tests.static.variable_cases"),
                            "variable", _array_leaf)


def _array_leaf(ours, theirs, where):
    if not isinstance(theirs, np.ndarray):
        return False
    assert ours.dtype == theirs.dtype, where
    np.testing.assert_array_equal(ours, theirs, err_msg=where)
    return True

"""Program / Block / Operator / Variable: building, querying, printing, cloning, guards."""
import numpy as np
import pytest

import torchpaddle as paddle


def test_ops_and_vars_are_recorded_with_inferred_shapes(static_mode):
    main, startup = static_mode
    x = paddle.static.data("x", [None, 3, 8, 8], "float32")
    conv = paddle.nn.Conv2D(3, 4, 3, padding=1)
    y = paddle.flatten(paddle.nn.functional.relu(conv(x)), 1)
    assert y.shape == [-1, 256] and y.dtype == paddle.float32
    types = [op.type for op in main.global_block().ops]
    assert types[:3] == ["conv2d", "relu", "flatten_contiguous_range"] or "conv2d" in types
    assert sorted(p.name for p in main.all_parameters()) == ["conv2d_0.b_0", "conv2d_0.w_0"]
    assert [op.type for op in startup.global_block().ops] == ["gaussian_random", "fill_constant"]  # Paddle: Normal(0, sqrt(2/fan_in))
    conv_op = next(op for op in main.global_block().ops if op.type == "conv2d")
    assert conv_op.input("Input") == ["x"] and conv_op.input("Filter") == ["conv2d_0.w_0"]
    assert conv_op.attr("paddings") == [1, 1] and conv_op.has_attr("op_role")
    with pytest.raises(ValueError):
        conv_op.attr("no_such_attr")


def test_variable_properties_and_stop_gradient_rule(static_mode):
    x = paddle.static.data("x", [2, 3], "float32")
    w = paddle.static.create_parameter([3, 4], "float32")
    y = paddle.matmul(x, w)
    z = x * 2.0
    assert x.stop_gradient and not w.stop_gradient and not y.stop_gradient and z.stop_gradient
    assert (x.ndim, x.size, y.shape, w.persistable, x.persistable) == (2, 6, [2, 4], True, False)
    assert x.is_data and isinstance(w, paddle.static.Parameter) and w.trainable
    with pytest.raises(AssertionError, match="no value"):   # AssertionError, as Paddle
        x.numpy()
    with pytest.raises(TypeError, match="cond"):
        bool(x > 0)


def test_printing_in_paddles_readable_form(static_mode):
    main, _ = static_mode
    x = paddle.static.data("x", [-1, 4], "float32")
    paddle.mean(x)
    text = str(main)
    assert text.startswith("{ // block_idx:0  parent_idx:-1")
    assert "var x : DENSE_TENSOR.shape(-1, 4).dtype(float32).stop_gradient(True)" in text
    assert "= reduce_mean(inputs={X=['x']}" in text


def test_program_guard_and_default_programs(static_mode):
    main, startup = static_mode
    other = paddle.static.Program()
    with paddle.static.program_guard(other):
        paddle.static.data("a", [1], "float32")
        assert paddle.static.default_main_program() is other
    assert paddle.static.default_main_program() is main
    assert "a" in other.global_block().vars and "a" not in main.global_block().vars
    with pytest.raises(TypeError):
        with paddle.static.program_guard("not a program"):
            pass


def test_name_scope_and_device_guard_tag_ops(static_mode):
    main, _ = static_mode
    x = paddle.static.data("x", [2], "float32")
    with paddle.static.name_scope("block1"), paddle.static.device_guard("cpu"):
        paddle.exp(x)
    op = main.global_block().ops[-1]
    assert op.attr("op_namescope") == "/block1/" and op.attr("op_device") == "cpu"
    with pytest.raises(ValueError):
        with paddle.static.device_guard("tpu"):
            pass


def test_clone_for_test_drops_backward_and_sets_is_test(static_mode):
    main, startup = static_mode
    x = paddle.static.data("x", [-1, 4], "float32")
    out = paddle.nn.functional.dropout(paddle.nn.Linear(4, 2)(x), 0.5)
    loss = paddle.mean(out)
    test_prog = main.clone(for_test=True)
    paddle.optimizer.SGD(0.1).minimize(loss)
    assert len(main.global_block().ops) > len(test_prog.global_block().ops)
    dropout = [op for op in test_prog.global_block().ops if op.type == "dropout"]
    assert dropout and dropout[0].attr("is_test") is True
    assert not any(op.type.endswith("_grad") for op in test_prog.global_block().ops)
    again = main.clone(for_test=True)
    assert not any(op.type.endswith("_grad") or op.type == "sgd" for op in again.global_block().ops)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    data = np.random.rand(5, 4).astype("float32")
    a, = exe.run(test_prog, feed={"x": data}, fetch_list=[out])
    b, = exe.run(test_prog, feed={"x": data}, fetch_list=[out])
    np.testing.assert_array_equal(a, b)   # dropout is the identity in a test program


def test_getitem_on_variables(static_mode):
    x = paddle.static.data("x", [4, 5], "float32")
    parts = [x[1], x[:, 2:4], x[::-1], x[None, 0], x[..., -1]]
    assert [p.shape for p in parts] == [[5], [4, 2], [4, 5], [1, 5], [4]]
    exe = paddle.static.Executor(paddle.CPUPlace())
    data = np.arange(20, dtype="float32").reshape(4, 5)
    got = exe.run(feed={"x": data}, fetch_list=parts)
    for g, want in zip(got, [data[1], data[:, 2:4], data[::-1], data[None, 0], data[..., -1]]):
        np.testing.assert_array_equal(g, want)
    with pytest.raises(IndexError):
        x[4]


def test_create_global_var_and_program_state(static_mode):
    main, startup = static_mode
    counter = paddle.static.create_global_var([1], 3.0, "float32", persistable=True, name="counter")
    bumped = paddle.increment(counter)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    assert exe.run(fetch_list=[bumped])[0].tolist() == [4.0]
    state = main.state_dict()
    assert "counter" in state
    main.set_state_dict({"counter": np.array([10.0], "float32")})
    assert exe.run(fetch_list=[bumped])[0].tolist() == [11.0]
    with pytest.raises(ValueError):
        main.state_dict(mode="weights")


def test_random_seed_pins_random_ops(static_mode):
    main, startup = static_mode
    main.random_seed = 5
    with pytest.raises(ValueError):
        main.random_seed = "5"
    x = paddle.static.data("x", [4, 4], "float32")
    a = paddle.nn.functional.dropout(x, 0.5)
    op = main.global_block().ops[-1]
    assert op.attr("seed") == 5 and op.attr("fix_seed") is True
    exe = paddle.static.Executor(paddle.CPUPlace())
    ones = np.ones([4, 4], "float32")
    first, = exe.run(feed={"x": ones}, fetch_list=[a])
    second, = exe.run(feed={"x": ones}, fetch_list=[a])
    np.testing.assert_array_equal(first, second)   # a pinned seed repeats the mask
    assert 0 < (first == 0).sum() < 16

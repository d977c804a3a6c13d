"""paddle.vision.ops vs real PaddlePaddle 3.3.1 (cases in vision_ops_cases.py: outputs, gradients, bad input),
plus what Paddle cannot check here: static-mode programs, JPEG decoding (GPU-only in Paddle; compared with
Pillow), hand-worked values and the layers' plumbing."""
import io

import numpy as np
import pytest

import paddle_ref
import torchpaddle as paddle
from tests.nn.layer_case_tools import compare
from tests.vision import vision_ops_cases as cases
from torchpaddle.vision import ops


def _compare(ours, theirs, where):
    compare(ours, theirs, where, rtol=1e-5, atol=1e-5)


reference, ours, test_matches_real_paddle = paddle_ref.case_table(
    "tests.vision.vision_ops_cases", cases.CASES, lambda: cases.run_all(paddle), _compare)


def test_exports():
    for name in ops.__all__:
        assert callable(getattr(paddle.vision.ops, name)), name
    assert ops.ConvNormActivation is paddle.vision.models._utils.ConvNormActivation


def test_nms_hand_worked():
    boxes = paddle.to_tensor([[0, 0, 10, 10], [1, 1, 11, 11], [0, 0, 10, 10.5], [20, 20, 30, 30], [0, 0, 5, 10.]])
    # IoU(0, 1) = 81 / 119 = 0.6807, IoU(0, 2) = 100 / 105, IoU(0, 4) = 50 / 100: kept when not above
    assert ops.nms(boxes, 0.5).tolist() == [0, 3, 4]
    assert ops.nms(boxes, 0.69).tolist() == [0, 1, 3, 4]
    scores = paddle.to_tensor([0.1, 0.9, 0.5, 0.3, 0.2])
    assert ops.nms(boxes, 0.5, scores=scores).tolist() == [1, 3, 4]
    assert ops.nms(paddle.zeros([0, 4]), 0.5).shape == [0]


def test_roi_align_hand_worked():
    # a linear ramp is reproduced exactly by bilinear sampling: each bin averages to its centre's value
    x = paddle.to_tensor(np.arange(64, dtype="float32").reshape(1, 1, 8, 8))
    box = paddle.to_tensor([[1.0, 1.0, 5.0, 5.0]])
    out = ops.roi_align(x, box, paddle.to_tensor([1], dtype="int32"), 2, aligned=False, sampling_ratio=2)
    centres = np.array([[2.0, 4.0]])   # bin centres along each axis
    want = centres.T * 8 + centres
    np.testing.assert_allclose(out.numpy()[0, 0], want, rtol=1e-6)


def test_roi_align_gradient_flows_to_x_only():
    x = paddle.randn([1, 2, 6, 6])
    x.stop_gradient = False
    boxes = paddle.to_tensor([[0.5, 0.5, 4.0, 5.0]], stop_gradient=False)
    out = ops.RoIAlign(3)(x, boxes, paddle.to_tensor([1], dtype="int32"))
    out.sum().backward()
    assert x.grad is not None and float(x.grad.abs().sum()) > 0
    assert boxes.grad is None or float(boxes.grad.abs().sum()) == 0


def test_deform_conv2d_zero_offset_is_conv2d():
    rng = np.random.default_rng(3)
    x = paddle.to_tensor(rng.normal(size=(2, 4, 7, 7)).astype("float64"))
    w = paddle.to_tensor(rng.normal(size=(6, 2, 3, 3)).astype("float64"))
    b = paddle.to_tensor(rng.normal(size=(6,)).astype("float64"))
    offset = paddle.zeros([2, 2 * 9, 4, 4], dtype="float64")
    mask = paddle.ones([2, 9, 4, 4], dtype="float64")
    want = paddle.nn.functional.conv2d(x, w, b, stride=2, padding=1, groups=2).numpy()
    got = ops.deform_conv2d(x, offset, w, b, stride=2, padding=1, groups=2, mask=mask)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10, atol=1e-12)
    layer = ops.DeformConv2D(4, 6, 3, stride=2, padding=1, groups=2)
    assert [list(p.shape) for p in layer.parameters()] == [[6, 2, 3, 3], [6]]
    assert layer(paddle.randn([1, 4, 7, 7]), paddle.zeros([1, 18, 4, 4])).shape == [1, 6, 4, 4]


def test_bad_shapes_name_the_slot():
    with pytest.raises(ValueError, match="Offset must have shape"):
        ops.deform_conv2d(paddle.zeros([1, 4, 6, 6]), paddle.zeros([1, 9, 4, 4]), paddle.zeros([4, 4, 3, 3]))
    with pytest.raises(ValueError, match="add up to the 2 RoIs"):
        ops.roi_align(paddle.zeros([1, 4, 6, 6]), paddle.zeros([2, 4]), paddle.to_tensor([3], dtype="int32"), 2)
    with pytest.raises(ValueError, match="channels"):
        ops.yolo_box(paddle.zeros([1, 8, 4, 4]), paddle.to_tensor([[32, 32]], dtype="int32"), [10, 13], 2, 0.1, 8)
    with pytest.raises(ValueError, match="Scores must have shape"):
        ops.matrix_nms(paddle.zeros([1, 5, 4]), paddle.zeros([1, 2, 4]), 0.1, 0.1, 5, 5)
    with pytest.raises(ValueError, match="decode_center_size needs TargetBox"):
        ops.box_coder(paddle.zeros([3, 4]), [0.1, 0.1, 0.2, 0.2], paddle.zeros([3, 4]), "decode_center_size")


def _jpeg(array):
    from PIL import Image
    buffer = io.BytesIO()
    Image.fromarray(array).save(buffer, format="JPEG", quality=95)
    return buffer.getvalue()


def test_read_file_and_decode_jpeg_match_pillow(tmp_path):
    from PIL import Image
    rng = np.random.default_rng(0)
    rgb = (rng.random((9, 11, 3)) * 255).astype("uint8")
    path = tmp_path / "image.jpg"
    path.write_bytes(_jpeg(rgb))
    data = ops.read_file(str(path))
    assert data.dtype == paddle.uint8 and data.numpy().tobytes() == path.read_bytes()
    decoded = Image.open(str(path))
    want = np.asarray(decoded.convert("RGB")).transpose(2, 0, 1)
    np.testing.assert_array_equal(ops.decode_jpeg(data).numpy(), want)
    np.testing.assert_array_equal(ops.decode_jpeg(data, mode="rgb").numpy(), want)
    gray = ops.decode_jpeg(data, mode="gray")
    np.testing.assert_array_equal(gray.numpy()[0], np.asarray(decoded.convert("L")))
    gray_file = tmp_path / "gray.jpg"
    gray_file.write_bytes(_jpeg(rgb[..., 0]))
    assert ops.decode_jpeg(ops.read_file(str(gray_file))).shape == [1, 9, 11]
    with pytest.raises(ValueError, match="mode"):
        ops.decode_jpeg(data, mode="bgr")
    with pytest.raises(ValueError, match="decodable JPEG"):
        ops.decode_jpeg(paddle.to_tensor(np.arange(20, dtype="uint8")))
    with pytest.raises(FileNotFoundError):
        ops.read_file(str(tmp_path / "missing.jpg"))


def test_static_programs_match_eager(static_mode):
    rng = np.random.default_rng(1)
    x_np = rng.uniform(-1, 1, (2, 3, 8, 8)).astype("float32")
    boxes_np = np.array([[0, 0, 4, 4], [1, 1, 6, 5], [2, 2, 7, 7]], "float32")
    num_np = np.array([1, 2], "int32")
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [2, 3, 8, 8], "float32")
        x.stop_gradient = False
        boxes = paddle.static.data("boxes", [-1, 4], "float32")
        num = paddle.static.data("num", [2], "int32")
        aligned = ops.roi_align(x, boxes, num, 2)
        keep = ops.nms(boxes, 0.3)
        multi, restore, per_level = ops.distribute_fpn_proposals(boxes, 2, 4, 3, 4, rois_num=num)
        paddle.static.append_backward(aligned.sum())
    assert aligned.shape == [-1, 3, 2, 2] and keep.shape == [-1]
    assert [list(m.shape) for m in multi] == [[-1, 4]] * 3 and list(restore.shape) == [-1, 1]
    assert "roi_align_grad" in [op.type for op in main.global_block().ops]
    exe = paddle.static.Executor()
    exe.run(startup)
    got = exe.run(main, feed={"x": x_np, "boxes": boxes_np, "num": num_np},
                  fetch_list=[aligned, keep, restore, "x@GRAD"] + multi)
    paddle.disable_static()
    try:
        xt = paddle.to_tensor(x_np, stop_gradient=False)
        want = ops.roi_align(xt, paddle.to_tensor(boxes_np), paddle.to_tensor(num_np), 2)
        want.sum().backward()
        want_multi, want_restore, _ = ops.distribute_fpn_proposals(paddle.to_tensor(boxes_np), 2, 4, 3, 4,
                                                                   rois_num=paddle.to_tensor(num_np))
        np.testing.assert_allclose(got[0], want.numpy(), rtol=1e-6)
        np.testing.assert_array_equal(got[1], ops.nms(paddle.to_tensor(boxes_np), 0.3).numpy())
        np.testing.assert_array_equal(got[2], want_restore.numpy())
        np.testing.assert_allclose(got[3], xt.grad.numpy(), rtol=1e-6)
        for a, b in zip(got[4:], want_multi):
            np.testing.assert_array_equal(a, b.numpy())
    finally:
        paddle.enable_static()


def test_static_roi_ops_take_an_unknown_batch(static_mode):
    # a -1 batch and RoI count: the output shape comes from the dims, and the run matches eager
    rng = np.random.default_rng(2)
    x_np = rng.uniform(-1, 1, (2, 8, 8, 8)).astype("float32")
    boxes_np = np.array([[0, 0, 4, 4], [1, 1, 6, 5], [2, 0, 7, 7]], "float32")
    num_np = np.array([1, 2], "int32")
    apis = [ops.roi_align, ops.roi_pool, ops.psroi_pool]
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        x = paddle.static.data("x", [-1, 8, 8, 8], "float32")
        boxes = paddle.static.data("boxes", [-1, 4], "float32")
        num = paddle.static.data("num", [-1], "int32")
        outs = [api(x, boxes, num, 2) for api in apis]
        with pytest.raises(ValueError, match="output channels must be greater than 1"):
            ops.psroi_pool(x[:, :4], boxes, num, 2)
    assert [list(o.shape) for o in outs] == [[-1, 8, 2, 2], [-1, 8, 2, 2], [-1, 2, 2, 2]]
    got = paddle.static.Executor().run(main, feed={"x": x_np, "boxes": boxes_np, "num": num_np}, fetch_list=outs)
    paddle.disable_static()
    try:
        for api, value in zip(apis, got):
            want = api(paddle.to_tensor(x_np), paddle.to_tensor(boxes_np), paddle.to_tensor(num_np), 2)
            assert value.shape == (3,) + tuple(want.shape[1:])
            np.testing.assert_allclose(value, want.numpy(), rtol=1e-6, err_msg=api.__name__)
    finally:
        paddle.enable_static()


def test_large_roi_counts_are_chunked(monkeypatch):
    from torchpaddle.ops.defs import roi
    rng = np.random.default_rng(2)
    x = paddle.to_tensor(rng.normal(size=(2, 3, 12, 12)).astype("float32"))
    boxes = paddle.to_tensor(cases._boxes(rng, 9, 12, 12).astype("float32"))
    num = paddle.to_tensor([4, 5], dtype="int32")
    whole = [ops.roi_align(x, boxes, num, 3).numpy(), ops.roi_pool(x, boxes, num, 3).numpy()]
    monkeypatch.setattr(roi, "_CHUNK_ELEMENTS", 64)   # one RoI per chunk
    # exact on the CPU; a GPU's batched products round by batch size (a few ulps)
    tol = 0 if paddle.get_device() == "cpu" else 1e-6
    np.testing.assert_allclose(ops.roi_align(x, boxes, num, 3).numpy(), whole[0], rtol=tol, atol=tol)
    np.testing.assert_array_equal(ops.roi_pool(x, boxes, num, 3).numpy(), whole[1])


def test_roi_pool_argmax_points_at_the_maximum():
    rng = np.random.default_rng(4)
    x_np = rng.normal(size=(2, 3, 9, 11)).astype("float32")
    boxes = cases._boxes(rng, 6, 11, 9, spill=0.3).astype("float32")
    batch = np.array([0, 0, 0, 1, 1, 1])
    out, arg = paddle.ops.roi_pool(paddle.to_tensor(x_np), paddle.to_tensor(boxes),
                                   paddle.to_tensor([3, 3], dtype="int32"), pooled_height=3, pooled_width=4,
                                   spatial_scale=1.0)
    out, arg = out.numpy(), arg.numpy()
    assert arg.dtype == np.int64
    for r, c, i, j in np.ndindex(*out.shape):
        if arg[r, c, i, j] < 0:
            assert out[r, c, i, j] == 0
        else:
            assert x_np[batch[r], c].reshape(-1)[arg[r, c, i, j]] == out[r, c, i, j]
    assert (arg >= 0).any() and (arg == -1).any()


def test_static_gradients_of_deform_conv_and_yolo_loss(static_mode):
    rng = np.random.default_rng(5)
    feed = {"x": rng.normal(size=(2, 4, 6, 6)).astype("float32"),
            "off": rng.normal(size=(2, 18, 6, 6)).astype("float32"),
            "head": rng.normal(size=(2, 27, 4, 4)).astype("float32"),
            "gt": rng.uniform(0.1, 0.5, (2, 3, 4)).astype("float32"),
            "label": rng.integers(0, 4, (2, 3)).astype("int32")}
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [2, 4, 6, 6], "float32")
        head = paddle.static.data("head", [2, 27, 4, 4], "float32")
        x.stop_gradient = head.stop_gradient = False
        weight = paddle.static.create_parameter([5, 4, 3, 3], "float32")
        out = ops.deform_conv2d(x, paddle.static.data("off", [2, 18, 6, 6], "float32"), weight, padding=1)
        loss = ops.yolo_loss(head, paddle.static.data("gt", [2, 3, 4], "float32"),
                             paddle.static.data("label", [2, 3], "int32"), [10, 13, 16, 30, 33, 23], [0, 1, 2], 4,
                             0.7, 8)
        paddle.static.append_backward(out.sum() + loss.sum())
    exe = paddle.static.Executor()
    exe.run(startup)
    w_np = np.array(paddle.static.global_scope().find_var(weight.name).get_tensor())
    got = exe.run(main, feed=feed, fetch_list=[out, loss, "x@GRAD", "head@GRAD"])
    paddle.disable_static()
    try:
        xt = paddle.to_tensor(feed["x"], stop_gradient=False)
        ht = paddle.to_tensor(feed["head"], stop_gradient=False)
        eo = ops.deform_conv2d(xt, paddle.to_tensor(feed["off"]), paddle.to_tensor(w_np), padding=1)
        el = ops.yolo_loss(ht, paddle.to_tensor(feed["gt"]), paddle.to_tensor(feed["label"]),
                           [10, 13, 16, 30, 33, 23], [0, 1, 2], 4, 0.7, 8)
        (eo.sum() + el.sum()).backward()
        for a, b in zip(got, [eo, el, xt.grad, ht.grad]):
            np.testing.assert_allclose(a, b.numpy(), rtol=1e-5, atol=1e-6)
    finally:
        paddle.enable_static()

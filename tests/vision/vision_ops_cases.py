"""paddle.vision.ops cases, run on real PaddlePaddle 3.3.1 (``python -m tests.vision.vision_ops_cases OUT.pkl``)
and on torchpaddle by tests/vision/test_vision_ops.py: outputs on seeded inputs, gradients where Paddle has
them (roi_align, roi_pool, psroi_pool, deform_conv2d, yolo_loss) and the exception types of bad inputs."""
import functools
import sys

import numpy as np

from tests.nn.layer_case_tools import catch, dump, grad_of, record, stable_seed


def _rng(name):
    return np.random.default_rng(stable_seed(name))


def _boxes(rng, count, width, height, min_size=1.0, spill=0.0):
    """Corner boxes inside (or, with ``spill``, partly outside) a width x height image."""
    x0 = rng.uniform(-spill * width, width * 0.8, count)
    y0 = rng.uniform(-spill * height, height * 0.8, count)
    w = rng.uniform(min_size, width * 0.6, count)
    h = rng.uniform(min_size, height * 0.6, count)
    return np.stack([x0, y0, x0 + w, y0 + h], axis=1)


def _weighted_grads(paddle, out, inputs, rng):
    """Backward of sum(out * seeded weights): the gradient of each named input."""
    weights = rng.uniform(-1, 1, list(out.shape)).astype(str(out.dtype).split(".")[-1])
    (out * paddle.to_tensor(weights)).sum().backward()
    return {name: grad_of(t) for name, t in inputs.items()}


# -- nms ----------------------------------------------------------------------------------------------------
def nms_case(paddle, name, count=30, threshold=0.5, with_scores=False, categories=None, top_k=None,
             dtype="float32"):
    rng = _rng(name)
    boxes = paddle.to_tensor(_boxes(rng, count, 40, 30).astype(dtype))
    kwargs = {}
    if with_scores:
        kwargs["scores"] = paddle.to_tensor(rng.permutation(count).astype(dtype) / count)
    if categories:
        kwargs["category_idxs"] = paddle.to_tensor(rng.integers(0, categories, count).astype("int64"))
        kwargs["categories"] = list(range(categories))
        kwargs["top_k"] = top_k
    return paddle.vision.ops.nms(boxes, threshold, **kwargs)


# -- RoI ops ------------------------------------------------------------------------------------------------
def roi_case(paddle, name, api, channels=3, size=(2, 2), boxes_per_image=(2, 3), dtype="float32", grad=True,
             spill=0.0, **kwargs):
    rng = _rng(name)
    n, h, w = len(boxes_per_image), 11, 13
    x = paddle.to_tensor(rng.uniform(-1, 1, (n, channels, h, w)).astype(dtype), stop_gradient=not grad)
    scale = kwargs.get("spatial_scale", 1.0)
    boxes = _boxes(rng, sum(boxes_per_image), w / scale, h / scale, spill=spill).astype(dtype)
    boxes_num = paddle.to_tensor(np.array(boxes_per_image, "int32"))
    out = getattr(paddle.vision.ops, api)(x, paddle.to_tensor(boxes), boxes_num, size, **kwargs)
    result = {"out": record(out)}
    if grad:
        result["grads"] = _weighted_grads(paddle, out, {"x": x}, rng)
    return result


def roi_layer_case(paddle, name, layer, size, channels, **call_kwargs):
    rng = _rng(name)
    x = paddle.to_tensor(rng.uniform(-1, 1, (1, channels, 8, 8)).astype("float32"))
    boxes = paddle.to_tensor(_boxes(rng, 3, 8, 8).astype("float32"))
    module = getattr(paddle.vision.ops, layer)(size, spatial_scale=1.0)
    return {"repr": repr(module), "out": record(module(x, boxes, paddle.to_tensor([3], dtype="int32"),
                                                      **call_kwargs))}


# -- deformable convolution ---------------------------------------------------------------------------------
def deform_case(paddle, name, c_in=4, c_out=6, k=(3, 3), hw=(7, 8), stride=1, padding=1, dilation=1, groups=1,
                deformable_groups=1, with_mask=True, with_bias=True, dtype="float32", offset_scale=1.5):
    rng = _rng(name)
    n = 2
    s = [stride] * 2 if isinstance(stride, int) else list(stride)
    p = [padding] * 2 if isinstance(padding, int) else list(padding)
    d = [dilation] * 2 if isinstance(dilation, int) else list(dilation)
    ho = (hw[0] + 2 * p[0] - (d[0] * (k[0] - 1) + 1)) // s[0] + 1
    wo = (hw[1] + 2 * p[1] - (d[1] * (k[1] - 1) + 1)) // s[1] + 1
    taps = deformable_groups * k[0] * k[1]

    def t(shape, low=-1.0, high=1.0):
        return paddle.to_tensor(rng.uniform(low, high, shape).astype(dtype), stop_gradient=False)
    inputs = {"x": t((n, c_in) + tuple(hw)), "offset": t((n, 2 * taps, ho, wo), -offset_scale, offset_scale),
              "weight": t((c_out, c_in // groups) + tuple(k))}
    if with_mask:
        inputs["mask"] = t((n, taps, ho, wo), 0.0, 1.0)
    if with_bias:
        inputs["bias"] = t((c_out,))
    out = paddle.vision.ops.deform_conv2d(inputs["x"], inputs["offset"], inputs["weight"], inputs.get("bias"),
                                          stride=stride, padding=padding, dilation=dilation,
                                          deformable_groups=deformable_groups, groups=groups,
                                          mask=inputs.get("mask"))
    return {"out": record(out), "grads": _weighted_grads(paddle, out, inputs, rng)}


def deform_layer_case(paddle, name):
    rng = _rng(name)
    with paddle.utils.unique_name.guard():
        layer = paddle.vision.ops.DeformConv2D(4, 6, 3, padding=1, deformable_groups=2, groups=2)
    state = [(k, list(v.shape), str(v.dtype), v.name) for k, v in layer.state_dict().items()]
    layer.set_state_dict({k: rng.uniform(-1, 1, list(v.shape)).astype("float32")
                          for k, v in layer.state_dict().items()})
    x = paddle.to_tensor(rng.uniform(-1, 1, (1, 4, 5, 5)).astype("float32"))
    offset = paddle.to_tensor(rng.uniform(-1, 1, (1, 36, 5, 5)).astype("float32"))
    std = float(np.array(paddle.vision.ops.DeformConv2D(8, 16, 3).weight.numpy()).std())
    return {"state": state, "out": record(layer(x, offset)), "init_std": ("S", np.array([std]))}


# -- YOLOv3 -------------------------------------------------------------------------------------------------
_ANCHORS = [10, 13, 16, 30, 33, 23, 30, 61, 62, 45, 59, 119]


def yolo_box_case(paddle, name, class_num=3, anchors=(10, 13, 16, 30), iou_aware=False, dtype="float32", **kwargs):
    rng = _rng(name)
    an = len(anchors) // 2
    channels = an * (5 + class_num) + (an if iou_aware else 0)
    x = paddle.to_tensor(rng.normal(0, 1.5, (2, channels, 5, 6)).astype(dtype))
    img_size = paddle.to_tensor(np.array([[320, 416], [200, 190]], "int32"))
    boxes, scores = paddle.vision.ops.yolo_box(x, img_size, list(anchors), class_num, 0.3, 32, iou_aware=iou_aware,
                                               **kwargs)
    return {"boxes": record(boxes), "scores": record(scores)}


def yolo_loss_case(paddle, name, anchor_mask=(0, 1, 2), class_num=4, gt_count=5, with_score=False,
                   dtype="float32", **kwargs):
    rng = _rng(name)
    n, h, w = 2, 6, 6
    x = paddle.to_tensor(rng.normal(0, 1, (n, len(anchor_mask) * (5 + class_num), h, w)).astype(dtype),
                         stop_gradient=False)
    centers = rng.uniform(0.05, 0.95, (n, gt_count, 2))
    sizes = rng.uniform(0.05, 0.6, (n, gt_count, 2))
    sizes[0, -1] = 0.0   # an empty ground truth (padding) is skipped
    gt_box = paddle.to_tensor(np.concatenate([centers, sizes], -1).astype(dtype))
    gt_label = paddle.to_tensor(rng.integers(0, class_num, (n, gt_count)).astype("int32"))
    gt_score = paddle.to_tensor(rng.uniform(0.2, 1, (n, gt_count)).astype(dtype)) if with_score else None
    loss = paddle.vision.ops.yolo_loss(x, gt_box, gt_label, _ANCHORS, list(anchor_mask), class_num, 0.5, 32,
                                       gt_score=gt_score, **kwargs)
    return {"loss": record(loss), "grads": _weighted_grads(paddle, loss, {"x": x}, rng)}


# -- SSD priors and box coding ------------------------------------------------------------------------------
def prior_box_case(paddle, name, dtype="float32", **kwargs):
    x = paddle.zeros([1, 3, 4, 5], dtype=dtype)
    image = paddle.zeros([1, 3, 40, 48], dtype=dtype)
    return paddle.vision.ops.prior_box(x, image, **kwargs)


def box_coder_case(paddle, name, code_type, var="tensor", normalized=True, axis=0, dtype="float32"):
    rng = _rng(name)
    prior = _boxes(rng, 4, 50, 40, min_size=2.0).astype(dtype)
    if normalized:
        prior = prior / 50.0
    if code_type == "encode_center_size":
        target = _boxes(rng, 3, 50, 40, min_size=2.0).astype(dtype) / (50.0 if normalized else 1.0)
    else:
        target = rng.normal(0, 0.5, (4, 4, 4) if axis == 0 else (4, 3, 4)).astype(dtype)
    prior_var = {"tensor": paddle.to_tensor(rng.uniform(0.1, 0.3, (4, 4)).astype(dtype)),
                 "list": [0.1, 0.1, 0.2, 0.2]}[var]
    return paddle.vision.ops.box_coder(paddle.to_tensor(prior), prior_var, paddle.to_tensor(target),
                                       code_type=code_type, box_normalized=normalized, axis=axis)


# -- NMS variants and proposals -----------------------------------------------------------------------------
def matrix_nms_case(paddle, name, dtype="float32", **kwargs):
    rng = _rng(name)
    n, classes, m = 2, 4, 12
    boxes = np.stack([_boxes(rng, m, 1.0, 1.0, min_size=0.05) for _ in range(n)]).astype(dtype)
    scores = rng.uniform(0, 1, (n, classes, m)).astype(dtype)
    args = dict(score_threshold=0.3, post_threshold=0.1, nms_top_k=8, keep_top_k=10, return_index=True)
    args.update(kwargs)
    out, rois_num, index = paddle.vision.ops.matrix_nms(paddle.to_tensor(boxes), paddle.to_tensor(scores), **args)
    return {"out": record(out), "rois_num": record(rois_num), "index": record(index)}


def proposals_case(paddle, name, pixel_offset=False, eta=1.0, pre_nms_top_n=40, post_nms_top_n=12, min_size=2.0):
    rng = _rng(name)
    n, a, h, w = 2, 3, 4, 5
    scores = rng.uniform(0, 1, (n, a, h, w)).astype("float32")
    deltas = rng.normal(0, 0.3, (n, 4 * a, h, w)).astype("float32")
    base = _boxes(rng, h * w * a, 60, 50, min_size=4.0).reshape(h, w, a, 4).astype("float32")
    variances = np.full((h, w, a, 4), 1.0, "float32")
    variances[..., 2:] = 0.5
    img_size = np.array([[50, 60], [40, 45]], "float32")
    rois, probs, num = paddle.vision.ops.generate_proposals(
        paddle.to_tensor(scores), paddle.to_tensor(deltas), paddle.to_tensor(img_size), paddle.to_tensor(base),
        paddle.to_tensor(variances), pre_nms_top_n=pre_nms_top_n, post_nms_top_n=post_nms_top_n, nms_thresh=0.5,
        min_size=min_size, eta=eta, pixel_offset=pixel_offset, return_rois_num=True)
    return {"rois": record(rois), "probs": record(probs), "num": record(num)}


def fpn_case(paddle, name, pixel_offset=False):
    rng = _rng(name)
    sizes = np.exp(rng.uniform(np.log(8), np.log(900), 14))
    x0 = rng.uniform(0, 100, 14)
    y0 = rng.uniform(0, 100, 14)
    rois = np.stack([x0, y0, x0 + sizes, y0 + sizes * rng.uniform(0.5, 1.5, 14)], 1).astype("float32")
    multi, restore, per_level = paddle.vision.ops.distribute_fpn_proposals(
        paddle.to_tensor(rois), 2, 5, 4, 224, pixel_offset=pixel_offset,
        rois_num=paddle.to_tensor(np.array([5, 9], "int32")))
    return {"multi": record(multi), "restore": record(restore), "per_level": record(per_level)}


def read_file_case(paddle, name):
    import os
    import tempfile
    data = bytes(range(256)) * 3
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "blob.bin")
        with open(path, "wb") as f:
            f.write(data)
        return paddle.vision.ops.read_file(path)


# -- bad input ----------------------------------------------------------------------------------------------
def _x(paddle, shape=(1, 4, 6, 6)):
    return paddle.to_tensor(np.zeros(shape, "float32"))


def _b(paddle, count=2):
    return paddle.to_tensor(np.tile(np.array([[0, 0, 3, 3]], "float32"), (count, 1)))


def _n(paddle, *counts):
    return paddle.to_tensor(np.array(counts, "int32"))


ERRORS = {
    "err_nms_boxes_3_columns": lambda p: p.vision.ops.nms(p.zeros([3, 3]), 0.5),
    "err_nms_int_boxes": lambda p: p.vision.ops.nms(p.zeros([3, 4], dtype="int32"), 0.5),
    "err_nms_category_without_categories": lambda p: p.vision.ops.nms(
        _b(p), 0.5, scores=p.ones([2]), category_idxs=p.zeros([2], dtype="int64")),
    "err_nms_top_k_too_large": lambda p: p.vision.ops.nms(
        _b(p), 0.5, scores=p.ones([2]), category_idxs=p.zeros([2], dtype="int64"), categories=[0], top_k=5),
    "err_roi_align_list_output_size": lambda p: p.vision.ops.roi_align(_x(p), _b(p), _n(p, 2), [2, 2]),
    "err_roi_align_no_boxes_num": lambda p: p.vision.ops.roi_align(_x(p), _b(p), None, 2),
    "err_roi_align_boxes_num_batch": lambda p: p.vision.ops.roi_align(_x(p), _b(p), _n(p, 1, 1), 2),
    "err_roi_pool_no_boxes_num": lambda p: p.vision.ops.roi_pool(_x(p), _b(p), None, 2),
    "err_roi_pool_list_output_size": lambda p: p.vision.ops.roi_pool(_x(p), _b(p), _n(p, 2), [2, 2]),
    "err_psroi_pool_zero_size": lambda p: p.vision.ops.psroi_pool(_x(p), _b(p), _n(p, 2), (0, 2)),
    "err_psroi_pool_3d": lambda p: p.vision.ops.psroi_pool(p.zeros([4, 6, 6]), _b(p), _n(p, 2), 2),
    "err_psroi_pool_channels": lambda p: p.vision.ops.psroi_pool(_x(p, (1, 5, 6, 6)), _b(p), _n(p, 2), 2),
    "err_psroi_pool_output_size_str": lambda p: p.vision.ops.psroi_pool(_x(p), _b(p), _n(p, 2), "2"),
    # 4 channels over 2 x 2 bins leave 1 output channel; Paddle requires more than 1
    "err_psroi_pool_one_output_channel": lambda p: p.vision.ops.psroi_pool(_x(p), _b(p), _n(p, 2), 2),
    "err_prior_box_steps": lambda p: p.vision.ops.prior_box(_x(p), _x(p), [4.0], steps=[1.0, 2.0, 3.0]),
    "err_box_coder_var_type": lambda p: p.vision.ops.box_coder(_b(p), "var", _b(p)),
    "err_box_coder_var_len": lambda p: p.vision.ops.box_coder(_b(p), [0.1, 0.2], _b(p)),
    "err_fpn_min_level_zero": lambda p: p.vision.ops.distribute_fpn_proposals(_b(p), 0, 5, 4, 224,
                                                                              rois_num=_n(p, 2)),
    "err_fpn_one_level": lambda p: p.vision.ops.distribute_fpn_proposals(_b(p), 3, 3, 4, 224, rois_num=_n(p, 2)),
    "err_fpn_no_rois_num": lambda p: p.vision.ops.distribute_fpn_proposals(_b(p), 2, 5, 4, 224),
    "err_proposals_without_rois_num": lambda p: p.vision.ops.generate_proposals(
        p.zeros([1, 1, 2, 2]), p.zeros([1, 4, 2, 2]), p.ones([1, 2]), p.zeros([2, 2, 1, 4]), p.ones([2, 2, 1, 4])),
    "err_deform_conv_weight_attr_false": lambda p: p.vision.ops.DeformConv2D(4, 4, 3, weight_attr=False),
    "err_deform_conv_groups": lambda p: p.vision.ops.DeformConv2D(4, 4, 3, groups=3),
    "err_deform_conv_stride_len": lambda p: p.vision.ops.deform_conv2d(
        _x(p), p.zeros([1, 18, 4, 4]), p.zeros([4, 4, 3, 3]), stride=[1, 1, 1]),
    "err_read_file_missing": lambda p: p.vision.ops.read_file("/nonexistent/torchpaddle/file.jpg"),
}

CASES = {
    "nms_plain": functools.partial(nms_case, name="nms_plain"),
    "nms_plain_low_threshold_f64": functools.partial(nms_case, name="nms_plain_low", threshold=0.1, dtype="float64"),
    "nms_scores": functools.partial(nms_case, name="nms_scores", with_scores=True),
    "nms_categories": functools.partial(nms_case, name="nms_categories", with_scores=True, categories=3),
    "nms_categories_top_k": functools.partial(nms_case, name="nms_categories_top_k", with_scores=True,
                                              categories=4, top_k=6),
    "roi_align": functools.partial(roi_case, name="roi_align", api="roi_align"),
    "roi_align_unaligned_scale": functools.partial(roi_case, name="roi_align_unaligned", api="roi_align",
                                                   size=(3, 2), spatial_scale=0.5, aligned=False, spill=0.2),
    "roi_align_sampling_ratio_f64": functools.partial(roi_case, name="roi_align_sr", api="roi_align", size=3,
                                                      sampling_ratio=2, dtype="float64", spill=0.3),
    "roi_align_one_image": functools.partial(roi_case, name="roi_align_one", api="roi_align", size=(1, 4),
                                             boxes_per_image=(4,), sampling_ratio=1),
    "roi_pool": functools.partial(roi_case, name="roi_pool", api="roi_pool", size=(2, 3)),
    "roi_pool_scale_spill": functools.partial(roi_case, name="roi_pool_spill", api="roi_pool", size=3,
                                              spatial_scale=0.25, spill=0.3),
    "roi_pool_empty_image": functools.partial(roi_case, name="roi_pool_empty", api="roi_pool", size=2,
                                              boxes_per_image=(3, 0)),
    "psroi_pool": functools.partial(roi_case, name="psroi_pool", api="psroi_pool", channels=12, size=2),
    "psroi_pool_rect_scale": functools.partial(roi_case, name="psroi_pool_rect", api="psroi_pool", channels=12,
                                               size=(3, 2), spatial_scale=0.5, spill=0.2),
    "psroi_pool_f64": functools.partial(roi_case, name="psroi_pool_f64", api="psroi_pool", channels=8, size=2,
                                        dtype="float64"),
    "roi_align_layer": functools.partial(roi_layer_case, name="roi_align_layer", layer="RoIAlign", size=(2, 3),
                                         channels=2, aligned=False),
    "roi_pool_layer": functools.partial(roi_layer_case, name="roi_pool_layer", layer="RoIPool", size=2,
                                        channels=2),
    "psroi_pool_layer": functools.partial(roi_layer_case, name="psroi_pool_layer", layer="PSRoIPool", size=2,
                                          channels=8),
    "deform_conv2d_v2": functools.partial(deform_case, name="deform_v2"),
    "deform_conv2d_v1_nobias": functools.partial(deform_case, name="deform_v1", with_mask=False, with_bias=False),
    "deform_conv2d_groups": functools.partial(deform_case, name="deform_groups", c_in=4, c_out=4, groups=2,
                                              deformable_groups=2, stride=2, padding=(1, 2), dilation=(1, 2)),
    "deform_conv2d_rect_kernel_f64": functools.partial(deform_case, name="deform_rect", k=(2, 3), padding=0,
                                                       dtype="float64", offset_scale=3.0),
    "deform_conv2d_layer": functools.partial(deform_layer_case, name="deform_layer"),
    "yolo_box": functools.partial(yolo_box_case, name="yolo_box"),
    "yolo_box_noclip_scale": functools.partial(yolo_box_case, name="yolo_box_scale", clip_bbox=False,
                                               scale_x_y=1.2, dtype="float64"),
    "yolo_box_iou_aware": functools.partial(yolo_box_case, name="yolo_box_iou", iou_aware=True,
                                            iou_aware_factor=0.4, anchors=(10, 13, 16, 30, 33, 23)),
    "yolo_loss": functools.partial(yolo_loss_case, name="yolo_loss"),
    "yolo_loss_score_nosmooth": functools.partial(yolo_loss_case, name="yolo_loss_score", with_score=True,
                                                  use_label_smooth=False, anchor_mask=(3, 4, 5)),
    "yolo_loss_scale_f64": functools.partial(yolo_loss_case, name="yolo_loss_scale", anchor_mask=(1, 3),
                                             scale_x_y=1.1, dtype="float64", gt_count=8),
    "prior_box": functools.partial(prior_box_case, name="prior_box", min_sizes=[8.0, 16.0], max_sizes=[12.0, 24.0],
                                   aspect_ratios=[2.0], flip=True),
    "prior_box_order_clip_steps": functools.partial(prior_box_case, name="prior_box2", min_sizes=[10.0],
                                                    max_sizes=[20.0], aspect_ratios=[1.0, 2.0, 0.5], clip=True,
                                                    steps=[8.0, 9.0], offset=0.3, min_max_aspect_ratios_order=True),
    "prior_box_scalar_sizes_f64": functools.partial(prior_box_case, name="prior_box3", min_sizes=6.0,
                                                    aspect_ratios=3.0, variance=[0.2, 0.2, 0.1, 0.1],
                                                    dtype="float64"),
    "box_coder_encode": functools.partial(box_coder_case, name="bc_encode", code_type="encode_center_size"),
    "box_coder_encode_list_pixels": functools.partial(box_coder_case, name="bc_encode2",
                                                      code_type="encode_center_size", var="list", normalized=False),
    "box_coder_decode_axis0": functools.partial(box_coder_case, name="bc_decode0", code_type="decode_center_size"),
    "box_coder_decode_axis1_pixels": functools.partial(box_coder_case, name="bc_decode1",
                                                       code_type="decode_center_size", axis=1, normalized=False),
    "box_coder_decode_list_var": functools.partial(box_coder_case, name="bc_decode2",
                                                   code_type="decode_center_size", var="list"),
    "matrix_nms_linear": functools.partial(matrix_nms_case, name="mnms_linear"),
    "matrix_nms_gaussian_unnormalized": functools.partial(matrix_nms_case, name="mnms_gauss", use_gaussian=True,
                                                          gaussian_sigma=1.5, normalized=False, background_label=-1),
    "matrix_nms_no_top_k_f64": functools.partial(matrix_nms_case, name="mnms_all", nms_top_k=-1, keep_top_k=-1,
                                                 background_label=2, dtype="float64", return_rois_num=False),
    "matrix_nms_nothing_kept": functools.partial(matrix_nms_case, name="mnms_none", score_threshold=0.999),
    "generate_proposals": functools.partial(proposals_case, name="proposals"),
    "generate_proposals_pixel_offset": functools.partial(proposals_case, name="proposals_px", pixel_offset=True),
    "generate_proposals_eta_all": functools.partial(proposals_case, name="proposals_eta", eta=0.9,
                                                    pre_nms_top_n=-1, post_nms_top_n=-1),
    "generate_proposals_all_filtered": functools.partial(proposals_case, name="proposals_none",
                                                         pixel_offset=True, min_size=1000.0),
    "distribute_fpn_proposals": functools.partial(fpn_case, name="fpn"),
    "distribute_fpn_proposals_pixel_offset": functools.partial(fpn_case, name="fpn_px", pixel_offset=True),
    "read_file": functools.partial(read_file_case, name="read_file"),
}
CASES.update({name: functools.partial(lambda p, make: make(p), make=make) for name, make in ERRORS.items()})


def run_all(paddle):
    return {name: catch(lambda: fn(paddle)) for name, fn in CASES.items()}


if __name__ == "__main__":
    dump(CASES, sys.argv[1])

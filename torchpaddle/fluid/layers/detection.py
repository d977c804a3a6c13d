"""fluid.layers: detection. The names paddle.vision.ops already covers with fluid's semantics map onto it; the
rest resolve and raise NotImplementedError (not supported yet)."""
from ... import ops as _ops
from ... import tensor as _T
from ... import vision as _vision
from ...nn import functional as F
from ._helper import check_variable, not_yet

__all__ = ["prior_box", "box_coder", "yolo_box", "yolov3_loss", "matrix_nms", "iou_similarity", "box_clip",
           "sigmoid_focal_loss", "anchor_generator", "bipartite_match", "box_decoder_and_assign",
           "collect_fpn_proposals", "density_prior_box", "detection_output", "distribute_fpn_proposals",
           "generate_mask_labels", "generate_proposal_labels", "generate_proposals", "locality_aware_nms",
           "multiclass_nms", "polygon_box_transform", "retinanet_detection_output", "retinanet_target_assign",
           "roi_perspective_transform", "rpn_target_assign", "ssd_loss", "target_assign"]


def prior_box(input, image, min_sizes, max_sizes=None, aspect_ratios=[1.0], variance=[0.1, 0.1, 0.2, 0.2],
              flip=False, clip=False, steps=[0.0, 0.0], offset=0.5, name=None, min_max_aspect_ratios_order=False):
    return _vision.ops.prior_box(input, image, min_sizes, max_sizes, aspect_ratios, variance, flip, clip, steps,
                                 offset, min_max_aspect_ratios_order)


def box_coder(prior_box, prior_box_var, target_box, code_type="encode_center_size", box_normalized=True,
              name=None, axis=0):
    return _vision.ops.box_coder(prior_box, prior_box_var, target_box, code_type, box_normalized, axis)


def yolo_box(x, img_size, anchors, class_num, conf_thresh, downsample_ratio, clip_bbox=True, name=None,
             scale_x_y=1.0):
    return _vision.ops.yolo_box(x, img_size, anchors, class_num, conf_thresh, downsample_ratio, clip_bbox,
                                scale_x_y=scale_x_y)


def yolov3_loss(x, gt_box, gt_label, anchors, anchor_mask, class_num, ignore_thresh, downsample_ratio,
                gt_score=None, use_label_smooth=True, name=None, scale_x_y=1.0):
    return _vision.ops.yolo_loss(x, gt_box, gt_label, anchors, anchor_mask, class_num, ignore_thresh,
                                 downsample_ratio, gt_score, use_label_smooth, scale_x_y=scale_x_y)


def matrix_nms(bboxes, scores, score_threshold, post_threshold, nms_top_k, keep_top_k, use_gaussian=False,
               gaussian_sigma=2.0, background_label=0, normalized=True, return_index=False, name=None):
    """fluid's matrix_nms returns the kept detections [M, 6] (and their indices with ``return_index``); the
    per-image counts that fluid kept as LoD are dropped."""
    out = _vision.ops.matrix_nms(bboxes, scores, score_threshold, post_threshold, nms_top_k, keep_top_k,
                                 use_gaussian, gaussian_sigma, background_label, normalized, return_index=True,
                                 return_rois_num=True)
    return (out[0], out[2]) if return_index else out[0]


def iou_similarity(x, y, box_normalized=True, name=None):
    """IoU of every box of x [N, 4] with every box of y [M, 4] (x1, y1, x2, y2): [N, M]."""
    check_variable(x, "iou_similarity", "x")
    check_variable(y, "iou_similarity", "y")
    one = 0.0 if box_normalized else 1.0
    x1, y1, x2, y2 = [_T.unsqueeze(t, -1) for t in _T.unbind(x, axis=1)]
    u1, v1, u2, v2 = [_T.unsqueeze(t, 0) for t in _T.unbind(y, axis=1)]
    w = _ops.relu(_T.minimum(x2, u2) - _T.maximum(x1, u1) + one)
    h = _ops.relu(_T.minimum(y2, v2) - _T.maximum(y1, v1) + one)
    inter = w * h
    area_x = (x2 - x1 + one) * (y2 - y1 + one)
    area_y = (u2 - u1 + one) * (v2 - v1 + one)
    return inter / (area_x + area_y - inter)


def box_clip(input, im_info, name=None):
    """Boxes [N, ..., 4] clipped to their image, im_info [N, 3] = (height, width, scale) of the scaled image."""
    check_variable(input, "box_clip", "input")
    shape = [-1] + [1] * (len(input.shape) - 2)
    h = _T.reshape(_T.round(_T.slice(im_info, [1], [0], [1]) / _T.slice(im_info, [1], [2], [3])), shape) - 1.0
    w = _T.reshape(_T.round(_T.slice(im_info, [1], [1], [2]) / _T.slice(im_info, [1], [2], [3])), shape) - 1.0
    x1, y1, x2, y2 = _T.unbind(input, axis=-1)
    zero = _T.zeros([1], input.dtype)
    clipped = [_T.maximum(_T.minimum(x1, w), zero), _T.maximum(_T.minimum(y1, h), zero),
               _T.maximum(_T.minimum(x2, w), zero), _T.maximum(_T.minimum(y2, h), zero)]
    return _T.stack(clipped, axis=-1)


def sigmoid_focal_loss(x, label, fg_num, gamma=2.0, alpha=0.25):
    """Per-element focal loss of logits x [N, C]; label [N, 1] holds classes 1..C (0: background), fg_num [1]
    normalises."""
    check_variable(x, "sigmoid_focal_loss", "x")
    classes = x.shape[-1]
    target = _ops.one_hot_v2(_T.squeeze(_T.cast(label, "int64"), [-1]), depth=classes + 1, dtype=x.dtype.proto,
                             allow_out_of_range=False)
    target = _T.slice(_T.cast(target, x.dtype), [1], [1], [classes + 1])
    return F.sigmoid_focal_loss(x, target, _T.cast(fg_num, x.dtype), alpha=alpha, gamma=gamma, reduction="none")


for _name in __all__[8:]:
    globals()[_name] = not_yet(_name)

"""Calls of the nn names Paddle 3.x added (scaled_dot_product_attention, rms_norm, swiglu, sequence_mask,
fractional max pooling, LPPool layers, torch-style layer spellings), run on real Paddle 3.3.1 and on torchpaddle.
Run inside the reference virtualenv: ``python -m tests.nn.surface_nn_cases OUT.pkl``."""
import pickle
import sys

import numpy as np

from tests.tensor.surface_cases import run as _run


def _cases(paddle):
    F = paddle.nn.functional
    rng = np.random.default_rng(0)
    t = lambda shape: paddle.to_tensor(rng.random(shape).astype("float32"))  # noqa: E731
    q, k, v = t([2, 3, 4, 8]), t([2, 5, 4, 8]), t([2, 5, 4, 8])
    x, x3 = t([2, 3, 9, 7]), t([1, 2, 6, 7, 5])
    qkv = t([2, 5, 3, 2, 8])
    mask_f, mask_b = t([2, 4, 3, 5]), paddle.to_tensor(rng.random([2, 1, 3, 5]) > 0.3)
    return {
        "sdpa": lambda: F.scaled_dot_product_attention(q, k, v),
        "sdpa_causal": lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True),
        "sdpa_causal_square": lambda: F.scaled_dot_product_attention(q, q, q, is_causal=True),
        "sdpa_scale": lambda: F.scaled_dot_product_attention(q, k, v, scale=0.5),
        "sdpa_gqa": lambda: F.scaled_dot_product_attention(q, k[:, :, :2], v[:, :, :2]),
        "sdpa_mask_float": lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=mask_f),
        "sdpa_mask_bool": lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=mask_b),
        "swiglu": lambda: F.swiglu(x), "swiglu_xy": lambda: F.swiglu(q, k[:, :3]),
        "sequence_mask": lambda: F.sequence_mask(paddle.to_tensor([1, 3, 0]), 4),
        "sequence_mask_default": lambda: F.sequence_mask(paddle.to_tensor([[1, 3], [2, 2]])),
        "sequence_mask_float": lambda: F.sequence_mask(paddle.to_tensor([1, 3]), 5, dtype="float32"),
        "frac2d": lambda: F.fractional_max_pool2d(x, 4, random_u=0.3),
        "frac2d_mask": lambda: F.fractional_max_pool2d(x, [5, 3], random_u=0.7, return_mask=True),
        "frac2d_kernel": lambda: F.fractional_max_pool2d(x, 3, kernel_size=2, random_u=0.5, return_mask=True),
        "frac2d_kernel2": lambda: F.fractional_max_pool2d(x, [4, 6], kernel_size=[3, 2], random_u=0.9),
        "frac2d_same": lambda: F.fractional_max_pool2d(x, 7, random_u=0.1),
        "frac2d_one": lambda: F.fractional_max_pool2d(x, 1, random_u=0.3),
        "frac3d": lambda: F.fractional_max_pool3d(x3, [3, 4, 2], random_u=0.45, return_mask=True),
        "frac3d_kernel": lambda: F.fractional_max_pool3d(x3, 2, kernel_size=3, random_u=0.2),
        "FractionalMaxPool2D": lambda: paddle.nn.FractionalMaxPool2D(3, random_u=0.4)(x),
        "FractionalMaxPool3D": lambda: paddle.nn.FractionalMaxPool3D(2, random_u=0.4, return_mask=True)(x3),
        "LPPool1D": lambda: paddle.nn.LPPool1D(2, 3, stride=2)(x[:, :, 0]),
        "LPPool2d": lambda: paddle.nn.LPPool2d(3.0, 2)(x),
        "AdaptiveMaxPool1d": lambda: paddle.nn.AdaptiveMaxPool1d(3)(x[:, :, 0]),
        "AdaptiveMaxPool2d": lambda: paddle.nn.AdaptiveMaxPool2d(3, return_mask=True)(x),
        "AdaptiveMaxPool3d": lambda: paddle.nn.AdaptiveMaxPool3d(2)(x3),
        "Conv2d_params": lambda: [list(p.shape) for p in paddle.nn.Conv2d(3, 4, 3, padding=1, bias=False).parameters()],
        "Conv1d_params": lambda: [list(p.shape) for p in paddle.nn.Conv1d(3, 4, 3).parameters()],
        "Conv3d_params": lambda: [list(p.shape) for p in paddle.nn.Conv3d(2, 4, 3, groups=2).parameters()],
        "flash_attn_qkvpacked": lambda: F.flash_attn_qkvpacked(qkv)[0],
        "flash_attn_qkvpacked_causal": lambda: F.flash_attn_qkvpacked(qkv, causal=True)[0],
        "class_center_sample_labels": lambda: F.class_center_sample(paddle.to_tensor([2, 5, 2, 9]), 10, 6)[0],
        "class_center_sample_positives": lambda: F.class_center_sample(paddle.to_tensor([7, 1, 7]), 10, 4)[1][:2],
        "class_center_sample_size": lambda: F.class_center_sample(paddle.to_tensor([7, 1, 7]), 10, 4)[1].shape,
        "class_center_sample_bad": lambda: F.class_center_sample(paddle.to_tensor([7, 1]), 10, 11),
        "paddle_conv2d": lambda: paddle.conv2d(x[:, :, :3, :3], paddle.ones([2, 3, 2, 2])),
        "paddle_layer_norm": lambda: paddle.layer_norm(x, [7]),
        "paddle_group_norm": lambda: paddle.group_norm(x, 3),
        "paddle_adaptive_avg_pool1d": lambda: paddle.adaptive_avg_pool1d(x[:, :, 0], 4),
    }


def run(paddle):
    return _run(paddle, _cases)


if __name__ == "__main__":
    import warnings
    warnings.filterwarnings("ignore")
    import paddle as _paddle
    with open(sys.argv[1], "wb") as f:
        pickle.dump({"results": run(_paddle)}, f)

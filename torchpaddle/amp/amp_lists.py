"""The dygraph AMP op lists of Paddle 3.3.1: which ops compute in float16/bfloat16 (white) and which stay in
float32 (black), per dtype and level. Names are Paddle op types; legacy and PIR names are both matched
(``auto_cast._EAGER_NAMES``), as Paddle's eager mode matches ``elementwise_add`` to ``add``."""
__all__ = ["white_list", "black_list"]

WHITE_LIST = {"conv2d", "einsum", "matmul", "matmul_v2", "linear_v2", "max_pool2d_with_index", "mul",
              "fused_gemm_epilogue", "fused_rotary_position_embedding", "flash_attn"}
# half precision kernels exist for these in float16 only
ONLY_FP16_WHITE_LIST = {"fake_quantize_dequantize_abs_max", "fake_quantize_dequantize_moving_average_abs_max",
                        "fused_attention", "fused_feedforward"}
FP16_WHITE_LIST = WHITE_LIST | ONLY_FP16_WHITE_LIST

# numerically dangerous in half precision: exp/log, reductions, normalisations, losses
FP16_BLACK_LIST = {
    "tan", "acos", "asin", "sinh", "cosh", "atanh", "tanh_shrink", "erfinv", "exp", "expm1", "log", "log10", "log2",
    "reciprocal", "rsqrt", "pow", "square", "reduce_sum", "mean", "reduce_mean", "reduce_prod", "cumprod", "cumsum",
    "dist", "pnorm", "frobenius_norm", "renorm", "group_norm", "layer_norm", "softmax", "softmin", "softplus",
    "log_softmax", "softmax_with_cross_entropy", "sigmoid_cross_entropy_with_logits", "c_softmax_with_cross_entropy",
    "c_softmax_with_multi_label_cross_entropy", "cross_entropy", "cross_entropy2", "nll_loss", "huber_loss",
    "triplet_margin_loss", "log_loss", "hsigmoid_loss", "margin_cross_entropy"}
# slower in half precision (their gradients): float32 at O2 as well
EXTRA_BLACK_LIST = {"linear_interp_v2", "nearest_interp_v2", "bilinear_interp_v2", "bicubic_interp_v2",
                    "trilinear_interp_v2", "lookup_table", "lookup_table_v2", "scatter"}

BF16_WHITE_LIST = WHITE_LIST
BF16_BLACK_LIST = FP16_BLACK_LIST


def white_list():
    """{dtype: {level: op types}}; at OD only these run in half precision."""
    return {"float16": {"OD": FP16_WHITE_LIST, "O1": FP16_WHITE_LIST, "O2": FP16_WHITE_LIST},
            "bfloat16": {"OD": BF16_WHITE_LIST, "O1": BF16_WHITE_LIST, "O2": BF16_WHITE_LIST}}


def black_list():
    return {"float16": {"OD": set(), "O1": FP16_BLACK_LIST | EXTRA_BLACK_LIST, "O2": EXTRA_BLACK_LIST},
            "bfloat16": {"OD": set(), "O1": BF16_BLACK_LIST | EXTRA_BLACK_LIST, "O2": EXTRA_BLACK_LIST}}

"""The op lists of static AMP: which op types compute in float16/bfloat16 (white), which stay in float32
(black) and which follow their inputs (gray). The defaults are Paddle 3.3.1's."""
import copy

__all__ = ["AutoMixedPrecisionLists", "CustomOpLists", "white_list", "black_list", "gray_list"]

# numerically safe and much faster in half precision
white_list = {"conv2d", "einsum", "matmul", "matmul_v2", "max_pool2d_with_index", "mul",
              "fake_quantize_dequantize_abs_max", "fake_quantize_dequantize_moving_average_abs_max", "flash_attn", "fused_gemm_epilogue",
              "fused_rotary_position_embedding", "linear_v2", "fused_attention", "fused_feedforward",
              "fused_bn_add_activation", "resnet_unit"}
_BF16_WHITE_EXCLUDED = {"fused_bn_add_activation", "resnet_unit"}

# numerically dangerous in half precision (exp/log, reductions, normalisation, losses)
black_list = {"acos", "asin", "atanh", "bicubic_interp_v2", "bilinear_interp_v2", "c_softmax_with_cross_entropy",
              "c_softmax_with_multi_label_cross_entropy", "cosh", "cross_entropy", "cross_entropy2", "cumprod",
              "cumsum", "dist", "erfinv", "exp", "expm1", "frobenius_norm", "group_norm", "hsigmoid_loss",
              "huber_loss", "layer_norm", "linear_interp_v2", "log", "log10", "log2", "log_loss", "log_softmax",
              "lookup_table", "lookup_table_v2", "margin_cross_entropy", "mean", "nearest_interp_v2", "nll_loss",
              "pnorm", "pow", "reciprocal", "reduce_mean", "reduce_prod", "reduce_sum", "renorm", "rsqrt", "scatter",
              "sigmoid_cross_entropy_with_logits", "sinh", "softmax", "softmax_with_cross_entropy", "softmin",
              "softplus", "square", "tan", "tanh_shrink", "trilinear_interp_v2", "triplet_margin_loss"}

# follow their inputs: half precision when fed half-precision values
gray_list = {"all_reduce", "batch_norm", "c_concat", "c_identity", "cast", "concat", "dropout", "elementwise_add",
             "elementwise_div", "elementwise_floordiv", "elementwise_max", "elementwise_min", "elementwise_mod",
             "elementwise_mul", "elementwise_pow", "elementwise_sub", "fill_constant", "flatten2", "fused_attention",
             "fused_bn_add_activation", "fused_feedforward", "fused_multi_transformer", "gather", "gaussian_random",
             "get_tensor_from_selected_rows", "layer_norm", "leaky_relu", "pool2d", "pool3d", "rank", "relu",
             "relu6", "reshape2", "scale", "sigmoid", "sign", "slice", "soft_relu", "split", "stack", "tanh",
             "top_k", "transpose2", "uniform_random", "uniform_random_batch_size_like", "unstack"}


def _all_ops():
    from ...ops.registry import REGISTRY
    return set(REGISTRY)


class AutoMixedPrecisionLists:
    """White, black and gray op lists, with ``custom_white_list``/``custom_black_list`` moving op types between
    them and ``custom_black_varnames`` keeping every op touching those variables in float32.

    ``unsupported_list`` (ops without a half-precision kernel) is empty: torch runs every registered op in
    float16 and bfloat16.
    """

    def __init__(self, custom_white_list=None, custom_black_list=None, custom_black_varnames=None,
                 dtype="float16"):
        if dtype not in ("float16", "bfloat16"):
            raise ValueError(f"AutoMixedPrecisionLists: dtype must be 'float16' or 'bfloat16', got {dtype!r}")
        self.amp_dtype = dtype
        self._custom_white_list = custom_white_list
        self._custom_black_list = custom_black_list
        white = white_list - _BF16_WHITE_EXCLUDED if dtype == "bfloat16" else white_list
        self.white_list = copy.copy(white)
        self.black_list = copy.copy(black_list)
        self.gray_list = copy.copy(gray_list)
        self.unsupported_list = set()
        self.black_varnames = copy.copy(custom_black_varnames) if custom_black_varnames else set()
        self._update_list()

    @property
    def all_list(self):
        return _all_ops() | self.white_list | self.black_list | self.gray_list

    def _update_list(self):
        white, black = self._custom_white_list, self._custom_black_list
        if white and black:
            both = sorted(set(white) & set(black))
            if both:
                raise ValueError(f"The given custom_white_list overlaps custom_black_list with < {', '.join(both)} >!")
        for op_type in white or ():
            self.black_list.discard(op_type)
            self.gray_list.discard(op_type)
            self.white_list.add(op_type)
        for op_type in black or ():
            self.white_list.discard(op_type)
            self.gray_list.discard(op_type)
            self.black_list.add(op_type)


CustomOpLists = AutoMixedPrecisionLists

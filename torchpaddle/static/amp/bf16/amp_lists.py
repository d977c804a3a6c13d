"""AutoMixedPrecisionListsBF16: the bfloat16 op lists (Paddle 3.3.1's defaults)."""
import copy

from ..fp16_lists import gray_list as _gray

__all__ = ["AutoMixedPrecisionListsBF16"]

bf16_list = {"conv2d", "einsum", "flash_attn", "fused_gemm_epilogue", "fused_rotary_position_embedding", "linear_v2",
             "matmul", "matmul_v2", "max_pool2d_with_index", "mul"}
fp32_list = {"acos", "asin", "atanh", "c_softmax_with_cross_entropy", "c_softmax_with_multi_label_cross_entropy",
             "cosh", "cross_entropy", "cross_entropy2", "cumprod", "cumsum", "dist", "erfinv", "exp", "expm1",
             "fake_quantize_dequantize_abs_max", "fake_quantize_dequantize_moving_average_abs_max",
             "frobenius_norm", "group_norm", "hsigmoid_loss", "huber_loss", "log", "log10", "log2", "log_loss",
             "log_softmax", "margin_cross_entropy", "mean", "nll_loss", "pnorm", "pow", "reciprocal", "reduce_mean",
             "reduce_prod", "reduce_sum", "renorm", "rsqrt", "sigmoid_cross_entropy_with_logits", "sinh",
             "softmax", "softmax_with_cross_entropy", "softmin", "softplus", "square", "tan", "tanh_shrink",
             "triplet_margin_loss"}
bf16_initializer_list = {"fill_constant", "uniform_random"}


class AutoMixedPrecisionListsBF16:
    """bfloat16 (``bf16_list``), float32 (``fp32_list``) and gray op lists; the rewrites read them under the
    float16 names too (white_list, black_list, black_varnames)."""

    def __init__(self, custom_bf16_list=None, custom_fp32_list=None, custom_fp32_varnames=None):
        self._custom_bf16_list = custom_bf16_list
        self._custom_fp32_list = custom_fp32_list
        self.bf16_list = copy.copy(bf16_list)
        self.fp32_list = copy.copy(fp32_list)
        self.gray_list = copy.copy(_gray)
        self.bf16_initializer_list = copy.copy(bf16_initializer_list)
        self.unsupported_list = set()
        self.fp32_varnames = copy.copy(custom_fp32_varnames)
        self.amp_dtype = "bfloat16"
        self._update_list()

    def _update_list(self):
        bf16, fp32 = self._custom_bf16_list, self._custom_fp32_list
        if bf16 and fp32:
            both = sorted(set(bf16) & set(fp32))
            if both:
                raise ValueError(f"Custom bf16 list overlap custom fp32 list: {both}")
        for op_type in bf16 or ():
            self.fp32_list.discard(op_type)
            self.gray_list.discard(op_type)
            self.bf16_list.add(op_type)
        for op_type in fp32 or ():
            self.bf16_list.discard(op_type)
            self.gray_list.discard(op_type)
            self.fp32_list.add(op_type)

    white_list = property(lambda self: self.bf16_list)
    black_list = property(lambda self: self.fp32_list)
    black_varnames = property(lambda self: set(self.fp32_varnames or ()))

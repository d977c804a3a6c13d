"""The incubate.nn fused layers: Paddle's parameter names, shapes and initialisation, forward through the
compositions in .functional."""
from ... import nn as _nn
from ...nn.initializer import Constant
from . import functional as IF

_Layer = _nn.Layer


def _check_positive(api, **values):
    for name, value in values.items():
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            raise ValueError(f"{api}: {name} should be a positive integer, got {value!r}")


def _check_rate(api, name, value):
    if not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
        raise ValueError(f"{api}: {name} should be a number in [0, 1], got {value!r}")


class FusedLinear(_Layer):
    """y = x @ W + b with W [in_features, out_features] ([out, in] when ``transpose_weight``)."""

    def __init__(self, in_features, out_features, weight_attr=None, bias_attr=None, transpose_weight=False,
                 name=None):
        super().__init__()
        _check_positive("FusedLinear", in_features=in_features, out_features=out_features)
        shape = [out_features, in_features] if transpose_weight else [in_features, out_features]
        self.weight = self.create_parameter(shape=shape, attr=weight_attr, dtype=self._dtype, is_bias=False)
        self.bias = self.create_parameter(shape=[out_features], attr=bias_attr, dtype=self._dtype, is_bias=True)
        self.transpose_weight = transpose_weight
        self.name = name

    def forward(self, input):
        return IF.fused_linear(input, self.weight, self.bias, self.transpose_weight)


class FusedDropoutAdd(_Layer):
    """dropout(x) + y."""

    def __init__(self, p=0.5, mode="upscale_in_train", name=None):
        super().__init__()
        _check_rate("FusedDropoutAdd", "p", p)
        IF._check_mode("FusedDropoutAdd", mode)
        self.p, self.mode, self.name = p, mode, name

    def forward(self, x, y):
        return IF.fused_dropout_add(x, y, p=self.p, training=self.training, mode=self.mode)

    def extra_repr(self):
        return f"p={self.p}, mode={self.mode}"


class FusedBiasDropoutResidualLayerNorm(_Layer):
    """layer_norm(residual + dropout(x + linear_bias))."""

    def __init__(self, embed_dim, dropout_rate=0.5, weight_attr=None, bias_attr=None, epsilon=1e-5, name=None):
        super().__init__()
        _check_positive("FusedBiasDropoutResidualLayerNorm", embed_dim=embed_dim)
        _check_rate("FusedBiasDropoutResidualLayerNorm", "dropout_rate", dropout_rate)
        self.embed_dim, self.dropout_rate, self._epsilon, self.name = embed_dim, dropout_rate, epsilon, name
        self.linear_bias = self.create_parameter(shape=[embed_dim], attr=bias_attr, dtype=self._dtype, is_bias=True)
        self.ln_scale = self.create_parameter(attr=weight_attr, shape=[embed_dim],
                                              default_initializer=Constant(value=1.0))
        self.ln_bias = self.create_parameter(attr=bias_attr, shape=[embed_dim], is_bias=True)

    def forward(self, x, residual):
        return IF.fused_bias_dropout_residual_layer_norm(x, residual, self.linear_bias, self.ln_scale, self.ln_bias,
                                                         self.dropout_rate, self._epsilon, self.training)

    def extra_repr(self):
        return f"embed_dim={self.embed_dim}, dropout_rate={self.dropout_rate}, epsilon={self._epsilon}"


class FusedFeedForward(_Layer):
    """Transformer feed-forward block (see functional.fused_feedforward); layer norm before or after."""

    def __init__(self, d_model, dim_feedforward, dropout_rate=0.1, epsilon=1e-5, activation="relu",
                 act_dropout_rate=None, normalize_before=False, linear1_weight_attr=None, linear1_bias_attr=None,
                 linear2_weight_attr=None, linear2_bias_attr=None, ln1_scale_attr=None, ln1_bias_attr=None,
                 ln2_scale_attr=None, ln2_bias_attr=None, nranks=1, ring_id=-1, name=None):
        super().__init__()
        _check_positive("FusedFeedForward", d_model=d_model, dim_feedforward=dim_feedforward)
        _check_rate("FusedFeedForward", "dropout_rate", dropout_rate)
        if nranks != 1:
            raise NotImplementedError("FusedFeedForward: tensor-parallel nranks > 1 is not supported in torchpaddle")
        self._d_model, self._dim_feedforward = d_model, dim_feedforward
        self._dropout_rate = dropout_rate
        self._act_dropout_rate = dropout_rate if act_dropout_rate is None else act_dropout_rate
        self._act_method, self._normalize_before, self._epsilon = activation, normalize_before, epsilon
        self.name = name
        self._linear1_weight = self.create_parameter([d_model, dim_feedforward], attr=linear1_weight_attr)
        self._linear1_bias = self.create_parameter([dim_feedforward], attr=linear1_bias_attr, is_bias=True)
        self._linear2_weight = self.create_parameter([dim_feedforward, d_model], attr=linear2_weight_attr)
        self._linear2_bias = self.create_parameter([d_model], attr=linear2_bias_attr, is_bias=True)
        which = "1" if normalize_before else "2"
        scale_attr, bias_attr = (ln1_scale_attr, ln1_bias_attr) if normalize_before else (ln2_scale_attr,
                                                                                          ln2_bias_attr)
        setattr(self, f"_ln{which}_scale", self.create_parameter([d_model], attr=scale_attr,
                                                                 default_initializer=Constant(1.0)))
        setattr(self, f"_ln{which}_bias", self.create_parameter([d_model], attr=bias_attr, is_bias=True))

    def forward(self, src, cache=None):
        pre = self._normalize_before
        return IF.fused_feedforward(
            src, self._linear1_weight, self._linear2_weight, self._linear1_bias, self._linear2_bias,
            getattr(self, "_ln1_scale", None), getattr(self, "_ln1_bias", None),
            getattr(self, "_ln2_scale", None), getattr(self, "_ln2_bias", None),
            dropout1_rate=self._act_dropout_rate, dropout2_rate=self._dropout_rate, activation=self._act_method,
            ln1_epsilon=self._epsilon, ln2_epsilon=self._epsilon, pre_layer_norm=pre, training=self.training)

    def extra_repr(self):
        return (f"d_model={self._d_model}, dim_feedforward={self._dim_feedforward}, "
                f"dropout_rate={self._dropout_rate}, epsilon={self._epsilon}, activation={self._act_method}, "
                f"act_dropout_rate={self._act_dropout_rate}, normalize_before={self._normalize_before}")


class FusedMultiHeadAttention(_Layer):
    """Self-attention with a packed qkv_weight [3, num_heads, head_dim, embed_dim]; query only (key/value must
    be None or the query itself, as in Paddle's fused kernel)."""

    def __init__(self, embed_dim, num_heads, dropout_rate=0.5, attn_dropout_rate=0.5, kdim=None, vdim=None,
                 normalize_before=False, need_weights=False, qkv_weight_attr=None, qkv_bias_attr=None,
                 linear_weight_attr=None, linear_bias_attr=None, pre_ln_scale_attr=None, pre_ln_bias_attr=None,
                 ln_scale_attr=None, ln_bias_attr=None, epsilon=1e-5, nranks=1, ring_id=-1, transpose_qkv_wb=False,
                 name=None):
        super().__init__()
        _check_positive("FusedMultiHeadAttention", embed_dim=embed_dim, num_heads=num_heads)
        if embed_dim % num_heads:
            raise ValueError(f"FusedMultiHeadAttention: embed_dim ({embed_dim}) should be divisible by num_heads "
                             f"({num_heads})")
        if need_weights:
            raise ValueError("FusedMultiHeadAttention: need_weights=True is not supported (nor is it in Paddle)")
        if nranks != 1:
            raise NotImplementedError("FusedMultiHeadAttention: tensor-parallel nranks > 1 is not supported in "
                                      "torchpaddle")
        self.embed_dim, self.num_heads, self.head_dim = embed_dim, num_heads, embed_dim // num_heads
        self.dropout_rate, self.attn_dropout_rate = dropout_rate, attn_dropout_rate
        self.normalize_before, self._epsilon, self.transpose_qkv_wb = normalize_before, epsilon, transpose_qkv_wb
        self.kdim, self.vdim, self.name = kdim, vdim, name
        qkv_shape = [embed_dim, 3 * embed_dim] if transpose_qkv_wb else [3, num_heads, self.head_dim, embed_dim]
        bias_shape = [3 * embed_dim] if transpose_qkv_wb else [3, num_heads, self.head_dim]
        self.qkv_weight = self.create_parameter(qkv_shape, attr=qkv_weight_attr)
        self.qkv_bias = self.create_parameter(bias_shape, attr=qkv_bias_attr, is_bias=True)
        self.linear_weight = self.create_parameter([embed_dim, embed_dim], attr=linear_weight_attr)
        self.linear_bias = self.create_parameter([embed_dim], attr=linear_bias_attr, is_bias=True)
        if normalize_before:
            self.pre_ln_scale = self.create_parameter([embed_dim], attr=pre_ln_scale_attr,
                                                      default_initializer=Constant(1.0))
            self.pre_ln_bias = self.create_parameter([embed_dim], attr=pre_ln_bias_attr, is_bias=True)
            self.ln_scale = self.ln_bias = None
        else:
            self.pre_ln_scale = self.pre_ln_bias = None
            self.ln_scale = self.create_parameter([embed_dim], attr=ln_scale_attr, default_initializer=Constant(1.0))
            self.ln_bias = self.create_parameter([embed_dim], attr=ln_bias_attr, is_bias=True)

    def forward(self, query, key=None, value=None, attn_mask=None, cache=None):
        if cache is not None:
            raise NotImplementedError("FusedMultiHeadAttention: cache is not supported in torchpaddle")
        return IF.fused_multi_head_attention(
            query, self.qkv_weight, self.linear_weight, self.normalize_before, self.pre_ln_scale, self.pre_ln_bias,
            self.ln_scale, self.ln_bias, self._epsilon, self.qkv_bias, self.linear_bias, None, attn_mask,
            self.dropout_rate, self.attn_dropout_rate, self._epsilon, self.training, num_heads=self.num_heads,
            transpose_qkv_wb=self.transpose_qkv_wb)

    def extra_repr(self):
        return (f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, dropout_rate={self.dropout_rate}, "
                f"attn_dropout_rate={self.attn_dropout_rate}, epsilon={self._epsilon}")


class FusedTransformerEncoderLayer(_Layer):
    """FusedMultiHeadAttention followed by FusedFeedForward (sub-layers ``fused_attn`` and ``ffn``)."""

    def __init__(self, d_model, nhead, dim_feedforward, dropout_rate=0.1, activation="relu", attn_dropout_rate=None,
                 act_dropout_rate=None, normalize_before=False, weight_attr=None, bias_attr=None):
        super().__init__()
        attn_dropout_rate = dropout_rate if attn_dropout_rate is None else attn_dropout_rate
        act_dropout_rate = dropout_rate if act_dropout_rate is None else act_dropout_rate
        self.normalize_before = normalize_before
        w_attn, w_ffn = _pair(weight_attr)
        b_attn, b_ffn = _pair(bias_attr)
        self.fused_attn = FusedMultiHeadAttention(d_model, nhead, dropout_rate=dropout_rate,
                                                  attn_dropout_rate=attn_dropout_rate,
                                                  normalize_before=normalize_before, qkv_weight_attr=w_attn,
                                                  qkv_bias_attr=b_attn, linear_weight_attr=w_attn,
                                                  linear_bias_attr=b_attn, pre_ln_scale_attr=w_attn,
                                                  pre_ln_bias_attr=b_attn, ln_scale_attr=w_attn, ln_bias_attr=b_attn)
        self.ffn = FusedFeedForward(d_model, dim_feedforward, dropout_rate=dropout_rate,
                                    act_dropout_rate=act_dropout_rate, activation=activation,
                                    normalize_before=normalize_before, linear1_weight_attr=w_ffn,
                                    linear1_bias_attr=b_ffn, linear2_weight_attr=w_ffn, linear2_bias_attr=b_ffn)

    def forward(self, src, src_mask=None, cache=None):
        if cache is not None:
            raise NotImplementedError("FusedTransformerEncoderLayer: cache is not supported in torchpaddle")
        return self.ffn(self.fused_attn(src, attn_mask=src_mask))


def _pair(attr):
    if isinstance(attr, (list, tuple)):
        if len(attr) == 1:
            return attr[0], attr[0]
        if len(attr) == 2:
            return attr[0], attr[1]
        raise ValueError(f"FusedTransformerEncoderLayer: weight_attr/bias_attr lists should have 1 or 2 entries, "
                         f"got {len(attr)}")
    return attr, attr


class FusedMultiTransformer(_Layer):
    """Not available: Paddle's FusedMultiTransformer is its CUDA inference decoder (kv caches, rotary, int8)."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError("paddle.incubate.nn.FusedMultiTransformer is a CUDA-only inference kernel in "
                                  "Paddle; torchpaddle does not provide it")

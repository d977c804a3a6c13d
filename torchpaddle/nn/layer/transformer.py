"""Attention and Transformer layers: MultiHeadAttention (with incremental and static key/value caches),
TransformerEncoder(Layer), TransformerDecoder(Layer), Transformer.

Masks follow Paddle: a bool or int mask keeps True/1 positions and blocks False/0 ones (it becomes
``(mask - 1) * 1e9`` and is added to the logits); a float mask is added to the logits as it is.
"""
import collections
import copy

import numpy as np

from ...framework import dtype as _dtype
from ...framework.param_attr import ParamAttr
from ...framework.tensor import PaddleAssertionError, Tensor
from ... import tensor as _P
from .. import functional as F
from .common import Dropout, Linear
from .container import LayerList
from .layers import Layer
from .norm import LayerNorm

__all__ = ["MultiHeadAttention", "TransformerEncoderLayer", "TransformerEncoder", "TransformerDecoderLayer",
           "TransformerDecoder", "Transformer"]


class _ActivationNameError(AttributeError, ValueError):
    """An unknown activation name: Paddle's getattr(F, name) raises AttributeError; a ValueError as well."""


def _require(ok, message):
    if not ok:
        raise PaddleAssertionError(message)


def _convert_param_attr_to_list(param_attr, n):
    """One attr per sublayer: a list/tuple is taken as is (True -> default, False -> none); anything else is
    repeated n times, a named attr getting suffixes _0, _1... so the parameter names stay unique."""
    if isinstance(param_attr, (list, tuple)):
        _require(len(param_attr) == n, f"length of param_attr should be {n} when it is a list/tuple")
        return [(ParamAttr._to_attr(None) if a else False) if isinstance(a, bool) else ParamAttr._to_attr(a)
                for a in param_attr]
    if isinstance(param_attr, bool):
        return [ParamAttr._to_attr(None) for _ in range(n)] if param_attr else [False] * n
    attr = ParamAttr._to_attr(param_attr)
    attrs = []
    for i in range(n):
        attr_i = copy.deepcopy(attr)
        if attr.name:
            attr_i.name = f"{attr_i.name}_{i}"
        attrs.append(attr_i)
    return attrs


def _convert_attention_mask(attn_mask, dtype):
    """bool/int masks -> additive float masks ((mask - 1) * 1e9); float masks cast to ``dtype``."""
    if attn_mask is None:
        return None
    if not isinstance(attn_mask, Tensor):
        raise TypeError(f"attn_mask must be a Tensor, got {type(attn_mask).__name__}")
    dtype = _dtype.convert_dtype(dtype)
    if attn_mask.dtype == dtype:
        return attn_mask
    if attn_mask.dtype.name == "bool" or "int" in attn_mask.dtype.name:
        return (_P.cast(attn_mask, dtype) - 1.0) * 1e9
    return _P.cast(attn_mask, dtype)


def _activation(name):
    fn = getattr(F, name, None) if isinstance(name, str) else None
    if fn is None:
        raise _ActivationNameError(f"module 'paddle.nn.functional' has no attribute {name!r} (activation)")
    return fn


class MultiHeadAttention(Layer):
    """Multi-head scaled dot-product attention with q/k/v/out projections (Linear, weights [in, out])."""

    Cache = collections.namedtuple("Cache", ["k", "v"])
    StaticCache = collections.namedtuple("StaticCache", ["k", "v"])

    def __init__(self, embed_dim, num_heads, dropout=0.0, kdim=None, vdim=None, need_weights=False,
                 weight_attr=None, bias_attr=None):
        super().__init__()
        _require(embed_dim > 0, f"Expected embed_dim to be greater than 0, but received {embed_dim}")
        _require(num_heads > 0, f"Expected num_heads to be greater than 0, but received {num_heads}")
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.need_weights = need_weights
        self.head_dim = embed_dim // num_heads
        _require(self.head_dim * num_heads == embed_dim, "embed_dim must be divisible by num_heads")
        self.q_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.k_proj = Linear(self.kdim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.v_proj = Linear(self.vdim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.out_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr=bias_attr)

    def _split_heads(self, x):
        # [batch, length, embed] -> [batch, heads, length, head_dim]
        x = _P.reshape(x, [0, 0, self.num_heads, self.head_dim])
        return _P.transpose(x, [0, 2, 1, 3])

    def _prepare_qkv(self, query, key, value, cache=None):
        q = self._split_heads(self.q_proj(query))
        if isinstance(cache, self.StaticCache):
            k, v = cache.k, cache.v      # encoder-decoder attention: keys/values computed once
        else:
            k, v = self.compute_kv(key, value)
        if isinstance(cache, self.Cache):
            k = _P.concat([cache.k, k], axis=2)   # decoder self-attention: append this step
            v = _P.concat([cache.v, v], axis=2)
            cache = self.Cache(k, v)
        return (q, k, v) if cache is None else (q, k, v, cache)

    def compute_kv(self, key, value):
        """Project and split heads: both [batch, heads, length, head_dim]."""
        return self._split_heads(self.k_proj(key)), self._split_heads(self.v_proj(value))

    def gen_cache(self, key, value=None, type=Cache):
        """StaticCache of compute_kv(key, value); or an empty Cache sized from ``key``'s batch (value None);
        or Cache(key, value) as given."""
        if type == MultiHeadAttention.StaticCache:
            k, v = self.compute_kv(key, value)
            return self.StaticCache(k, v)
        if value is None:
            shape = [key.shape[0], self.num_heads, 0, self.head_dim]
            return self.Cache(_P.full(shape, 0, key.dtype), _P.full(shape, 0, key.dtype))
        return self.Cache(key, value)

    def forward(self, query, key=None, value=None, attn_mask=None, cache=None):
        if not isinstance(query, Tensor) or query.ndim != 3:
            raise ValueError("MultiHeadAttention: query must be a 3-D Tensor [batch, length, embed_dim], got "
                             f"{getattr(query, 'shape', type(query).__name__)}")
        if query.shape[-1] != self.embed_dim:
            raise ValueError(f"MultiHeadAttention: query's last dimension {query.shape[-1]} != embed_dim "
                             f"{self.embed_dim}")
        key = query if key is None else key
        value = query if value is None else value
        if cache is not None and not isinstance(cache, (self.Cache, self.StaticCache)):
            raise TypeError("MultiHeadAttention: cache must be a MultiHeadAttention.Cache or StaticCache, got "
                            f"{type(cache).__name__}")
        if cache is None:
            q, k, v = self._prepare_qkv(query, key, value, cache)
        else:
            q, k, v, cache = self._prepare_qkv(query, key, value, cache)
        product = _P.matmul(q * (self.head_dim ** -0.5), k, transpose_y=True)
        if attn_mask is not None:
            product = product + _convert_attention_mask(attn_mask, product.dtype)
        weights = F.softmax(product)
        if self.dropout:
            weights = F.dropout(weights, self.dropout, training=self.training, mode="upscale_in_train")
        out = _P.matmul(weights, v)
        out = _P.transpose(out, [0, 2, 1, 3])
        out = _P.reshape(out, [0, 0, out.shape[2] * out.shape[3]])
        out = self.out_proj(out)
        outs = [out]
        if self.need_weights:
            outs.append(weights)
        if cache is not None:
            outs.append(cache)
        return out if len(outs) == 1 else tuple(outs)


def _check_sizes(d_model, nhead, dim_feedforward):
    _require(d_model > 0, f"Expected d_model to be greater than 0, but received {d_model}")
    _require(nhead > 0, f"Expected nhead to be greater than 0, but received {nhead}")
    _require(dim_feedforward > 0, f"Expected dim_feedforward to be greater than 0, but received {dim_feedforward}")


class TransformerEncoderLayer(Layer):
    """Self-attention then feed-forward, each with residual, dropout and LayerNorm (post-norm by default)."""

    def __init__(self, d_model, nhead, dim_feedforward, dropout=0.1, activation="relu", attn_dropout=None,
                 act_dropout=None, normalize_before=False, weight_attr=None, bias_attr=None, layer_norm_eps=1e-5):
        # TransformerEncoder clones this layer from its constructor arguments.
        self._config = dict(d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward, dropout=dropout,
                            activation=activation, attn_dropout=attn_dropout, act_dropout=act_dropout,
                            normalize_before=normalize_before, weight_attr=weight_attr, bias_attr=bias_attr,
                            layer_norm_eps=layer_norm_eps)
        super().__init__()
        _check_sizes(d_model, nhead, dim_feedforward)
        attn_dropout = dropout if attn_dropout is None else attn_dropout
        act_dropout = dropout if act_dropout is None else act_dropout
        self.normalize_before = normalize_before
        weight_attrs = _convert_param_attr_to_list(weight_attr, 2)
        bias_attrs = _convert_param_attr_to_list(bias_attr, 2)
        self.self_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout, weight_attr=weight_attrs[0],
                                            bias_attr=bias_attrs[0])
        self.linear1 = Linear(d_model, dim_feedforward, weight_attrs[1], bias_attr=bias_attrs[1])
        self.dropout = Dropout(act_dropout, mode="upscale_in_train")
        self.linear2 = Linear(dim_feedforward, d_model, weight_attrs[1], bias_attr=bias_attrs[1])
        self.norm1 = LayerNorm(d_model, layer_norm_eps)
        self.norm2 = LayerNorm(d_model, layer_norm_eps)
        self.dropout1 = Dropout(dropout, mode="upscale_in_train")
        self.dropout2 = Dropout(dropout, mode="upscale_in_train")
        self.activation = _activation(activation)

    def forward(self, src, src_mask=None, cache=None):
        src_mask = _convert_attention_mask(src_mask, src.dtype)
        residual = src
        if self.normalize_before:
            src = self.norm1(src)
        if cache is None:
            src = self.self_attn(src, src, src, src_mask)
        else:
            src, incremental_cache = self.self_attn(src, src, src, src_mask, cache)
        src = residual + self.dropout1(src)
        if not self.normalize_before:
            src = self.norm1(src)
        residual = src
        if self.normalize_before:
            src = self.norm2(src)
        src = self.linear2(self.dropout(self.activation(self.linear1(src))))
        src = residual + self.dropout2(src)
        if not self.normalize_before:
            src = self.norm2(src)
        return src if cache is None else (src, incremental_cache)

    def gen_cache(self, src):
        return self.self_attn.gen_cache(src, type=self.self_attn.Cache)


class TransformerEncoder(Layer):
    """``num_layers`` encoder layers (the first is ``encoder_layer``, the rest fresh copies), then ``norm``."""

    def __init__(self, encoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = LayerList([encoder_layer if i == 0 else type(encoder_layer)(**encoder_layer._config)
                                 for i in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, src, src_mask=None, cache=None):
        src_mask = _convert_attention_mask(src_mask, src.dtype)
        output = src
        new_caches = []
        for i, layer in enumerate(self.layers):
            if cache is None:
                output = layer(output, src_mask=src_mask)
            else:
                output, new_cache = layer(output, src_mask=src_mask, cache=cache[i])
                new_caches.append(new_cache)
        if self.norm is not None:
            output = self.norm(output)
        return output if cache is None else (output, new_caches)

    def gen_cache(self, src):
        return [layer.gen_cache(src) for layer in self.layers]


class TransformerDecoderLayer(Layer):
    """Self-attention, cross-attention on ``memory``, feed-forward; residual, dropout, LayerNorm around each."""

    def __init__(self, d_model, nhead, dim_feedforward, dropout=0.1, activation="relu", attn_dropout=None,
                 act_dropout=None, normalize_before=False, weight_attr=None, bias_attr=None, layer_norm_eps=1e-5):
        self._config = dict(d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward, dropout=dropout,
                            activation=activation, attn_dropout=attn_dropout, act_dropout=act_dropout,
                            normalize_before=normalize_before, weight_attr=weight_attr, bias_attr=bias_attr,
                            layer_norm_eps=layer_norm_eps)
        super().__init__()
        _check_sizes(d_model, nhead, dim_feedforward)
        attn_dropout = dropout if attn_dropout is None else attn_dropout
        act_dropout = dropout if act_dropout is None else act_dropout
        self.normalize_before = normalize_before
        weight_attrs = _convert_param_attr_to_list(weight_attr, 3)
        bias_attrs = _convert_param_attr_to_list(bias_attr, 3)
        self.self_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout, weight_attr=weight_attrs[0],
                                            bias_attr=bias_attrs[0])
        self.cross_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout, weight_attr=weight_attrs[1],
                                             bias_attr=bias_attrs[1])
        self.linear1 = Linear(d_model, dim_feedforward, weight_attrs[2], bias_attr=bias_attrs[2])
        self.dropout = Dropout(act_dropout, mode="upscale_in_train")
        self.linear2 = Linear(dim_feedforward, d_model, weight_attrs[2], bias_attr=bias_attrs[2])
        self.norm1 = LayerNorm(d_model, layer_norm_eps)
        self.norm2 = LayerNorm(d_model, layer_norm_eps)
        self.norm3 = LayerNorm(d_model, layer_norm_eps)
        self.dropout1 = Dropout(dropout, mode="upscale_in_train")
        self.dropout2 = Dropout(dropout, mode="upscale_in_train")
        self.dropout3 = Dropout(dropout, mode="upscale_in_train")
        self.activation = _activation(activation)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        tgt_mask = _convert_attention_mask(tgt_mask, tgt.dtype)
        memory_mask = _convert_attention_mask(memory_mask, memory.dtype)
        residual = tgt
        if self.normalize_before:
            tgt = self.norm1(tgt)
        if cache is None:
            tgt = self.self_attn(tgt, tgt, tgt, tgt_mask, None)
        else:
            tgt, incremental_cache = self.self_attn(tgt, tgt, tgt, tgt_mask, cache[0])
        tgt = residual + self.dropout1(tgt)
        if not self.normalize_before:
            tgt = self.norm1(tgt)
        residual = tgt
        if self.normalize_before:
            tgt = self.norm2(tgt)
        if cache is None:
            tgt = self.cross_attn(tgt, memory, memory, memory_mask, None)
        else:
            tgt, static_cache = self.cross_attn(tgt, memory, memory, memory_mask, cache[1])
        tgt = residual + self.dropout2(tgt)
        if not self.normalize_before:
            tgt = self.norm2(tgt)
        residual = tgt
        if self.normalize_before:
            tgt = self.norm3(tgt)
        tgt = self.linear2(self.dropout(self.activation(self.linear1(tgt))))
        tgt = residual + self.dropout3(tgt)
        if not self.normalize_before:
            tgt = self.norm3(tgt)
        return tgt if cache is None else (tgt, (incremental_cache, static_cache))

    def gen_cache(self, memory):
        """(empty incremental Cache for self-attention, StaticCache of ``memory`` for cross-attention)."""
        incremental_cache = self.self_attn.gen_cache(memory, type=self.self_attn.Cache)
        static_cache = self.cross_attn.gen_cache(memory, memory, type=self.cross_attn.StaticCache)
        return incremental_cache, static_cache


class TransformerDecoder(Layer):
    """``num_layers`` decoder layers (the first is ``decoder_layer``, the rest fresh copies), then ``norm``."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = LayerList([decoder_layer if i == 0 else type(decoder_layer)(**decoder_layer._config)
                                 for i in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        tgt_mask = _convert_attention_mask(tgt_mask, tgt.dtype)
        memory_mask = _convert_attention_mask(memory_mask, memory.dtype)
        output = tgt
        new_caches = []
        for i, layer in enumerate(self.layers):
            if cache is None:
                output = layer(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask, cache=None)
            else:
                output, new_cache = layer(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                                          cache=cache[i])
                new_caches.append(new_cache)
        if self.norm is not None:
            output = self.norm(output)
        return output if cache is None else (output, new_caches)

    def gen_cache(self, memory, do_zip=False):
        cache = [layer.gen_cache(memory) for layer in self.layers]
        return list(zip(*cache)) if do_zip else cache


def _split_attrs(attr, what):
    """Transformer's weight_attr/bias_attr: a list of 1, 2 or 3 -> (encoder attrs, decoder attrs)."""
    if not isinstance(attr, (list, tuple)):
        return attr, attr
    if len(attr) == 1:
        return [attr[0]] * 2, [attr[0]] * 3
    if len(attr) == 2:
        return attr, [attr[0], attr[0], attr[-1]]
    if len(attr) == 3:
        return [attr[0], attr[-1]], attr
    raise PaddleAssertionError(f"length of {what} should be 1 or 2 or 3 when it is a list/tuple")


class Transformer(Layer):
    """Encoder-decoder Transformer; each stack ends with a LayerNorm."""

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048,
                 dropout=0.1, activation="relu", attn_dropout=None, act_dropout=None, normalize_before=False,
                 weight_attr=None, bias_attr=None, custom_encoder=None, custom_decoder=None):
        super().__init__()
        _check_sizes(d_model, nhead, dim_feedforward)
        encoder_bias_attr, decoder_bias_attr = _split_attrs(bias_attr, "bias_attr")
        encoder_weight_attr, decoder_weight_attr = _split_attrs(weight_attr, "weight_attr")
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            encoder_layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                                    attn_dropout, act_dropout, normalize_before,
                                                    encoder_weight_attr, encoder_bias_attr)
            self.encoder = TransformerEncoder(encoder_layer, num_encoder_layers, LayerNorm(d_model))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            decoder_layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                                    attn_dropout, act_dropout, normalize_before,
                                                    decoder_weight_attr, decoder_bias_attr)
            self.decoder = TransformerDecoder(decoder_layer, num_decoder_layers, LayerNorm(d_model))
        self.d_model = d_model
        self.nhead = nhead

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None):
        src_mask = _convert_attention_mask(src_mask, src.dtype)
        memory = self.encoder(src, src_mask=src_mask)
        tgt_mask = _convert_attention_mask(tgt_mask, tgt.dtype)
        memory_mask = _convert_attention_mask(memory_mask, memory.dtype)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask)

    def generate_square_subsequent_mask(self, length):
        """[length, length] float mask: 0 on and below the diagonal, -inf above."""
        if isinstance(length, Tensor):
            length = int(length.item())
        mask = _P.full([length, length], -np.inf, dtype=_dtype.get_default_dtype())
        return _P.triu(mask, 1)

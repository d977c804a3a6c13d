"""_C_ops: normalisation, dropout, convolution, pooling, embedding, losses and resampling."""
from .. import ops as _ops
from .. import tensor as _pt
from ._common import _F, _ints, _op, _register


@_op
def layer_norm(x, scale, bias, epsilon=1e-5, begin_norm_axis=1):
    return _ops.layer_norm(x, scale, bias, epsilon=float(epsilon), begin_norm_axis=int(begin_norm_axis))[0]


@_op
def group_norm(x, scale, bias, epsilon=1e-5, groups=-1, data_format="NCHW"):
    return _ops.group_norm(x, scale, bias, epsilon=float(epsilon), groups=int(groups), data_layout=data_format)[0]


@_op
def instance_norm(x, scale, bias, epsilon=1e-5):
    return _ops.instance_norm(x, scale, bias, epsilon=float(epsilon))[0]


@_op
def batch_norm(x, mean, variance, scale, bias, is_test, momentum, epsilon, data_format, use_global_stats,
               trainable_statistics):
    """-> (out, mean_out, variance_out, saved_mean, saved_variance, reserve_space); in training the running
    ``mean``/``variance`` are updated in place and returned as mean_out/variance_out, as in Paddle."""
    outs = _ops.batch_norm(x, scale, bias, mean, variance, momentum=float(momentum), epsilon=float(epsilon),
                           data_layout=data_format, is_test=bool(is_test), use_global_stats=bool(use_global_stats),
                           trainable_statistics=bool(trainable_statistics), fuse_with_relu=False)
    if outs[5] is None:
        # Paddle's CPU kernel gives an empty reserve_space (cuDNN's workspace on GPU): uint8 in training,
        # x's dtype in inference
        outs = outs[:5] + (_pt.empty([0], x.dtype if is_test else "uint8"),)
    return outs


@_op
def dropout(x, seed_tensor, p=0.5, is_test=False, mode="downgrade_in_infer", seed=0, fix_seed=False):
    return _ops.dropout(x, seed_tensor, dropout_prob=float(p), is_test=bool(is_test), dropout_implementation=mode,
                        seed=int(seed), fix_seed=bool(fix_seed))[0]


def _conv_args(op, input, filter, strides, paddings, padding_algorithm, groups, dilations, data_format):
    return op(input, filter, strides=_ints(strides), paddings=_ints(paddings),
              padding_algorithm=padding_algorithm, groups=int(groups), dilations=_ints(dilations),
              data_format=data_format)


@_op
def conv2d(input, filter, strides=(1, 1), paddings=(0, 0), padding_algorithm="EXPLICIT", dilations=(1, 1),
           groups=1, data_format="NCHW"):
    # NOTE: conv2d takes dilations before groups; depthwise_conv2d and conv3d take groups first
    return _conv_args(_ops.conv2d, input, filter, strides, paddings, padding_algorithm, groups, dilations,
                      data_format)


@_op
def depthwise_conv2d(input, filter, strides=(1, 1), paddings=(0, 0), padding_algorithm="EXPLICIT", groups=1,
                     dilations=(1, 1), data_format="NCHW"):
    return _conv_args(_ops.depthwise_conv2d, input, filter, strides, paddings, padding_algorithm, groups, dilations,
                      data_format)


@_op
def conv3d(input, filter, strides=(1, 1, 1), paddings=(0, 0, 0), padding_algorithm="EXPLICIT", groups=1,
           dilations=(1, 1, 1), data_format="NCDHW"):
    return _conv_args(_ops.conv3d, input, filter, strides, paddings, padding_algorithm, groups, dilations,
                      data_format)


def _conv_transpose(name, op, dims):
    def call(x, filter, strides=(1,) * dims, paddings=(0,) * dims, output_padding=(), output_size=(),
             padding_algorithm="EXPLICIT", groups=1, dilations=(1,) * dims, data_format="NCHW" if dims == 2
             else "NCDHW"):
        return op(x, filter, strides=_ints(strides), paddings=_ints(paddings), output_padding=_ints(output_padding),
                  output_size=_ints(output_size), padding_algorithm=padding_algorithm, groups=int(groups),
                  dilations=_ints(dilations), data_format=data_format)
    return _register(name, call)


_conv_transpose("conv2d_transpose", _ops.conv2d_transpose, 2)
_conv_transpose("depthwise_conv2d_transpose", _ops.depthwise_conv2d_transpose, 2)
_conv_transpose("conv3d_transpose", _ops.conv3d_transpose, 3)


def _pool(name, op):
    def call(x, kernel_size, strides, paddings, ceil_mode, exclusive, data_format, pooling_type, global_pooling,
             adaptive, padding_algorithm):
        return op(x, pooling_type=pooling_type, ksize=_ints(kernel_size), global_pooling=bool(global_pooling),
                  strides=_ints(strides), paddings=_ints(paddings), exclusive=bool(exclusive),
                  adaptive=bool(adaptive), ceil_mode=bool(ceil_mode), data_format=data_format,
                  padding_algorithm=padding_algorithm)
    return _register(name, call)


_pool("pool2d", _ops.pool2d)
_pool("pool3d", _ops.pool3d)


@_op
def max_pool2d_with_index(x, kernel_size, strides=(1, 1), paddings=(0, 0), global_pooling=False, adaptive=False,
                          ceil_mode=False):
    """-> (out, mask)"""
    return _ops.max_pool2d_with_index(x, ksize=_ints(kernel_size), global_pooling=bool(global_pooling),
                                      strides=_ints(strides), paddings=_ints(paddings), adaptive=bool(adaptive),
                                      ceil_mode=bool(ceil_mode))


@_op
def embedding(x, weight, padding_idx=-1, sparse=False):
    return _ops.lookup_table_v2(x, weight, is_sparse=bool(sparse), padding_idx=int(padding_idx))


@_op
def cross_entropy_with_softmax(input, label, soft_label=False, use_softmax=True, numeric_stable_mode=True,
                               ignore_index=-100, axis=-1):
    """-> (softmax, loss)"""
    return _ops.softmax_with_cross_entropy(input, label, soft_label=bool(soft_label), ignore_index=int(ignore_index),
                                           numeric_stable_mode=bool(numeric_stable_mode), axis=int(axis),
                                           use_softmax=bool(use_softmax))


@_op
def sigmoid_cross_entropy_with_logits(x, label, pos_weight=None, normalize=False, ignore_index=-100):
    return _ops.sigmoid_cross_entropy_with_logits(x, label, pos_weight, normalize=bool(normalize),
                                                  ignore_index=int(ignore_index))


@_op
def nll_loss(input, label, weight=None, ignore_index=-100, reduction="mean"):
    """-> (out, total_weight)"""
    return _ops.nll_loss(input, label, weight, ignore_index=int(ignore_index), reduction=reduction)


@_op
def kldiv_loss(x, label, reduction="mean", log_target=False):
    return _ops.kldiv_loss(x, label, reduction=reduction, log_target=bool(log_target))


@_op
def huber_loss(input, label, delta):
    return _ops.huber_loss(input, label, delta=float(delta))[0]


@_op
def label_smooth(label, prior_dist=None, epsilon=0.0):
    return _ops.label_smooth(label, prior_dist, epsilon=float(epsilon))


def _interp(method):
    name = f"{method}_interp"
    op = getattr(_ops, f"{method}_interp_v2")

    def call(x, out_size=None, size_tensor=None, scale_tensor=None, data_format="NCHW", out_d=0, out_h=0, out_w=0,
             scale=(), interp_method=method, align_corners=True, align_mode=1):
        if size_tensor:
            sizes = [int(s) for s in size_tensor]
            out_d, out_h, out_w = ([0, 0, 0] + sizes)[-3:] if len(sizes) < 3 else sizes
            out_size = None
        scale = [float(s) for s in (scale_tensor.reshape([-1]).tolist() if scale_tensor is not None else scale)]
        # Paddle's op uses -1 for "not given" where the _C_ops signature uses 0
        return op(x, out_size, None, data_layout=data_format, out_d=out_d if out_d > 0 else -1,
                  out_h=out_h if out_h > 0 else -1, out_w=out_w if out_w > 0 else -1, scale=scale,
                  interp_method=interp_method, align_corners=bool(align_corners), align_mode=int(align_mode))
    return _register(name, call)


for _method in ("linear", "bilinear", "trilinear", "nearest", "bicubic"):
    _interp(_method)


@_op
def pixel_shuffle(x, upscale_factor=1, data_format="NCHW"):
    return _F.pixel_shuffle(x, upscale_factor, data_format)


del _method

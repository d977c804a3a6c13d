"""Activation and common layer cases, run on real PaddlePaddle 3.3.1 (``python -m tests.nn.basic_layer_cases
OUT.pkl``) and on torchpaddle by tests/nn/test_basic_layers.py: repr, state_dict (keys, shapes, names), outputs,
input and parameter gradients with the same weights, initializer statistics and construction errors."""
import functools
import sys

import numpy as np

from tests.nn.layer_case_tools import (catch, dump, fill_state, grad_of, init_stats, layer_case, record,
                                       stable_seed, state_summary)

# name -> (constructor over paddle.nn, input shapes); one input, float32 in [-2, 2]
ACTIVATIONS = {
    "celu": (lambda nn: nn.CELU(alpha=0.5), [(3, 4)]),
    "elu": (lambda nn: nn.ELU(), [(3, 4)]),
    "elu_alpha": (lambda nn: nn.ELU(0.3, name="e"), [(2, 3, 4)]),
    "gelu": (lambda nn: nn.GELU(), [(3, 4)]),
    "gelu_tanh": (lambda nn: nn.GELU(True), [(3, 4)]),
    "glu": (lambda nn: nn.GLU(), [(3, 4)]),
    "glu_axis": (lambda nn: nn.GLU(axis=1), [(2, 6, 3)]),
    "hardshrink": (lambda nn: nn.Hardshrink(), [(3, 5)]),
    "hardshrink_threshold": (lambda nn: nn.Hardshrink(0.8), [(3, 5)]),
    "hardsigmoid": (lambda nn: nn.Hardsigmoid(), [(4, 5)]),
    "hardswish": (lambda nn: nn.Hardswish(), [(4, 5)]),
    "hardtanh": (lambda nn: nn.Hardtanh(-0.5, 0.7), [(4, 5)]),
    "leaky_relu": (lambda nn: nn.LeakyReLU(), [(4, 5)]),
    "leaky_relu_slope": (lambda nn: nn.LeakyReLU(0.2), [(4, 5)]),
    "log_sigmoid": (lambda nn: nn.LogSigmoid(), [(4, 5)]),
    "log_softmax": (lambda nn: nn.LogSoftmax(), [(3, 5)]),
    "log_softmax_axis0": (lambda nn: nn.LogSoftmax(axis=0), [(3, 5)]),
    "maxout": (lambda nn: nn.Maxout(2), [(2, 4, 3, 3)]),
    "maxout_last_axis": (lambda nn: nn.Maxout(3, axis=-1), [(2, 3, 2, 6)]),
    "mish": (lambda nn: nn.Mish(), [(4, 5)]),
    "prelu": (lambda nn: nn.PReLU(), [(2, 3, 4)]),
    "prelu_channels": (lambda nn: nn.PReLU(3, 0.1), [(2, 3, 4, 4)]),
    "prelu_nhwc": (lambda nn: nn.PReLU(3, data_format="NHWC"), [(2, 4, 4, 3)]),
    "relu": (lambda nn: nn.ReLU(), [(4, 5)]),
    "relu6": (lambda nn: nn.ReLU6(), [(4, 5)]),
    "selu": (lambda nn: nn.SELU(), [(4, 5)]),
    "selu_params": (lambda nn: nn.SELU(1.5, 2.0), [(4, 5)]),
    "sigmoid": (lambda nn: nn.Sigmoid(), [(4, 5)]),
    "silu": (lambda nn: nn.Silu(), [(4, 5)]),
    "softmax": (lambda nn: nn.Softmax(), [(3, 5)]),
    "softmax_axis1": (lambda nn: nn.Softmax(axis=1), [(2, 3, 4)]),
    "softmax2d": (lambda nn: nn.Softmax2D(), [(2, 3, 4, 4)]),
    "softmax2d_3d": (lambda nn: nn.Softmax2D(), [(3, 4, 4)]),
    "softplus": (lambda nn: nn.Softplus(), [(4, 5)]),
    "softplus_params": (lambda nn: nn.Softplus(2, 1.5), [(4, 5)]),
    "softshrink": (lambda nn: nn.Softshrink(), [(4, 5)]),
    "softshrink_threshold": (lambda nn: nn.Softshrink(0.8), [(4, 5)]),
    "softsign": (lambda nn: nn.Softsign(), [(4, 5)]),
    "swish": (lambda nn: nn.Swish(), [(4, 5)]),
    "tanh": (lambda nn: nn.Tanh(), [(4, 5)]),
    "tanhshrink": (lambda nn: nn.Tanhshrink(), [(4, 5)]),
    "thresholded_relu": (lambda nn: nn.ThresholdedReLU(), [(4, 5)]),
    "thresholded_relu_value": (lambda nn: nn.ThresholdedReLU(0.5, 2.0), [(4, 5)]),
}

COMMON = {
    "linear": (lambda nn: nn.Linear(3, 4), [(2, 3), (2, 5, 3)]),
    "linear_no_bias": (lambda nn: nn.Linear(3, 4, bias_attr=False, name="fc"), [(2, 3)]),
    "identity": (lambda nn: nn.Identity(3, foo=1), [(2, 3)]),
    "flatten": (lambda nn: nn.Flatten(), [(2, 3, 4, 5)]),
    "flatten_axes": (lambda nn: nn.Flatten(0, 1), [(2, 3, 4)]),
    "unflatten": (lambda nn: nn.Unflatten(1, [2, 3]), [(4, 6, 2)]),
    "pad1d": (lambda nn: nn.Pad1D([1, 2]), [(2, 3, 5)]),
    "pad1d_int_reflect": (lambda nn: nn.Pad1D(2, mode="reflect"), [(2, 3, 5)]),
    "pad2d_constant": (lambda nn: nn.Pad2D([1, 0, 2, 1], value=1.5), [(2, 3, 4, 4)]),
    "pad2d_replicate_nhwc": (lambda nn: nn.Pad2D(1, mode="replicate", data_format="NHWC"), [(2, 4, 4, 3)]),
    "pad2d_circular": (lambda nn: nn.Pad2D([1, 2, 1, 0], mode="circular"), [(1, 2, 4, 5)]),
    "pad3d": (lambda nn: nn.Pad3D([1, 0, 0, 1, 1, 1]), [(1, 2, 3, 3, 3)]),
    "zero_pad2d": (lambda nn: nn.ZeroPad2D([1, 2, 0, 1]), [(2, 2, 3, 3)]),
    "constant_pad1d": (lambda nn: nn.ConstantPad1D(2, -1.0), [(2, 3, 4)]),
    "reflection_pad2d": (lambda nn: nn.ReflectionPad2D(1), [(2, 2, 4, 4)]),
    "replication_pad3d": (lambda nn: nn.ReplicationPad3D(1), [(1, 2, 2, 3, 3)]),
    "circular_pad1d": (lambda nn: nn.CircularPad1D([1, 2]), [(2, 2, 5)]),
    "upsample_nearest": (lambda nn: nn.Upsample(scale_factor=2), [(1, 2, 3, 3)]),
    "upsample_bilinear_size": (lambda nn: nn.Upsample(size=[5, 7], mode="bilinear"), [(1, 2, 3, 4)]),
    "upsample_bilinear_align": (lambda nn: nn.Upsample(scale_factor=2, mode="BILINEAR", align_corners=True),
                                [(1, 1, 3, 3)]),
    "upsample_linear_1d": (lambda nn: nn.Upsample(scale_factor=2, mode="linear"), [(2, 3, 4)]),
    "upsample_trilinear": (lambda nn: nn.Upsample(size=[4, 4, 4], mode="trilinear"), [(1, 1, 2, 3, 2)]),
    "upsample_bicubic": (lambda nn: nn.Upsample(scale_factor=1.5, mode="bicubic"), [(1, 1, 4, 4)]),
    "upsampling_nearest2d": (lambda nn: nn.UpsamplingNearest2D(size=5), [(1, 2, 3, 3)]),
    "upsampling_bilinear2d": (lambda nn: nn.UpsamplingBilinear2D(scale_factor=2.0), [(1, 2, 3, 3)]),
    "pixel_shuffle": (lambda nn: nn.PixelShuffle(2), [(1, 8, 3, 3)]),
    "pixel_shuffle_nhwc": (lambda nn: nn.PixelShuffle(2, "NHWC"), [(1, 3, 3, 8)]),
    "pixel_unshuffle": (lambda nn: nn.PixelUnshuffle(2), [(1, 2, 4, 6)]),
    "channel_shuffle": (lambda nn: nn.ChannelShuffle(3), [(1, 6, 2, 2)]),
    "unfold": (lambda nn: nn.Unfold([2, 3]), [(2, 3, 4, 5)]),
    "unfold_strided": (lambda nn: nn.Unfold(2, dilations=1, paddings=1, strides=2), [(1, 2, 5, 5)]),
    "fold": (lambda nn: nn.Fold([4, 5], [2, 2]), [(2, 12, 12)]),
    "dropout_eval": (lambda nn: nn.Dropout(0.3).eval(), [(4, 5)]),
    "dropout_downscale_eval": (lambda nn: nn.Dropout(0.3, mode="downscale_in_infer").eval(), [(4, 5)]),
    "dropout_p0_train": (lambda nn: nn.Dropout(0.0), [(4, 5)]),
    "dropout_p1_train": (lambda nn: nn.Dropout(1.0), [(4, 5)]),
    "dropout2d_eval": (lambda nn: nn.Dropout2D().eval(), [(2, 3, 4, 4)]),
    "dropout3d_eval": (lambda nn: nn.Dropout3D().eval(), [(2, 3, 2, 2, 2)]),
    "alpha_dropout_eval": (lambda nn: nn.AlphaDropout(0.2).eval(), [(4, 5)]),
    "feature_alpha_dropout_eval": (lambda nn: nn.FeatureAlphaDropout(0.2).eval(), [(2, 3, 4)]),
    "rrelu_eval": (lambda nn: nn.RReLU(0.1, 0.3).eval(), [(4, 5)]),
}

# layers taking other inputs: name -> (constructor, [(shape, dtype, low, high, differentiable), ...])
MULTI = {
    "bilinear": (lambda nn: nn.Bilinear(3, 4, 5), [((6, 3), "float32", -1, 1, True), ((6, 4), "float32", -1, 1, True)]),
    "bilinear_no_bias": (lambda nn: nn.Bilinear(2, 3, 4, bias_attr=False), [((5, 2), "float32", -1, 1, True),
                                                                           ((5, 3), "float32", -1, 1, True)]),
    "cosine_similarity": (lambda nn: nn.CosineSimilarity(), [((3, 4, 2), "float32", -1, 1, True),
                                                             ((3, 4, 2), "float32", -1, 1, True)]),
    "cosine_similarity_axis": (lambda nn: nn.CosineSimilarity(axis=-1, eps=1e-6),
                               [((3, 4), "float32", -1, 1, True), ((1, 4), "float32", -1, 1, True)]),
    "pairwise_distance": (lambda nn: nn.PairwiseDistance(), [((4, 5), "float32", -1, 1, True),
                                                             ((4, 5), "float32", -1, 1, True)]),
    "pairwise_distance_p1_keepdim": (lambda nn: nn.PairwiseDistance(1.0, 1e-5, True),
                                     [((4, 5), "float32", -1, 1, True), ((4, 5), "float32", -1, 1, True)]),
    "embedding": (lambda nn: nn.Embedding(10, 4), [((3, 5), "int64", 0, 10, False)]),
    "embedding_padding": (lambda nn: nn.Embedding(10, 4, padding_idx=2), [((4, 6), "int64", 0, 4, False)]),
    "embedding_padding_neg": (lambda nn: nn.Embedding(6, 3, padding_idx=-1), [((2, 8), "int64", 0, 6, False)]),
    # (sparse=True gives SelectedRows gradients in Paddle, which have no dense counterpart to compare)
    "embedding_int32": (lambda nn: nn.Embedding(7, 2), [((5,), "int32", 0, 7, False)]),
}

INITS = {
    "init_linear": lambda nn: nn.Linear(120, 80),
    "init_embedding": lambda nn: nn.Embedding(500, 40),
    "init_bilinear": lambda nn: nn.Bilinear(20, 30, 16),
    "init_prelu": lambda nn: nn.PReLU(4000, 0.3),
}

# constructions (and optional forward input shape) that must fail like Paddle
ERRORS = {
    "err_linear_torch_bias": (lambda nn: nn.Linear(2, 3, bias=False), None),
    "err_unfold_torch_kernel": (lambda nn: nn.Unfold(kernel_size=2), None),
    "err_embedding_zero": (lambda nn: nn.Embedding(0, 3), None),
    "err_embedding_dim": (lambda nn: nn.Embedding(3, -1), None),
    "err_embedding_padding": (lambda nn: nn.Embedding(3, 2, padding_idx=3), None),
    "err_pixel_shuffle_float": (lambda nn: nn.PixelShuffle(2.0), None),
    "err_pixel_shuffle_format": (lambda nn: nn.PixelShuffle(2, "NCL"), None),
    "err_pixel_unshuffle_zero": (lambda nn: nn.PixelUnshuffle(0), None),
    "err_channel_shuffle_negative": (lambda nn: nn.ChannelShuffle(-2), None),
    "err_softmax2d_rank": (lambda nn: nn.Softmax2D(), (3, 4)),
    "err_upsample_rank": (lambda nn: nn.Upsample(scale_factor=2), (1, 1, 1, 1, 1, 1)),
    "err_maxout_groups": (lambda nn: nn.Maxout(3), (2, 4, 3)),
    "err_prelu_channels": (lambda nn: nn.PReLU(3), (2, 4, 5)),
    "err_linear_shape": (lambda nn: nn.Linear(3, 4), (2, 5)),
    "err_glu_odd": (lambda nn: nn.GLU(), (2, 3)),
}


def multi_case(paddle, name, make, inputs):
    rng = np.random.default_rng(stable_seed(name))
    with paddle.utils.unique_name.guard():
        layer = make(paddle.nn)
    result = {"repr": str(layer), "state": state_summary(layer)}
    fill_state(layer, rng)
    tensors = []
    for shape, dtype, low, high, differentiable in inputs:
        data = rng.integers(low, high, shape) if "int" in dtype else rng.uniform(low, high, shape)
        tensors.append(paddle.to_tensor(data.astype(dtype), stop_gradient=not differentiable))
    out = layer(*tensors)
    weights = paddle.to_tensor(rng.uniform(-1, 1, list(out.shape)).astype("float32"))
    (out * weights).sum().backward()
    result["out"] = record(out)
    result["input_grads"] = [grad_of(t) for t in tensors]
    result["param_grads"] = {n: grad_of(p) for n, p in layer.named_parameters()}
    return result


def error_case(paddle, make, shape):
    def run():
        layer = make(paddle.nn)
        return "constructed" if shape is None else layer(paddle.to_tensor(np.zeros(shape, "float32")))
    return catch(run)


def c_reprs(paddle):
    """repr of layers built with non-default arguments (forwards need not run)."""
    nn = paddle.nn
    with paddle.utils.unique_name.guard():
        layers = [nn.Upsample(scale_factor=2), nn.Upsample(size=[3, 4], mode="Bilinear", data_format="NHWC", name="u"),
                  nn.UpsamplingNearest2D(size=4), nn.UpsamplingBilinear2D(scale_factor=[2, 3]), nn.Dropout(),
                  nn.Dropout(0.2, axis=[0, 1], mode="downscale_in_infer", name="d"), nn.Dropout2D(0.1, "NHWC"),
                  nn.Dropout3D(name="d3"), nn.AlphaDropout(0.2), nn.FeatureAlphaDropout(name="f"), nn.Pad1D(2),
                  nn.Pad2D([1, 2, 3, 4], mode="reflect", name="p"), nn.Pad3D(1, value=2.0), nn.ZeroPad3D(1),
                  nn.ConstantPad2D(1, 2.0), nn.ReflectionPad1D([1, 2]), nn.ReplicationPad2D(2), nn.CircularPad3D(1),
                  nn.ZeroPad1d(1), nn.CosineSimilarity(), nn.CosineSimilarity(dim=0, eps=1e-3),
                  nn.PairwiseDistance(), nn.PairwiseDistance(3, 1e-5, True, "nm"), nn.PairwiseDistance(eps=1e-3),
                  nn.Unfold([2, 2], name="u"), nn.Fold([4, 4], 2), nn.Fold(output_size=[4, 4], kernel_size=2),
                  nn.Flatten(), nn.Unflatten(1, [2, 3], name="un"), nn.Identity(), nn.PixelShuffle(2, "NHWC"),
                  nn.PixelUnshuffle(3, name="pu"), nn.ChannelShuffle(2), nn.Embedding(5, 2, padding_idx=-1, name="e"),
                  nn.Embedding(4, 3, sparse=True), nn.Linear(2, 3, name="lin"), nn.Bilinear(2, 3, 4, name="b"),
                  nn.GLU(dim=2), nn.Hardshrink(lambd=0.3), nn.Softshrink(lambd=0.2), nn.Silu(), nn.SiLU(name="s"),
                  nn.Softmax2D(name="sm"), nn.RReLU(name="r"), nn.PReLU(name="p"), nn.Sigmoid(name="sg"),
                  nn.ReLU(name="r")]
        return [repr(layer) for layer in layers]


def c_aliases_and_attributes(paddle):
    nn = paddle.nn
    with paddle.utils.unique_name.guard():
        fold = nn.Fold(output_size=[4, 4], kernel_size=2, stride=1)
        pd = nn.PairwiseDistance(eps=1e-3)
        emb = nn.Embedding(4, 2, padding_idx=1)
        up = nn.Upsample(scale_factor=2)
        up(paddle.ones([1, 1, 2, 2]))
        return {"same_classes": [nn.SiLU is nn.Silu, nn.ZeroPad2d is nn.ZeroPad2D,
                                 nn.UpsamplingBilinear2d is nn.UpsamplingBilinear2D, nn.HuberLoss is nn.SmoothL1Loss,
                                 issubclass(nn.ZeroPad2D, nn.Pad2D), issubclass(nn.CircularPad1D, nn.Pad1D)],
                "fold": [fold.output_size, fold.kernel_size, fold.stride, fold.padding, fold.dilation],
                "pairwise": [pd.eps, pd.norm, pd.epsilon], "glu_dim": nn.GLU(dim=3).dim,
                "hardshrink_lambd": nn.Hardshrink(0.7).lambd, "embedding_padding_idx": emb.padding_idx,
                "embedding_row": emb.weight[1], "upsample_format_after_call": up.data_format,
                "cosine_dim": nn.CosineSimilarity(axis=2).dim,
                "pad_attr": [nn.Pad2D(1).padding, nn.Pad1D([1, 2]).padding]}


def c_embedding_weight_options(paddle):
    nn = paddle.nn
    with paddle.utils.unique_name.guard():
        maker = nn.Layer()
        param = maker.create_parameter([3, 2], default_initializer=nn.initializer.Constant(0.5))
        frozen = nn.Embedding(3, 2, _weight=param, _freeze=True)
        plain = nn.Embedding(3, 2, _weight=paddle.ones([3, 2]))
        attr = nn.Embedding(3, 2, weight_attr=paddle.ParamAttr(name="emb_w", initializer=nn.initializer.Constant(2.0)),
                            _freeze=True)
        return {"frozen": (frozen.weight.stop_gradient, frozen.weight is param, state_summary(frozen)),
                "plain_buffer": ([k for k, _ in plain.named_buffers()], [k for k, _ in plain.named_parameters()]),
                "attr": (attr.weight.stop_gradient, attr.weight.name, attr.weight),
                "bad_weight_shape": catch(lambda: nn.Embedding(3, 2, _weight=paddle.ones([2, 2])))}


def c_dropout_train_statistics(paddle):
    """Training-mode dropouts: which elements/channels are dropped is random, the rules are not."""
    nn = paddle.nn
    paddle.seed(3)
    x = paddle.ones([200, 100])
    up = nn.Dropout(0.25)(x).numpy()
    down = nn.Dropout(0.25, mode="downscale_in_infer")(x).numpy()
    axis = nn.Dropout(0.5, axis=1)(x).numpy()
    ch = nn.Dropout2D(0.5)(paddle.ones([20, 30, 2, 2])).numpy()
    alpha = nn.AlphaDropout(0.2)(paddle.to_tensor(np.random.default_rng(0).standard_normal([200, 100])
                                                  .astype("float32"))).numpy()
    return {"upscale_values": sorted(set(np.round(up.ravel(), 5).tolist())),
            "upscale_kept": ("S", np.array([(up != 0).mean() / 0.75])),
            "downscale_values": sorted(set(down.ravel().tolist())),
            "axis_columns_uniform": bool(all(len(set(axis[:, j])) == 1 for j in range(axis.shape[1]))),
            "channel_uniform": bool(all(len(set(ch[n, c].ravel())) == 1 for n in range(20) for c in range(30))),
            "alpha_moments": ("S", np.array([alpha.mean() + 1, alpha.std()]))}


CASES = {name: functools.partial(layer_case, name=name, make=make, shapes=shapes)
         for name, (make, shapes) in {**ACTIVATIONS, **COMMON}.items()}
CASES.update({name: functools.partial(multi_case, name=name, make=make, inputs=inputs)
              for name, (make, inputs) in MULTI.items()})
CASES.update({name: functools.partial(init_stats, make=make) for name, make in INITS.items()})
CASES.update({name: functools.partial(error_case, make=make, shape=shape) for name, (make, shape) in ERRORS.items()})
CASES.update({name[2:]: fn for name, fn in sorted(globals().items()) if name.startswith("c_")})


if __name__ == "__main__":
    dump(CASES, sys.argv[1])

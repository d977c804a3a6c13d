"""Normalization layer cases, run on real PaddlePaddle 3.3.1 (``python -m tests.nn.norm_layer_cases OUT.pkl``)
and on torchpaddle by tests/nn/test_norm_layers.py. Batch-norm cases take three training steps (running
statistics recorded after each) and one evaluation step."""
import functools
import sys

import numpy as np

from tests.nn.layer_case_tools import catch, dump, init_stats, layer_case, state_summary

_TRAIN3_EVAL = 4  # three train steps + one eval step over the same input shape

# name -> (constructor over paddle.nn, input shape, steps, evaluate on the last step)
LAYERS = {
    "bn1d_ncl": (lambda nn: nn.BatchNorm1D(3), (4, 3, 5), _TRAIN3_EVAL, True),
    "bn1d_nc": (lambda nn: nn.BatchNorm1D(3, momentum=0.8, epsilon=1e-3), (6, 3), _TRAIN3_EVAL, True),
    "bn1d_nlc_named": (lambda nn: nn.BatchNorm1D(3, data_format="NLC", name="bn"), (4, 5, 3), _TRAIN3_EVAL, True),
    "bn2d": (lambda nn: nn.BatchNorm2D(3), (4, 3, 4, 5), _TRAIN3_EVAL, True),
    "bn2d_nhwc_momentum": (lambda nn: nn.BatchNorm2D(3, momentum=0.5, data_format="NHWC"), (4, 4, 5, 3),
                           _TRAIN3_EVAL, True),
    "bn2d_global_stats": (lambda nn: nn.BatchNorm2D(3, use_global_stats=True), (2, 3, 4, 4), 3, True),
    "bn2d_eval_batch_stats": (lambda nn: nn.BatchNorm2D(3, use_global_stats=False), (2, 3, 4, 4), 2, True),
    "bn2d_no_affine": (lambda nn: nn.BatchNorm2D(3, weight_attr=False, bias_attr=False), (2, 3, 4, 4), 3, True),
    "bn3d": (lambda nn: nn.BatchNorm3D(2), (2, 2, 3, 4, 4), _TRAIN3_EVAL, True),
    "bn3d_ndhwc": (lambda nn: nn.BatchNorm3D(2, data_format="NDHWC"), (2, 3, 4, 4, 2), 3, True),
    "batchnorm_fluid": (lambda nn: nn.BatchNorm(3), (4, 3, 4, 4), _TRAIN3_EVAL, True),
    "batchnorm_fluid_act_nhwc": (lambda nn: nn.BatchNorm(3, act="relu", data_layout="NHWC", momentum=0.7),
                                 (4, 4, 4, 3), _TRAIN3_EVAL, True),
    "batchnorm_fluid_is_test": (lambda nn: nn.BatchNorm(3, is_test=True, act="sigmoid"), (2, 3, 4, 4), 2, False),
    "batchnorm_fluid_trainable_statistics": (lambda nn: nn.BatchNorm(3, is_test=True, trainable_statistics=True),
                                             (2, 3, 4, 4), 2, False),
    "batchnorm_fluid_global_stats": (lambda nn: nn.BatchNorm(3, use_global_stats=True), (2, 3, 4, 4), 2, False),
    "batchnorm_fluid_named_2d": (lambda nn: nn.BatchNorm(4, moving_mean_name="mm", moving_variance_name="mv",
                                                         param_attr=False), (5, 4), 3, True),
    "layernorm": (lambda nn: nn.LayerNorm([3, 4]), (2, 5, 3, 4), 1, False),
    "layernorm_int_eps": (lambda nn: nn.LayerNorm(6, epsilon=1e-3), (3, 6), 1, False),
    "layernorm_no_affine": (lambda nn: nn.LayerNorm(4, elementwise_affine=False), (2, 3, 4), 1, False),
    "layernorm_no_bias": (lambda nn: nn.LayerNorm([2, 3], bias=False), (4, 2, 3), 1, False),
    "groupnorm": (lambda nn: nn.GroupNorm(2, 4), (2, 4, 3, 3), 1, False),
    "groupnorm_nhwc": (lambda nn: nn.GroupNorm(3, 6, epsilon=1e-4, data_format="NHWC"), (2, 3, 3, 6), 1, False),
    "groupnorm_ncl": (lambda nn: nn.GroupNorm(2, 4, data_format="NCL"), (2, 4, 5), 1, False),
    "groupnorm_no_affine_5d": (lambda nn: nn.GroupNorm(1, 2, affine=False, data_format="NCDHW"), (2, 2, 2, 3, 3),
                               1, False),
    "instancenorm1d": (lambda nn: nn.InstanceNorm1D(3), (2, 3, 6), 1, False),
    "instancenorm2d": (lambda nn: nn.InstanceNorm2D(3, epsilon=1e-3), (2, 3, 4, 5), 1, False),
    "instancenorm2d_no_affine": (lambda nn: nn.InstanceNorm2D(3, weight_attr=False, bias_attr=False),
                                 (2, 3, 4, 4), 1, False),
    "instancenorm3d": (lambda nn: nn.InstanceNorm3D(2), (2, 2, 3, 3, 3), 1, False),
    "lrn": (lambda nn: nn.LocalResponseNorm(3), (2, 5, 3, 3), 1, False),
    "lrn_nhwc": (lambda nn: nn.LocalResponseNorm(4, alpha=0.01, beta=0.5, k=2.0, data_format="NHWC"),
                 (2, 3, 3, 5), 1, False),
    "lrn_ncl": (lambda nn: nn.LocalResponseNorm(2, data_format="NCL", name="lrn"), (2, 4, 5), 1, False),
    "lrn_ncdhw": (lambda nn: nn.LocalResponseNorm(3, data_format="NCDHW"), (1, 4, 2, 2, 3), 1, False),
    "spectralnorm": (lambda nn: nn.SpectralNorm([3, 4]), (3, 4), 1, False),
    "spectralnorm_dim1_iters3": (lambda nn: nn.SpectralNorm([2, 3, 2, 2], dim=1, power_iters=3),
                                 (2, 3, 2, 2), 1, False),
    "spectralnorm_no_iters": (lambda nn: nn.SpectralNorm([4, 3], power_iters=0, eps=1e-6), (4, 3), 1, False),
}

ERRORS = {
    "err_bn2d_rank": (lambda nn: nn.BatchNorm2D(3), (2, 3, 4)),
    "err_bn2d_format": (lambda nn: nn.BatchNorm2D(3, data_format="NCL"), (2, 3, 4, 4)),
    "err_bn1d_rank": (lambda nn: nn.BatchNorm1D(3), (2, 3, 4, 4)),
    "err_bn1d_channels": (lambda nn: nn.BatchNorm1D(3), (2, 4)),
    "err_bn3d_format": (lambda nn: nn.BatchNorm3D(3, data_format="NLC"), (1, 3, 2, 2, 2)),
    "err_layernorm_shape": (lambda nn: nn.LayerNorm([3, 4]), (2, 4, 3)),
    "err_groupnorm_format": (lambda nn: nn.GroupNorm(2, 4, data_format="NCX"), None),
    "err_groupnorm_groups": (lambda nn: nn.GroupNorm(3, 4), (2, 4, 3)),
    "err_instancenorm_attr": (lambda nn: nn.InstanceNorm2D(3, weight_attr=False), None),
    "err_instancenorm2d_rank": (lambda nn: nn.InstanceNorm2D(3), (2, 3, 4)),
    "err_instancenorm1d_rank": (lambda nn: nn.InstanceNorm1D(3), (2, 3, 4, 4)),
    "err_spectralnorm_dim": (lambda nn: nn.SpectralNorm([3, 4], dim=2), None),
    "err_spectralnorm_zero": (lambda nn: nn.SpectralNorm([3, 0]), None),
    "err_spectralnorm_weight_shape": (lambda nn: nn.SpectralNorm([3, 4]), (4, 3)),
    "err_spectralnorm_iters": (lambda nn: nn.SpectralNorm([3, 4], power_iters=-1), (3, 4)),
    "err_lrn_rank": (lambda nn: nn.LocalResponseNorm(3), (2, 3)),
}

INITS = {
    "init_bn2d": lambda nn: nn.BatchNorm2D(8),
    "init_batchnorm": lambda nn: nn.BatchNorm(8),
    "init_layernorm": lambda nn: nn.LayerNorm([4, 5]),
    "init_groupnorm": lambda nn: nn.GroupNorm(2, 8),
    "init_instancenorm": lambda nn: nn.InstanceNorm2D(8),
    "init_spectralnorm": lambda nn: nn.SpectralNorm([4000, 5000]),
}


def error_case(paddle, make, shape):
    def run():
        layer = make(paddle.nn)
        return "constructed" if shape is None else layer(paddle.to_tensor(np.ones(shape, "float32")))
    return catch(run)


def sync_case(paddle):
    """SyncBatchNorm construction and convert_sync_batchnorm (Paddle's CPU build cannot run its forward)."""
    nn = paddle.nn
    with paddle.utils.unique_name.guard():
        sync = nn.SyncBatchNorm(3, data_format="NHWC", name="s")
        frozen = nn.SyncBatchNorm(2, weight_attr=False, bias_attr=False)
        model = nn.Sequential(nn.Conv2D(2, 3, 1), nn.BatchNorm2D(3, momentum=0.8),
                              nn.Sequential(nn.BatchNorm1D(3, weight_attr=paddle.ParamAttr(name="w"))))
        bn = model[1]
        converted = nn.SyncBatchNorm.convert_sync_batchnorm(model)
    return {"repr": [str(sync), str(frozen), str(converted)],
            "state": [state_summary(sync), state_summary(frozen), state_summary(converted)],
            "types": [type(layer).__name__ for layer in converted.sublayers()],
            "shares_stats": converted[1]._mean is bn._mean and converted[1].weight is bn.weight}


CASES = {name: functools.partial(layer_case, name=name, make=make, shapes=[shape] * steps, eval_after=evaluate)
         for name, (make, shape, steps, evaluate) in LAYERS.items()}
CASES.update({name: functools.partial(error_case, make=make, shape=shape) for name, (make, shape) in ERRORS.items()})
CASES.update({name: functools.partial(init_stats, make=make) for name, make in INITS.items()})
CASES["sync_batch_norm"] = sync_case


if __name__ == "__main__":
    dump(CASES, sys.argv[1])

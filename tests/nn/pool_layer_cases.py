"""Pooling layer cases, run on real PaddlePaddle 3.3.1 (``python -m tests.nn.pool_layer_cases OUT.pkl``) and on
torchpaddle by tests/nn/test_pool_layers.py."""
import functools
import sys

import numpy as np

from tests.nn.layer_case_tools import catch, dump, forward_backward, layer_case, stable_seed

# name -> (constructor over paddle.nn, input shapes, forward kwargs)
LAYERS = {
    "avg1d": (lambda nn: nn.AvgPool1D(3), [(2, 3, 9)], None),
    "avg1d_pad_inclusive_ceil": (lambda nn: nn.AvgPool1D(3, 2, 1, exclusive=False, ceil_mode=True), [(2, 3, 8)],
                                 None),
    "avg1d_exclusive_pad": (lambda nn: nn.AvgPool1D(4, stride=2, padding=[1, 2]), [(1, 2, 9)], None),
    "avg2d": (lambda nn: nn.AvgPool2D(2), [(2, 3, 6, 6)], None),
    "avg2d_pad_ceil": (lambda nn: nn.AvgPool2D(3, stride=2, padding=1, ceil_mode=True), [(2, 3, 8, 7)], None),
    "avg2d_inclusive_nhwc": (lambda nn: nn.AvgPool2D((3, 2), stride=(2, 1), padding=(1, 0), exclusive=False,
                                                     data_format="NHWC"), [(2, 7, 6, 3)], None),
    "avg2d_divisor": (lambda nn: nn.AvgPool2D(2, divisor_override=3), [(1, 2, 4, 4)], None),
    "avg2d_same": (lambda nn: nn.AvgPool2D(3, stride=2, padding="SAME"), [(1, 2, 7, 6)], None),
    "avg3d": (lambda nn: nn.AvgPool3D(2, stride=1, padding=1), [(1, 2, 3, 4, 4)], None),
    "avg3d_ndhwc_ceil": (lambda nn: nn.AvgPool3D(3, stride=2, ceil_mode=True, data_format="NDHWC"),
                         [(1, 5, 6, 6, 2)], None),
    "max1d": (lambda nn: nn.MaxPool1D(2), [(2, 3, 8)], None),
    "max1d_mask_pad": (lambda nn: nn.MaxPool1D(3, stride=2, padding=1, return_mask=True), [(2, 3, 9)], None),
    "max1d_ceil": (lambda nn: nn.MaxPool1D(3, stride=2, ceil_mode=True), [(1, 2, 8)], None),
    "max2d": (lambda nn: nn.MaxPool2D(2, 2), [(2, 3, 6, 6)], None),
    "max2d_mask": (lambda nn: nn.MaxPool2D(3, stride=2, padding=1, return_mask=True), [(2, 3, 7, 7)], None),
    "max2d_nhwc_ceil": (lambda nn: nn.MaxPool2D((2, 3), stride=2, ceil_mode=True, data_format="NHWC"),
                        [(2, 7, 8, 3)], None),
    "max2d_valid": (lambda nn: nn.MaxPool2D(3, stride=1, padding="VALID"), [(1, 2, 5, 5)], None),
    "max3d": (lambda nn: nn.MaxPool3D(2), [(1, 2, 4, 4, 4)], None),
    "max3d_mask_pad": (lambda nn: nn.MaxPool3D(3, stride=2, padding=1, return_mask=True), [(1, 2, 5, 5, 5)], None),
    "max3d_ndhwc": (lambda nn: nn.MaxPool3D(2, stride=1, data_format="NDHWC"), [(1, 3, 3, 3, 2)], None),
    "adaptive_avg1d": (lambda nn: nn.AdaptiveAvgPool1D(4), [(2, 3, 10)], None),
    "adaptive_avg2d": (lambda nn: nn.AdaptiveAvgPool2D(3), [(2, 3, 7, 8)], None),
    "adaptive_avg2d_none_nhwc": (lambda nn: nn.AdaptiveAvgPool2D((2, None), data_format="NHWC"), [(2, 5, 4, 3)],
                                 None),
    "adaptive_avg2d_global": (lambda nn: nn.AdaptiveAvgPool2D(1), [(2, 4, 5, 5)], None),
    "adaptive_avg3d": (lambda nn: nn.AdaptiveAvgPool3D((2, 3, 2)), [(1, 2, 5, 6, 4)], None),
    "adaptive_avg3d_ndhwc": (lambda nn: nn.AdaptiveAvgPool3D(2, data_format="NDHWC"), [(1, 4, 5, 3, 2)], None),
    "adaptive_max1d": (lambda nn: nn.AdaptiveMaxPool1D(3), [(2, 3, 10)], None),
    "adaptive_max1d_mask": (lambda nn: nn.AdaptiveMaxPool1D(4, return_mask=True), [(2, 3, 9)], None),
    "adaptive_max2d_mask": (lambda nn: nn.AdaptiveMaxPool2D((3, 2), return_mask=True), [(2, 3, 7, 5)], None),
    "adaptive_max3d": (lambda nn: nn.AdaptiveMaxPool3D(2), [(1, 2, 5, 4, 4)], None),
    "adaptive_max3d_mask": (lambda nn: nn.AdaptiveMaxPool3D((1, 2, 3), return_mask=True), [(1, 2, 3, 4, 6)], None),
}

ERRORS = {
    "err_max2d_kernel_len": (lambda nn: nn.MaxPool2D([2, 2, 2]), (1, 2, 4, 4)),
    "err_avg2d_rank": (lambda nn: nn.AvgPool2D(2), (2, 4, 4)),
    "err_avg1d_rank": (lambda nn: nn.AvgPool1D(2), (2, 3, 4, 4)),
    "err_max2d_format": (lambda nn: nn.MaxPool2D(2, data_format="NCL"), (1, 2, 4, 4)),
    "err_avg3d_padding_str": (lambda nn: nn.AvgPool3D(2, padding="FULL"), (1, 1, 4, 4, 4)),
    "err_adaptive_avg2d_format": (lambda nn: nn.AdaptiveAvgPool2D(2, data_format="NCDHW"), (1, 2, 4, 4)),
    "err_adaptive_max3d_rank": (lambda nn: nn.AdaptiveMaxPool3D(2), (1, 2, 4, 4)),
    "err_max3d_kernel_zero": (lambda nn: nn.MaxPool3D(0), (1, 1, 4, 4, 4)),
    "err_avg2d_stride_zero": (lambda nn: nn.AvgPool2D(2, stride=0), (1, 2, 4, 4)),
    "err_max2d_valid_ceil": (lambda nn: nn.MaxPool2D(2, padding="VALID", ceil_mode=True), (1, 2, 4, 4)),
}


def error_case(paddle, make, shape):
    def run():
        return make(paddle.nn)(paddle.to_tensor(np.zeros(shape, "float32")))
    return catch(run)


def unpool_case(paddle, dims):
    """Max pool with a mask, then un-pool: values land back at the argmax positions."""
    rng = np.random.default_rng(stable_seed(f"unpool{dims}"))
    nn = paddle.nn
    shape = {1: (2, 3, 8), 2: (2, 3, 6, 6), 3: (1, 2, 4, 4, 4)}[dims]
    pool = getattr(nn, f"MaxPool{dims}D")(2, stride=2, return_mask=True)
    unpool = getattr(nn, f"MaxUnPool{dims}D")(2, stride=2)
    out, mask = pool(paddle.to_tensor(rng.uniform(-1, 1, shape).astype("float32")))
    result = forward_backward(paddle, lambda x: unpool(x, mask), out.numpy(), rng)
    result["repr"] = str(unpool)
    return result


CASES = {name: functools.partial(layer_case, name=name, make=make, shapes=shapes, forward_kwargs=kwargs)
         for name, (make, shapes, kwargs) in LAYERS.items()}
CASES.update({name: functools.partial(error_case, make=make, shape=shape) for name, (make, shape) in ERRORS.items()})
CASES.update({f"unpool{d}d": functools.partial(unpool_case, dims=d) for d in (1, 2, 3)})


if __name__ == "__main__":
    dump(CASES, sys.argv[1])

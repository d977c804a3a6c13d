"""Conv layer cases, run on real PaddlePaddle 3.3.1 (``python -m tests.nn.conv_layer_cases OUT.pkl``) and on
torchpaddle by tests/nn/test_conv_layers.py."""
import functools
import sys

import numpy as np

from tests.nn.layer_case_tools import catch, dump, init_stats, layer_case

# name -> (constructor over paddle.nn, input shapes, forward kwargs)
LAYERS = {
    "conv1d": (lambda nn: nn.Conv1D(3, 4, 3), [(2, 3, 9)], None),
    "conv1d_nlc_same_stride": (lambda nn: nn.Conv1D(4, 6, 3, stride=2, padding="same", data_format="NLC"),
                               [(2, 9, 4)], None),
    "conv1d_groups_dilation_nobias": (lambda nn: nn.Conv1D(4, 6, 3, padding=2, dilation=2, groups=2, bias=False),
                                      [(2, 4, 10)], None),
    "conv1d_circular": (lambda nn: nn.Conv1D(3, 4, 3, padding=1, padding_mode="circular"), [(2, 3, 8)], None),
    "conv2d": (lambda nn: nn.Conv2D(4, 6, 3), [(2, 4, 7, 7)], None),
    "conv2d_nhwc_valid": (lambda nn: nn.Conv2D(4, 6, (3, 2), stride=(2, 1), padding="VALID", data_format="NHWC"),
                          [(2, 7, 6, 4)], None),
    "conv2d_nhwc_same": (lambda nn: nn.Conv2D(3, 4, 3, stride=2, padding="SAME", data_format="NHWC"),
                         [(2, 7, 8, 3)], None),
    "conv2d_groups_dilation": (lambda nn: nn.Conv2D(4, 8, 3, padding=2, dilation=2, groups=2), [(2, 4, 7, 7)],
                               None),
    "conv2d_depthwise": (lambda nn: nn.Conv2D(4, 8, 3, padding=1, groups=4), [(2, 4, 6, 6)], None),
    "conv2d_asym_padding": (lambda nn: nn.Conv2D(3, 4, 3, padding=[1, 0, 2, 1]), [(1, 3, 6, 6)], None),
    "conv2d_pair_padding": (lambda nn: nn.Conv2D(3, 4, 3, padding=[[0, 0], [0, 0], [1, 2], [0, 1]]),
                            [(1, 3, 6, 6)], None),
    "conv2d_reflect": (lambda nn: nn.Conv2D(3, 4, 3, padding=1, padding_mode="reflect"), [(2, 3, 6, 6)], None),
    "conv2d_replicate_nhwc": (lambda nn: nn.Conv2D(3, 4, 3, padding=2, padding_mode="replicate",
                                                   data_format="NHWC"), [(2, 6, 6, 3)], None),
    "conv2d_no_bias_attr": (lambda nn: nn.Conv2D(3, 4, 1, bias_attr=False), [(2, 3, 4, 4)], None),
    "conv3d": (lambda nn: nn.Conv3D(2, 3, 3, padding=1), [(2, 2, 4, 5, 5)], None),
    "conv3d_ndhwc_stride": (lambda nn: nn.Conv3D(2, 4, (2, 3, 3), stride=2, groups=2, data_format="NDHWC"),
                            [(1, 5, 6, 6, 2)], None),
    "conv1d_transpose": (lambda nn: nn.Conv1DTranspose(3, 4, 3, stride=2), [(2, 3, 5)], None),
    "conv1d_transpose_groups_nlc": (lambda nn: nn.Conv1DTranspose(4, 6, 3, stride=2, padding=1, output_padding=1,
                                                                  groups=2, data_format="NLC"), [(2, 5, 4)], None),
    "conv2d_transpose": (lambda nn: nn.Conv2DTranspose(4, 6, 3), [(2, 4, 5, 5)], None),
    "conv2d_transpose_stride_outpad": (lambda nn: nn.Conv2DTranspose(4, 6, 3, stride=2, padding=1, output_padding=1,
                                                                     dilation=1, groups=2), [(2, 4, 5, 5)], None),
    "conv2d_transpose_output_size": (lambda nn: nn.Conv2DTranspose(3, 4, 3, stride=2, padding=1), [(1, 3, 4, 4)],
                                     {"output_size": [8, 8]}),
    "conv2d_transpose_nhwc_same": (lambda nn: nn.Conv2DTranspose(3, 4, 3, stride=2, padding="SAME",
                                                                 data_format="NHWC"), [(1, 4, 4, 3)], None),
    "conv2d_transpose_dilation_nobias": (lambda nn: nn.Conv2DTranspose(2, 3, 3, dilation=2, bias_attr=False),
                                         [(1, 2, 4, 4)], None),
    "conv3d_transpose": (lambda nn: nn.Conv3DTranspose(2, 3, 2, stride=2), [(1, 2, 3, 3, 3)], None),
    "conv3d_transpose_ndhwc": (lambda nn: nn.Conv3DTranspose(2, 4, 3, padding=1, groups=2, data_format="NDHWC"),
                               [(1, 3, 3, 3, 2)], None),
}

# constructor (and optional forward input shape) expected to fail the same way as Paddle
ERRORS = {
    "err_groups_in_channels": (lambda nn: nn.Conv2D(3, 4, 3, groups=2), None),
    "err_weight_attr_false": (lambda nn: nn.Conv2D(3, 4, 3, weight_attr=False), None),
    "err_padding_mode": (lambda nn: nn.Conv2D(3, 4, 3, padding_mode="mirror"), None),
    "err_padding_mode_list": (lambda nn: nn.Conv2D(3, 4, 3, padding=[1, 1], padding_mode="reflect"), None),
    "err_kernel_len": (lambda nn: nn.Conv2D(3, 4, [3, 3, 3]), None),
    "err_data_format": (lambda nn: nn.Conv3D(3, 4, 3, data_format="NCX"), None),
    "err_padding_str": (lambda nn: nn.Conv2D(3, 4, 3, padding="full"), None),
    "err_padding_negative": (lambda nn: nn.Conv3D(3, 4, 3, padding=-1), None),
    "err_padding_len": (lambda nn: nn.Conv2D(3, 4, 3, padding=[1, 2, 3]), None),
    "err_conv1d_padding_str_forward": (lambda nn: nn.Conv1D(3, 4, 3, padding="full"), (1, 3, 5)),
    "err_forward_channels": (lambda nn: nn.Conv2D(3, 4, 3), (1, 5, 6, 6)),
    "err_forward_rank": (lambda nn: nn.Conv2D(3, 4, 3), (3, 6, 6)),
    "err_transpose_forward_channels": (lambda nn: nn.Conv2DTranspose(3, 4, 3), (1, 2, 4, 4)),
}

INITS = {
    "init_conv2d": lambda nn: nn.Conv2D(16, 32, 3),
    "init_conv1d_groups": lambda nn: nn.Conv1D(64, 128, 5, groups=4),
    "init_conv2d_transpose": lambda nn: nn.Conv2DTranspose(16, 32, 3),
    "init_conv3d_transpose_groups": lambda nn: nn.Conv3DTranspose(32, 64, 3, groups=4),
}


def error_case(paddle, make, shape):
    """Construct (and, given an input shape, call) a layer; the result or the exception type is recorded."""
    def run():
        layer = make(paddle.nn)
        return "constructed" if shape is None else layer(paddle.to_tensor(np.zeros(shape, "float32")))
    return catch(run)


CASES = {name: functools.partial(layer_case, name=name, make=make, shapes=shapes, forward_kwargs=kwargs)
         for name, (make, shapes, kwargs) in LAYERS.items()}
CASES.update({name: functools.partial(error_case, make=make, shape=shape) for name, (make, shape) in ERRORS.items()})
CASES.update({name: functools.partial(init_stats, make=make) for name, make in INITS.items()})


if __name__ == "__main__":
    dump(CASES, sys.argv[1])

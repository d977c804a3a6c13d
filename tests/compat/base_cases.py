"""paddle.base / paddle.common_ops_import cases, run on real PaddlePaddle 3.3.1 with its 2.x-style Program IR
(``python -m tests.compat.base_cases OUT.pkl``) and on torchpaddle by test_base.py."""
import os
import sys

import numpy as np

from tests.nn.layer_case_tools import catch, dump

# what Paddle 3.3.1's common_ops_import exports (its module attributes that are not dunder or typing helpers)
COMMON_OPS_IMPORT = ["LayerHelper", "OpProtoHolder", "ParamAttr", "VarDesc", "Variable", "_create_tensor",
                     "_dygraph_tracer", "base", "check_dtype", "check_type", "check_variable_and_dtype",
                     "convert_dtype", "convert_np_dtype_to_dtype_", "core", "default_main_program", "device_guard",
                     "dygraph_only", "dygraph_utils", "in_dygraph_mode"]


def c_vartype(paddle):
    V = paddle.base.core.VarDesc.VarType
    return [str(V.FP32), repr(V.BF16), int(V.FP16), int(V.INT64), int(V.DENSE_TENSOR), int(V.LOD_TENSOR),
            int(V.UINT8), str(paddle.cast(paddle.ones([1]), V.FP64).dtype), V.FP32 == 5]


def c_eager_tensor(paddle):
    # (core.DataType.FLOAT32 is paddle.float32 only under PIR, which these cases switch off)
    return paddle.base.core.eager.Tensor is paddle.Tensor


def c_convert_dtype(paddle):
    from_feeder = paddle.base.data_feeder.convert_dtype
    V = paddle.base.core.VarDesc.VarType
    values = [paddle.float32, paddle.bfloat16, paddle.int64, "float16", "uint16", "bfloat16", np.float32,
              np.dtype("int8"), V.FP32, V.BF16, V.BOOL, "float", "int", 5, float, None]
    return [catch(lambda v=v: from_feeder(v)) for v in values]


def c_checks_static(paddle):
    df = paddle.base.data_feeder
    paddle.enable_static()
    try:
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            x = paddle.static.data("x", [2], "float32")
            return [catch(lambda: df.check_variable_and_dtype(x, "x", ["float32", "float64"], "myop")),
                    catch(lambda: df.check_variable_and_dtype(x, "x", ["int64"], "myop")),
                    catch(lambda: df.check_variable_and_dtype(np.ones(2), "x", ["float32"], "myop")),
                    catch(lambda: df.check_type(x, "x", int, "myop")),
                    catch(lambda: df.check_type(3, "x", (int, float), "myop")),
                    catch(lambda: df.check_dtype(x.dtype, "x", ["float32"], "myop")),
                    catch(lambda: df.check_dtype(x.dtype, "x", ["int32"], "myop"))]
    finally:
        paddle.disable_static()


def c_checks_dygraph(paddle):
    df = paddle.base.data_feeder
    x = paddle.ones([2])
    return [df.check_variable_and_dtype(x, "x", ["int64"], "myop"), df.check_type(x, "x", int, "myop"),
            df.check_dtype(x.dtype, "x", ["int32"], "myop")]


def c_framework(paddle):
    f = paddle.base.framework
    return [f.in_dygraph_mode(), f._dygraph_tracer() is not None, f._dygraph_tracer()._has_grad,
            str(f.convert_np_dtype_to_dtype_(np.float32)), str(f.convert_np_dtype_to_dtype_("int64")),
            f.in_dynamic_or_pir_mode(), f.Program is paddle.static.Program, paddle.base.in_dygraph_mode()]


def c_tracer_static(paddle):
    paddle.enable_static()
    try:
        return [paddle.base.framework._dygraph_tracer() is None, paddle.base.framework.in_dygraph_mode()]
    finally:
        paddle.disable_static()


def c_dygraph_guard(paddle):
    paddle.enable_static()
    try:
        with paddle.base.dygraph.guard():
            inside = paddle.in_dynamic_mode()
        return [inside, paddle.in_dynamic_mode(), paddle.base.dygraph.enabled()]
    finally:
        paddle.disable_static()


def c_flags(paddle):
    base, core = paddle.base, paddle.base.core
    before = base.get_flags("FLAGS_check_nan_inf")
    core.globals()["FLAGS_check_nan_inf"] = True
    after = base.get_flags(["FLAGS_check_nan_inf"])
    read = core.globals()["FLAGS_check_nan_inf"]
    base.set_flags({"FLAGS_check_nan_inf": False})
    return [before, after, read, "FLAGS_check_nan_inf" in core.globals(), "FLAGS_nonexistent_x" in core.globals()]


def c_unique_name(paddle):
    un = paddle.base.unique_name
    with un.guard():
        # one counter table behind paddle.base.unique_name and paddle.utils.unique_name
        return [un.generate("fc"), paddle.utils.unique_name.generate("fc"), un.generate("conv")]


def c_dense_tensor(paddle):
    t = paddle.base.core.DenseTensor()
    t.set(np.arange(6, dtype="float32").reshape(2, 3), paddle.CPUPlace())
    return [("A", np.array(t)), t.shape(), paddle.base.core.LoDTensor is paddle.base.core.DenseTensor]


def c_layer_helper_dygraph(paddle):
    LayerHelper = paddle.base.layer_helper.LayerHelper
    with paddle.utils.unique_name.guard():
        helper = LayerHelper("my_layer", act="relu")
        x = paddle.to_tensor([[-1.0, 2.0, 0.5]], stop_gradient=False)
        out = helper.create_variable_for_type_inference("float32")
        helper.append_op(type="scale", inputs={"X": [x]}, outputs={"Out": [out]}, attrs={"scale": 2.0})
        act = helper.append_activation(out)
        w = helper.create_parameter(attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(0.5)),
                                    shape=[3, 2], dtype="float32")
        b = helper.create_parameter(attr=None, shape=[2], dtype="float32", is_bias=True)
        with_bias = LayerHelper("fc", bias_attr=None).append_bias_op(paddle.ones([2, 3]), dim_start=1)
        act.sum().backward()
        return {"name": helper.name, "out": out, "act": act, "x_grad": ("A", x.grad.numpy()),
                "params": [w.name, list(w.shape), b.name, ("A", b.numpy())], "with_bias": with_bias,
                "input_dtype": str(LayerHelper("fc", input=[x, x]).input_dtype())}


def c_layer_helper_static(paddle):
    from_ops_import = paddle.common_ops_import
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
            x = paddle.static.data("x", [-1, 3], "float32")
            helper = from_ops_import.LayerHelper("my_fc", act="relu")
            from_ops_import.check_variable_and_dtype(x, "x", ["float32"], "my_fc")
            w = helper.create_parameter(
                attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(
                    np.arange(6, dtype="float32").reshape(3, 2) / 4 - 0.5)), shape=[3, 2], dtype=x.dtype)
            tmp = helper.create_variable_for_type_inference(x.dtype)
            helper.append_op(type="matmul_v2", inputs={"X": [x], "Y": [w]}, outputs={"Out": [tmp]},
                             attrs={"trans_x": False, "trans_y": False})
            y = helper.append_activation(helper.append_bias_op(tmp, dim_start=1))
            desc = [list(y.shape), str(y.dtype), [op.type for op in main.global_block().ops], y.name,
                    [p.name for p in main.all_parameters()]]
        exe = paddle.static.Executor(paddle.CPUPlace())
        scope = paddle.static.Scope()
        with paddle.static.scope_guard(scope):
            exe.run(startup)
            value, = exe.run(main, feed={"x": np.array([[1, -2, 3], [-4, -5, 1]], "float32")}, fetch_list=[y])
        return desc + [("A", np.asarray(value))]
    finally:
        paddle.disable_static()


def c_common_ops_import(paddle):
    module = paddle.common_ops_import
    return [n for n in COMMON_OPS_IMPORT if not hasattr(module, n)]


# the loss layers of Paddle 3.3.1's paddle.nn.loss (torchpaddle's module also holds HuberLoss)
NN_LOSS = ["AdaptiveLogSoftmaxWithLoss", "BCELoss", "BCEWithLogitsLoss", "CTCLoss", "CosineEmbeddingLoss",
           "CrossEntropyLoss", "GaussianNLLLoss", "HSigmoidLoss", "HingeEmbeddingLoss", "KLDivLoss", "L1Loss",
           "MSELoss", "MarginRankingLoss", "MultiLabelMarginLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss",
           "NLLLoss", "PoissonNLLLoss", "RNNTLoss", "SmoothL1Loss", "SoftMarginLoss", "TripletMarginLoss",
           "TripletMarginWithDistanceLoss"]


def c_nn_loss(paddle):
    module = paddle.nn.loss
    return [[n for n in NN_LOSS if getattr(module, n, None) is not getattr(paddle.nn, n)],
            module is paddle.nn.layer.loss, float(module.MSELoss()(paddle.ones([2]), paddle.zeros([2])))]


def c_op_proto(paddle):
    proto = paddle.base.framework.OpProtoHolder.instance().get_op_proto("matmul_v2")
    return [proto.type, [i.name for i in proto.inputs], [o.name for o in proto.outputs],
            {"trans_x", "trans_y"} <= {a.name for a in proto.attrs}]


def c_dygraph_utils(paddle):
    x = paddle.to_tensor([-1.0, 2.0])
    return [paddle.base.dygraph_utils._append_activation_in_dygraph(x, "relu"),
            paddle.base.dygraph_utils._append_activation_in_dygraph(x) is x]


def c_dygraph_only(paddle):
    @paddle.base.framework.dygraph_only
    def f():
        return 1
    paddle.enable_static()
    try:
        return catch(f)
    finally:
        paddle.disable_static()


CASES = {name[2:]: fn for name, fn in sorted(globals().items()) if name.startswith("c_")}


if __name__ == "__main__":
    os.environ["FLAGS_enable_pir_api"] = "0"
    dump(CASES, sys.argv[1])

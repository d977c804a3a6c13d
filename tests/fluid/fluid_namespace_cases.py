"""fluid namespace cases (initializer/regularizer/clip signatures, data/layers.data, one_hot, LoDTensor, core,
unique_name, places...), run on Paddle 1.8.5 (``python -m tests.fluid.fluid_namespace_cases OUT.pkl`` in
.fluid_venv) and on torchpaddle by test_fluid_namespace.py. Python 3.8 / numpy<1.20 compatible."""
import sys

import numpy as np

from tests.nn.layer_case_tools import catch, dump


def _dtype_name(dtype):
    text = str(dtype)
    return {"VarType.FP32": "float32", "VarType.INT64": "int64", "VarType.FP64": "float64",
            "VarType.INT32": "int32"}.get(text, text.replace("paddle.", ""))


def _static(fluid, build):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.unique_name.guard(), fluid.program_guard(main, startup):
        return build(fluid, main, startup)


def c_data_shapes(paddle):
    def build(fluid, main, startup):
        a = fluid.data(name="a", shape=[None, 3, 4], dtype="float32")
        b = fluid.layers.data(name="b", shape=[3, 4], dtype="int64")
        c = fluid.layers.data(name="c", shape=[-1, 5], append_batch_size=True)
        d = fluid.layers.data(name="d", shape=[2], append_batch_size=False, dtype="float64")
        e = fluid.layers.data(name="e", shape=[None, 2])
        return [[v.name, list(v.shape), _dtype_name(v.dtype), v.stop_gradient, v.lod_level]
                for v in (a, b, c, d, e)]
    return _static(paddle.fluid, build)


def c_data_errors(paddle):
    fluid = paddle.fluid

    def build(fluid, main, startup):
        return [catch(lambda: fluid.data(name=1, shape=[2])), catch(lambda: fluid.layers.data(name="x", shape=3))]
    return _static(fluid, build)


def c_run_fed_data(paddle):
    """fluid.data checks the fed shape; fluid.layers.data does not check it."""
    fluid = paddle.fluid

    def build(fluid, main, startup):
        a = fluid.data(name="a", shape=[None, 3], dtype="float32")
        b = fluid.layers.data(name="b", shape=[3], dtype="float32")
        exe = fluid.Executor(fluid.CPUPlace())
        ok = exe.run(main, feed={"a": np.ones([2, 3], "float32"), "b": np.ones([2, 3], "float32")},
                     fetch_list=[a, b])
        bad = catch(lambda: exe.run(main, feed={"a": np.ones([2, 4], "float32"), "b": np.ones([2, 3], "float32")},
                                    fetch_list=[a]))
        return [("A", ok[0]), ("A", ok[1]), bad[0]]
    return _static(fluid, build)


def c_one_hot(paddle):
    fluid = paddle.fluid

    def build(fluid, main, startup):
        ids = fluid.data(name="ids", shape=[None, 2], dtype="int64")
        out = fluid.one_hot(ids, depth=4)
        loose = fluid.one_hot(ids, depth=3, allow_out_of_range=True)
        exe = fluid.Executor(fluid.CPUPlace())
        values = exe.run(main, feed={"ids": np.array([[0, 3], [2, 1]], "int64")}, fetch_list=[out, loose])
        return [list(out.shape), _dtype_name(out.dtype), ("A", values[0]), ("A", values[1])]
    return _static(fluid, build)


def c_initializers(paddle):
    """Fluid's initializer signatures: each fills a parameter the way its arguments say."""
    fluid = paddle.fluid
    init = fluid.initializer

    def build(fluid, main, startup):
        made = [
            ("const", init.Constant(value=2.5), [2, 3]),
            ("const_long", init.ConstantInitializer(-1.0, force_cpu=True), [4]),
            ("numpy", init.NumpyArrayInitializer(np.arange(6, dtype="float32").reshape(2, 3)), [2, 3]),
            ("normal", init.Normal(loc=1.0, scale=0.0, seed=3), [3]),
            ("uniform", init.Uniform(low=2.0, high=3.0, seed=1), [50]),
            ("xavier", init.Xavier(uniform=True, fan_in=2, fan_out=4, seed=0), [50]),
            ("msra", init.MSRA(uniform=True, fan_in=6, seed=0), [50]),
            ("trunc", init.TruncatedNormal(loc=0.5, scale=0.1, seed=0), [50]),
        ]
        params = [fluid.layers.create_parameter(shape=shape, dtype="float32", name=name,
                                                default_initializer=i) if hasattr(fluid.layers, "create_parameter")
                  else paddle.static.create_parameter(shape=shape, dtype="float32", name=name,
                                                      default_initializer=i)
                  for name, i, shape in made]
        exe = fluid.Executor(fluid.CPUPlace())
        scope = fluid.Scope()
        with fluid.scope_guard(scope):
            exe.run(startup)
            out = {}
            for (name, _, _), p in zip(made, params):
                value = np.array(scope.find_var(p.name).get_tensor())
                if name in ("uniform", "xavier", "msra", "trunc"):   # random: the bounds fluid's arguments give
                    low, high = {"uniform": (2.0, 3.0), "xavier": (-1.0, 1.0), "msra": (-1.0, 1.0),
                                 "trunc": (0.3, 0.7)}[name]
                    out[name] = [list(value.shape), bool(value.min() >= low), bool(value.max() <= high),
                                 bool(value.std() > 0.05)]
                else:
                    out[name] = ("A", value)
        return out
    return _static(fluid, build)


def c_initializer_classes(paddle):
    init = paddle.fluid.initializer
    return [init.Normal is init.NormalInitializer, init.MSRA is init.MSRAInitializer,
            init.Xavier is init.XavierInitializer, init.Bilinear is init.BilinearInitializer,
            catch(lambda: init.NumpyArrayInitializer([1, 2]))]


def c_regularizer_and_clip(paddle):
    fluid = paddle.fluid
    reg = fluid.regularizer
    return [reg.L2Decay is reg.L2DecayRegularizer, reg.L1Decay is reg.L1DecayRegularizer,
            str(reg.L2Decay(regularization_coeff=0.5)), str(reg.L1Decay(0.25)),
            str(fluid.clip.GradientClipByValue(1.0)), str(fluid.clip.GradientClipByNorm(2.0)),
            str(fluid.clip.GradientClipByGlobalNorm(3.0)), str(fluid.clip.ErrorClipByValue(1.0)),
            catch(lambda: fluid.clip.set_gradient_clip("clip"))]


def c_places_and_flags(paddle):
    fluid = paddle.fluid
    flags = fluid.get_flags(["FLAGS_eager_delete_tensor_gb"])
    return [len(fluid.cpu_places(3)), fluid.is_compiled_with_cuda(),
            sorted(flags), catch(lambda: fluid.get_flags(3)), catch(lambda: fluid.cpu_places(0))]


def c_lod_tensor(paddle):
    fluid = paddle.fluid
    t = fluid.LoDTensor()
    t.set(np.arange(6, dtype="float32").reshape(2, 3), fluid.CPUPlace())
    dense = fluid.create_lod_tensor(np.ones([2, 2], "int64"), [], fluid.CPUPlace())
    return [t.shape(), ("A", np.array(t)), t.lod(), dense.shape(), ("A", np.array(dense)),
            fluid.Tensor is fluid.LoDTensor, catch(lambda: fluid.create_lod_tensor("x", [], fluid.CPUPlace())),
            len(fluid.LoDTensorArray())]


def c_core_and_unique_name(paddle):
    fluid = paddle.fluid
    V = fluid.core.VarDesc.VarType
    with fluid.unique_name.guard():
        names = [fluid.unique_name.generate("fc"), fluid.unique_name.generate("fc"),
                 fluid.unique_name.generate("conv")]
    return [int(V.FP32), int(V.INT64), int(V.LOD_TENSOR), names, fluid.in_dygraph_mode()]


def c_require_version(paddle):
    fluid = paddle.fluid
    return [catch(lambda: fluid.require_version("1.0")), catch(lambda: fluid.require_version(1)),
            catch(lambda: fluid.require_version("1.x")), catch(lambda: fluid.require_version("99.0"))]


def c_param_attr(paddle):
    attr = paddle.fluid.ParamAttr(name="w", learning_rate=0.5, trainable=False)
    return [attr.name, attr.learning_rate, attr.trainable,
            catch(lambda: paddle.fluid.ParamAttr(name=3))]


def c_program_api(paddle):
    fluid = paddle.fluid

    def build(fluid, main, startup):
        x = fluid.data(name="x", shape=[None, 2], dtype="float32")
        x.stop_gradient = False
        with fluid.device_guard("cpu"):
            y = x * 2.0
        grads = fluid.gradients([y], [x])
        return [isinstance(main, fluid.Program), fluid.default_main_program() is main,
                fluid.default_startup_program() is startup, [g.name for g in grads], isinstance(x, fluid.Variable)]
    return _static(fluid, build)


def c_memory_optimize(paddle):
    fluid = paddle.fluid
    p = fluid.Program()
    return [fluid.memory_optimize(p), fluid.release_memory(p)]


CASES = {name[2:]: fn for name, fn in sorted(globals().items()) if name.startswith("c_")}


if __name__ == "__main__":
    dump(CASES, sys.argv[1])

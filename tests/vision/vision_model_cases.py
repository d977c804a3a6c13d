"""Vision model cases. ``python -m tests.vision.vision_model_cases OUTDIR [--slow]`` runs them on real
PaddlePaddle 3.3.1: it writes each numeric case's weights as OUTDIR/<case>.pdparams (paddle.save) and the
reference results (state_dict layouts, reprs, inputs, eval/train outputs, gradients) to OUTDIR/ref.pkl.
tests/vision/test_vision_models.py loads those weights into torchpaddle and compares."""
import os
import pickle
import sys

import numpy as np

# case -> (factory over paddle.vision.models, slow). State_dict keys and shapes are compared for each.
LAYOUTS = {
    "lenet": (lambda m: m.LeNet(), False),
    "lenet_headless": (lambda m: m.LeNet(num_classes=0), False),
    "resnet18": (lambda m: m.resnet18(), False),
    "resnet18_nopool_headless": (lambda m: m.resnet18(with_pool=False, num_classes=0), False),
    "resnet34": (lambda m: m.resnet34(), True),
    "resnet50": (lambda m: m.resnet50(num_classes=10), False),
    "resnet101": (lambda m: m.resnet101(), True),
    "resnet152": (lambda m: m.resnet152(), True),
    "resnet_class_basic_34": (lambda m: m.ResNet(m.resnet.BasicBlock, 34, num_classes=7), True),
    "resnext50_32x4d": (lambda m: m.resnext50_32x4d(), False),
    "resnext50_64x4d": (lambda m: m.resnext50_64x4d(), True),
    "resnext101_32x4d": (lambda m: m.resnext101_32x4d(), True),
    "resnext101_64x4d": (lambda m: m.resnext101_64x4d(), True),
    "resnext152_32x4d": (lambda m: m.resnext152_32x4d(), True),
    "resnext152_64x4d": (lambda m: m.resnext152_64x4d(), True),
    "wide_resnet50_2": (lambda m: m.wide_resnet50_2(), False),
    "wide_resnet101_2": (lambda m: m.wide_resnet101_2(), True),
    "vgg11": (lambda m: m.vgg11(), False),
    "vgg11_bn_headless": (lambda m: m.vgg11(batch_norm=True, num_classes=0), False),
    "vgg13": (lambda m: m.vgg13(), True),
    "vgg13_bn": (lambda m: m.vgg13(batch_norm=True), True),
    "vgg16": (lambda m: m.vgg16(), True),
    "vgg16_bn": (lambda m: m.vgg16(batch_norm=True, with_pool=False), True),
    "vgg19": (lambda m: m.vgg19(), True),
    "vgg19_bn": (lambda m: m.vgg19(batch_norm=True), True),
    "mobilenet_v1": (lambda m: m.mobilenet_v1(), False),
    "mobilenet_v1_x0_5_nopool": (lambda m: m.MobileNetV1(scale=0.5, num_classes=0, with_pool=False), False),
    "mobilenet_v2": (lambda m: m.mobilenet_v2(), False),
    "mobilenet_v2_x0_35": (lambda m: m.MobileNetV2(scale=0.35, num_classes=5), False),
    "mobilenet_v2_x1_4": (lambda m: m.mobilenet_v2(scale=1.4), True),
    "alexnet": (lambda m: m.alexnet(), False),
    "alexnet_headless": (lambda m: m.AlexNet(num_classes=0), False),
    "squeezenet1_0": (lambda m: m.squeezenet1_0(), False),
    "squeezenet1_1_nopool": (lambda m: m.squeezenet1_1(num_classes=7, with_pool=False), False),
    "shufflenet_v2_x0_25": (lambda m: m.shufflenet_v2_x0_25(), False),
    "shufflenet_v2_x0_33": (lambda m: m.shufflenet_v2_x0_33(), False),
    "shufflenet_v2_x0_5": (lambda m: m.shufflenet_v2_x0_5(), False),
    "shufflenet_v2_x1_0_headless": (lambda m: m.shufflenet_v2_x1_0(num_classes=0, with_pool=False), False),
    "shufflenet_v2_x1_5": (lambda m: m.shufflenet_v2_x1_5(), True),
    "shufflenet_v2_x2_0": (lambda m: m.shufflenet_v2_x2_0(), True),
    "shufflenet_v2_swish": (lambda m: m.shufflenet_v2_swish(num_classes=10), False),
    "mobilenet_v3_small": (lambda m: m.mobilenet_v3_small(), False),
    "mobilenet_v3_small_x0_5_headless": (lambda m: m.MobileNetV3Small(scale=0.5, num_classes=0), False),
    "mobilenet_v3_large": (lambda m: m.mobilenet_v3_large(), False),
    "mobilenet_v3_large_x1_25": (lambda m: m.mobilenet_v3_large(scale=1.25, num_classes=5), True),
    "densenet121": (lambda m: m.densenet121(), False),
    "densenet121_dropout_headless": (lambda m: m.DenseNet(121, dropout=0.2, num_classes=0), False),
    "densenet161": (lambda m: m.densenet161(), True),
    "densenet169": (lambda m: m.densenet169(), True),
    "densenet201": (lambda m: m.densenet201(), True),
    "densenet264": (lambda m: m.densenet264(), True),
    "googlenet": (lambda m: m.googlenet(), False),
    "googlenet_headless": (lambda m: m.GoogLeNet(num_classes=0, with_pool=False), False),
    "inception_v3": (lambda m: m.inception_v3(), True),
    "inception_v3_headless": (lambda m: m.InceptionV3(num_classes=0), True),
}

# case -> (factory, input shape, dtype of the train-mode comparison or None (dropout: outputs are random), slow).
# Train-mode BatchNorm over few values per channel amplifies rounding through deep nets (float32 differs from
# float64 by ~2% in the grouped bottleneck ResNet's input gradient), so that one compares in float64. With only
# two values per channel (batch 2 at 1x1) even float64 parts ways with Paddle's kernels, so deep nets get inputs
# large enough to keep 2x2 maps at the end.
NUMERIC = {
    "lenet": (lambda m: m.LeNet(), (2, 1, 28, 28), "float32", False),
    "resnet18": (lambda m: m.resnet18(num_classes=10), (4, 3, 64, 64), "float32", False),
    "resnet_bottleneck_groups": (lambda m: m.ResNet(m.resnet.BottleneckBlock, 50, width=16, groups=2,
                                                    num_classes=6), (2, 3, 64, 64), "float64", True),
    "vgg11_bn_headless": (lambda m: m.vgg11(batch_norm=True, num_classes=0), (2, 3, 32, 32), "float32", False),
    "vgg11": (lambda m: m.vgg11(num_classes=10), (1, 3, 32, 32), None, True),
    "mobilenet_v1": (lambda m: m.mobilenet_v1(scale=0.25, num_classes=10), (2, 3, 64, 64), "float32", False),
    "mobilenet_v2": (lambda m: m.mobilenet_v2(scale=0.25, num_classes=10), (2, 3, 32, 32), None, False),
    "alexnet_headless": (lambda m: m.AlexNet(num_classes=0), (2, 3, 64, 64), "float32", False),
    "alexnet": (lambda m: m.alexnet(num_classes=10), (1, 3, 224, 224), None, True),
    "squeezenet1_0": (lambda m: m.squeezenet1_0(num_classes=10), (2, 3, 64, 64), None, False),
    "squeezenet1_1_headless": (lambda m: m.squeezenet1_1(num_classes=0), (2, 3, 48, 48), "float32", False),
    "shufflenet_v2_x0_25": (lambda m: m.shufflenet_v2_x0_25(num_classes=10), (2, 3, 64, 64), "float64", False),
    "shufflenet_v2_swish": (lambda m: m.shufflenet_v2_swish(num_classes=6), (2, 3, 64, 64), "float64", True),
    "mobilenet_v3_small_headless": (lambda m: m.mobilenet_v3_small(scale=0.5, num_classes=0), (2, 3, 64, 64),
                                    "float64", False),
    "mobilenet_v3_large": (lambda m: m.mobilenet_v3_large(scale=0.35, num_classes=10), (2, 3, 64, 64), None,
                           False),
    "densenet121": (lambda m: m.densenet121(num_classes=10), (2, 3, 64, 64), "float64", True),
    "densenet121_eval": (lambda m: m.densenet121(num_classes=10), (1, 3, 32, 32), None, False),
    "googlenet_headless": (lambda m: m.GoogLeNet(num_classes=0), (2, 3, 64, 64), None, False),
    "googlenet": (lambda m: m.googlenet(num_classes=10), (1, 3, 224, 224), None, True),
    "inception_v3": (lambda m: m.inception_v3(num_classes=10), (1, 3, 75, 75), None, True),
}

REPRS = {
    "lenet": lambda m: m.LeNet(),
    "resnet18_headless": lambda m: m.resnet18(num_classes=0),
    "mobilenet_v2": lambda m: m.mobilenet_v2(scale=0.25, num_classes=3),
    "squeezenet1_1": lambda m: m.squeezenet1_1(num_classes=3),
    "shufflenet_v2_swish": lambda m: m.shufflenet_v2_swish(num_classes=3),
    "mobilenet_v3_small": lambda m: m.mobilenet_v3_small(scale=0.5, num_classes=3),
    "alexnet": lambda m: m.AlexNet(num_classes=0),
}


def selected(table, slow):
    """The cases of ``table`` in the slow (True) or the quick (False) set."""
    return [name for name, spec in table.items() if spec[-1] == slow]


def layout(model):
    return [(k, list(v.shape)) for k, v in model.state_dict().items()]


def randomize_norms(model, seed):
    """Give every BatchNorm non-trivial scale, shift and running statistics, so eval mode tests them."""
    rng = np.random.RandomState(seed)
    ranges = {"weight": (0.5, 1.5), "bias": (-0.2, 0.2), "_mean": (-0.2, 0.2), "_variance": (0.5, 1.5)}
    for _, layer in model.named_sublayers():
        if "BatchNorm" in type(layer).__name__:
            for attr, (low, high) in ranges.items():
                value = getattr(layer, attr)
                value.set_value(rng.uniform(low, high, size=value.shape).astype("float32"))


def to_numpy(out):
    """A model's output as arrays: GoogLeNet returns (out, aux1, aux2)."""
    if isinstance(out, (list, tuple)):
        return [o.numpy() for o in out]
    return out.numpy()


def inputs(name, shape):
    rng = np.random.RandomState(sum(map(ord, name)))
    return rng.standard_normal(shape).astype("float32")


def train_step(paddle, model, x_np, dtype="float32"):
    """Train-mode forward and backward of sum(out * weights); returns output, grads and first BN's stats."""
    if dtype != "float32":
        model.to(dtype=dtype)
        x_np = x_np.astype(dtype)
    model.train()
    x = paddle.to_tensor(x_np, stop_gradient=False)
    out = model(x)
    weights = np.random.RandomState(1).standard_normal(out.shape).astype(dtype)
    (out * paddle.to_tensor(weights)).sum().backward()
    # a headless SqueezeNet keeps its unused classifier conv: parameters without a gradient are left out
    params = [(k, p) for k, p in model.named_parameters() if not p.stop_gradient and p.grad is not None]
    grads = {k: p.grad.numpy() for k, p in (params[0], params[-1])}
    stats = {k: v.numpy() for k, v in model.state_dict().items() if k.endswith(("_mean", "_variance"))}
    first_stats = dict(list(stats.items())[:2])
    return {"out": out.numpy(), "x_grad": x.grad.numpy(), "grads": grads, "stats": first_stats}


def main(argv):
    import paddle
    from paddle.vision import models
    from paddle.vision.models._utils import IntermediateLayerGetter
    outdir, slow = argv[0], "--slow" in argv
    results = {"layouts": {}, "reprs": {}, "numeric": {}}
    for name in selected(LAYOUTS, slow):
        with paddle.LazyGuard():  # shapes only: skips initialising ~100M parameters per model
            results["layouts"][name] = layout(LAYOUTS[name][0](models))
    for name, build in REPRS.items() if not slow else ():
        results["reprs"][name] = repr(build(models))
    for name in selected(NUMERIC, slow):
        build, shape, train_dtype, _ = NUMERIC[name]
        paddle.seed(sum(map(ord, name)))
        model = build(models)
        randomize_norms(model, seed=len(name))
        paddle.save(model.state_dict(), os.path.join(outdir, f"{name}.pdparams"))
        x_np = inputs(name, shape)
        model.eval()
        entry = {"x": x_np, "eval": to_numpy(model(paddle.to_tensor(x_np)))}
        if name == "resnet18":
            getter = IntermediateLayerGetter(model, {"layer1": "feat1", "layer3": "feat2"})
            entry["intermediate"] = {k: v.numpy() for k, v in getter(paddle.to_tensor(x_np)).items()}
        if train_dtype:
            entry["train"] = train_step(paddle, model, x_np, train_dtype)
        results["numeric"][name] = entry
    with open(os.path.join(outdir, "ref.pkl"), "wb") as f:
        pickle.dump(results, f, protocol=4)


if __name__ == "__main__":
    main(sys.argv[1:])

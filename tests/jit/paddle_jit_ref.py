"""Run in the reference PaddlePaddle 3.3.1 (legacy IR): ``python -m tests.jit.paddle_jit_ref FOLDER``.

Saves the jit_nets Layers with Paddle's jit.save into FOLDER/paddle/<name> (with their inputs and Paddle's
outputs in FOLDER/paddle_results.npz), and loads the models torchpaddle saved in FOLDER/ours/<name> with
Paddle's jit.load, writing what they give to FOLDER/ours_in_paddle.npz. The jit_nets.DYNAMIC (and, ours only,
OURS_ONLY) nets run at each of their (batch, size) configurations, keys ``<name>@<i>``.
"""
import os
import sys

os.environ["FLAGS_enable_pir_api"] = "0"   # jit.save writes the legacy .pdmodel ProgramDesc

import numpy as np  # noqa: E402
import paddle  # noqa: E402

from tests.jit import jit_nets  # noqa: E402


def main(folder):
    results = {}
    for name in ("mlp", "conv"):
        layer = jit_nets.build(paddle, name)
        spec = [paddle.static.InputSpec([None] + jit_nets.INPUT_SHAPES[name], "float32", "x")]
        static = paddle.jit.to_static(layer, input_spec=spec, full_graph=True)
        x = jit_nets.inputs(name, 3)
        results[name] = static(paddle.to_tensor(x)).numpy()
        paddle.jit.save(static, os.path.join(folder, "paddle", name))
    for name, configs in jit_nets.DYNAMIC.items():
        layer = jit_nets.build(paddle, name)
        spec = [paddle.static.InputSpec([None] + jit_nets.INPUT_SHAPES[name], "float32", "x")]
        paddle.jit.save(paddle.jit.to_static(layer, input_spec=spec, full_graph=True),
                        os.path.join(folder, "paddle", name))
        loaded = paddle.jit.load(os.path.join(folder, "paddle", name))
        for i, (batch, size) in enumerate(configs):
            x = paddle.to_tensor(jit_nets.inputs(name, batch, seed=i, size=size))
            results[f"{name}@{i}"] = loaded(x).numpy()   # the saved program at another batch / size
    np.savez(os.path.join(folder, "paddle_results.npz"), **results)
    theirs = {}
    for name in ("mlp", "conv"):
        prefix = os.path.join(folder, "ours", name)
        if os.path.exists(prefix + ".pdmodel"):
            loaded = paddle.jit.load(prefix)
            theirs[name] = loaded(paddle.to_tensor(jit_nets.inputs(name, 5, seed=2))).numpy()
            theirs[name + ":params"] = np.array(len(loaded.parameters()))
    for name, configs in list(jit_nets.DYNAMIC.items()) + list(jit_nets.OURS_ONLY.items()):
        prefix = os.path.join(folder, "ours", name)
        if os.path.exists(prefix + ".pdmodel"):
            loaded = paddle.jit.load(prefix)
            for i, (batch, size) in enumerate(configs):
                x = paddle.to_tensor(jit_nets.inputs(name, batch, seed=i, size=size))
                theirs[f"{name}@{i}"] = loaded(x).numpy()
    np.savez(os.path.join(folder, "ours_in_paddle.npz"), **theirs)


if __name__ == "__main__":
    main(sys.argv[1])

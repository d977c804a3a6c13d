"""A small two-input, two-output model saved by real Paddle 3.3.1 in both program formats (legacy ``.pdmodel`` and
PIR ``.json``, each with its ``.pdiparams``), and what Paddle's own predictor gives on them: input and output names,
handle shapes and types, outputs through the handles and through ``run(list)``. Run inside the reference
virtualenv: ``python -m tests.inference.predictor_cases OUT.pkl FOLDER`` (the models are written under FOLDER).
"""
import os
import pickle
import subprocess
import sys

import numpy as np

FORMATS = {"legacy": "pdmodel", "pir": "json"}
X = np.linspace(-1, 1, 8, dtype="float32").reshape(2, 4)
IMG = np.linspace(-2, 3, 50, dtype="float32").reshape(2, 1, 5, 5)


def save(paddle, prefix):
    paddle.seed(7)

    class Net(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = paddle.nn.Linear(4, 3)
            self.conv = paddle.nn.Conv2D(1, 2, 3, padding=1)

        def forward(self, x, img):
            return paddle.nn.functional.softmax(paddle.nn.functional.relu(self.fc(x))), \
                self.conv(img).mean(axis=[2, 3])

    spec = [paddle.static.InputSpec([None, 4], "float32", "x"),
            paddle.static.InputSpec([None, 1, 5, 5], "float32", "img")]
    net = Net()
    net.eval()
    paddle.jit.save(net, prefix, input_spec=spec)


def error_of(fn):
    try:
        fn()
    except Exception as e:   # noqa: BLE001  (the type is the result)
        return type(e).__name__
    return None


def predict(paddle, folder, fmt):
    from paddle import inference
    prefix = os.path.join(folder, fmt, "m")
    config = inference.Config(f"{prefix}.{FORMATS[fmt]}", f"{prefix}.pdiparams")
    predictor = inference.create_predictor(config)
    out = {"inputs": predictor.get_input_names(), "outputs": predictor.get_output_names()}
    x = predictor.get_input_handle("x")
    out["fresh"] = (x.shape(), str(x.type()))
    x.reshape([2, 4])
    out["reshaped"] = x.shape()
    x.copy_from_cpu(X)
    predictor.get_input_handle("img").copy_from_cpu(IMG)
    predictor.run()
    handles = [predictor.get_output_handle(n) for n in out["outputs"]]
    out["handles"] = [(h.shape(), str(h.type()), h.copy_to_cpu()) for h in handles]
    tensors = predictor.run([paddle.to_tensor(X[:1]), paddle.to_tensor(IMG[:1])])
    out["run_list"] = [t.numpy() for t in tensors]
    out["errors"] = {
        "unknown_input": error_of(lambda: predictor.get_input_handle("nope")),
        "copy_list": error_of(lambda: x.copy_from_cpu([1.0, 2.0])),
    }
    return out


def main(path, folder):
    if len(sys.argv) > 3 and sys.argv[3] == "legacy":
        import paddle
        save(paddle, os.path.join(folder, "legacy", "m"))
        return
    # Paddle picks the program format at start-up (FLAGS_enable_pir_api), so the legacy file is written by a
    # second process
    env = dict(os.environ, FLAGS_enable_pir_api="0")
    proc = subprocess.run([sys.executable, "-m", "tests.inference.predictor_cases", path, folder, "legacy"],
                          env=env, capture_output=True, text=True)
    if proc.returncode:
        raise RuntimeError(f"saving the legacy model failed:\n{proc.stderr[-3000:]}")
    import paddle
    save(paddle, os.path.join(folder, "pir", "m"))
    results = {fmt: predict(paddle, folder, fmt) for fmt in FORMATS}
    results["files"] = {fmt: sorted(os.listdir(os.path.join(folder, fmt))) for fmt in FORMATS}
    with open(path, "wb") as f:
        pickle.dump({"version": paddle.__version__, "results": results}, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

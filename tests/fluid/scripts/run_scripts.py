"""Run every fluid-era script here in one process and pickle their LOSSES (and PARAMETERS) to argv[1]:
``python -m tests.fluid.scripts.run_scripts OUT.pkl`` on Paddle 1.8.5, or through ``python -m torchpaddle``."""
import os
import pickle
import runpy
import sys

SCRIPTS = ["mnist_conv", "cifar_resnet", "word2vec", "recommender", "dygraph_mnist"]


def run_all(names=SCRIPTS):
    folder = os.path.dirname(os.path.abspath(__file__))
    results = {}
    for name in names:
        try:
            found = runpy.run_path(os.path.join(folder, name + ".py"), run_name="fluid_script")
            results[name] = {"losses": found["LOSSES"], "parameters": found.get("PARAMETERS")}
        except Exception as exc:  # noqa: BLE001 - recorded for the test to report
            import traceback
            results[name] = ("E", type(exc).__name__, traceback.format_exc()[-3000:])
    return results


if __name__ == "__main__":
    with open(sys.argv[1], "wb") as f:
        pickle.dump({"results": run_all(sys.argv[2:] or SCRIPTS)}, f, protocol=2)

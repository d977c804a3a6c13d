"""Lower layers never import higher ones (DESIGN.md), function-local imports included.

framework -> ops -> tensor, autograd, static -> nn -> optimizer -> distributed, jit, hapi, vision, fluid; the
front-end packages (``paddle.base``, ``_C_ops``...) and the entry points sit on top. ``static.nn`` and
``static.amp`` are Paddle's static-graph front ends built on nn layers and optimizers, so they sit above those.
A package's ``__init__`` may import its own subpackages (that is how it re-exports them).
"""
import ast
import os

import pytest

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "torchpaddle")

# module prefix (longest match wins) -> layer
LAYERS = {
    "framework": 0, "utils": 0, "device": 0, "reader": 0,
    "ops": 1,
    "tensor": 2, "autograd": 2, "static": 2, "linalg": 2,
    "nn": 3, "io": 3, "metric": 3, "regularizer": 3,
    "static.nn": 3.5,
    "optimizer": 4,
    "static.amp": 4.5,
    # the passes rewrite what static.amp and static.nn build; recompute is also append_backward(checkpoints=)
    "static.passes": 4.5, "static.passes.recompute": 2,
    "distributed": 5, "jit": 5, "hapi": 5, "vision": 5, "fluid": 6, "callbacks": 5, "fft": 2, "signal": 2,
    "distribution": 3, "sparse": 4,
    "geometric": 4, "text": 5, "audio": 5,
    "inference": 6, "profiler": 6, "onnx": 6, "quantization": 6,
    "base": 6, "_C_ops": 6, "_legacy_C_ops": 6, "common_ops_import": 6, "incubate": 6, "amp": 4.5,
    "": 7, "__main__": 7, "_alias": 7, "distributed.launch": 7,
    "distributed._mp_main": 7,
    "utils.install_check": 7,   # run_check trains a network with the whole package
}


def layer_of(module):
    """``module`` is dotted below torchpaddle ('' for the package itself)."""
    parts = module.split(".") if module else []
    for n in range(len(parts), -1, -1):
        prefix = ".".join(parts[:n])
        if prefix in LAYERS:
            return LAYERS[prefix]
    raise KeyError(module)


def _modules():
    for folder, _, files in os.walk(ROOT):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, ROOT)[:-3].split(os.sep)
                is_package = rel[-1] == "__init__"
                module = ".".join(rel[:-1] if is_package else rel)
                yield path, module, is_package


def _imports(path, module, is_package):
    """(line, imported module below torchpaddle) for every torchpaddle import in the file, at any depth."""
    package = module.split(".") if is_package else module.split(".")[:-1]
    if module == "":
        package = []
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                target = base + (node.module.split(".") if node.module else [])
            elif (node.module or "").split(".")[0] == "torchpaddle":
                target = node.module.split(".")[1:]
            else:
                continue
            for alias in node.names:   # ``from . import nn`` names a module
                yield node.lineno, ".".join(target + [alias.name]) if not node.module else ".".join(target)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "torchpaddle":
                    yield node.lineno, ".".join(alias.name.split(".")[1:])


def violations():
    found = []
    for path, module, is_package in _modules():
        own = layer_of(module)
        for line, target in _imports(path, module, is_package):
            if is_package and (target + ".").startswith(module + ".") and module:
                continue
            if module == "" and is_package:
                continue
            try:
                theirs = layer_of(target)
            except KeyError:
                found.append(f"{os.path.relpath(path, ROOT)}:{line} imports torchpaddle.{target}, which has no layer")
                continue
            if theirs > own:
                found.append(f"{os.path.relpath(path, ROOT)}:{line} (layer {own}) imports torchpaddle.{target} "
                             f"(layer {theirs})")
    return found


def test_every_module_has_a_layer():
    for _, module, _ in _modules():
        layer_of(module)


def test_lower_layers_never_import_higher_ones():
    found = violations()
    assert not found, "layering violations:\n" + "\n".join(found)


@pytest.mark.parametrize("module, target, bad", [("framework.tensor", "tensor.creation", True),
                                                 ("nn.layer.common", "framework.tensor", False),
                                                 ("static.executor", "nn", True),
                                                 ("static.nn.common", "nn.layer", False)])
def test_the_rule_itself(module, target, bad):
    assert (layer_of(target) > layer_of(module)) is bad

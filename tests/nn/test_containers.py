"""Sequential, LayerList, LayerDict, ParameterList and ParameterDict vs real PaddlePaddle 3.3.1 (cases in
container_cases.py), plus torchpaddle-only checks."""

import numpy as np
import pytest

import torchpaddle as paddle
import paddle_ref
from tests.nn import container_cases as cases
from tests.nn.layer_case_tools import compare, run_cases

nn = paddle.nn


reference, ours, test_matches_real_paddle = paddle_ref.case_table(
    "tests.nn.container_cases", cases.CASES, lambda: run_cases(cases.CASES, paddle), compare)


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_case_runs(name, ours):
    assert not (isinstance(ours[name], tuple) and ours[name][0] == "E"), f"{name} raised {ours[name][1]}"


def test_torch_style_aliases():
    assert nn.ModuleList is nn.LayerList and nn.ModuleDict is nn.LayerDict and nn.Module is nn.Layer
    ll = nn.LayerList(modules=[nn.ReLU()])
    ll.append(module=nn.ReLU())
    ll.extend(modules=[nn.ReLU()])
    ll.insert(0, module=nn.Tanh())
    assert [type(l).__name__ for l in ll] == ["Tanh", "ReLU", "ReLU", "ReLU"]
    assert list(nn.LayerDict(modules={"a": nn.ReLU()}).keys()) == ["a"]
    with pytest.raises(TypeError):
        nn.LayerList(layers=[])


def test_containers_train_eval_and_parameters():
    seq = nn.Sequential(nn.PReLU(), nn.LayerList([nn.PReLU(3), nn.Dropout()]), nn.LayerDict({"p": nn.PReLU()}))
    assert [k for k, _ in seq.named_parameters()] == ["0._weight", "1.0._weight", "2.p._weight"]
    seq.eval()
    assert not seq[1][1].training
    x = paddle.to_tensor(np.array([[-1.0, 2.0, -3.0]], "float32"))
    np.testing.assert_allclose(nn.Sequential(nn.PReLU(init=0.5))(x).numpy(), [[-0.5, 2.0, -1.5]])

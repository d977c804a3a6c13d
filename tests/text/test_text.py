"""paddle.text vs real PaddlePaddle 3.3.1 (cases in text_cases.py), plus a brute-force Viterbi check and the
offline dataset errors."""
import itertools

import numpy as np
import pytest

import torchpaddle as paddle
import torchpaddle.text  # noqa: F401 - the lead wires paddle.text into torchpaddle/__init__
import paddle_ref
from tests.text import text_cases as cases
from tests.nn.layer_case_tools import compare, run_cases

reference, ours, test_matches_real_paddle = paddle_ref.case_table(
    "tests.text.text_cases", cases.CASES, lambda: run_cases(cases.CASES, paddle), compare)


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_case_runs(name, ours):
    assert not (isinstance(ours[name], tuple) and ours[name][0] == "E"), f"{name} raised {ours[name][1]}"


@pytest.mark.parametrize("bos_eos", [True, False])
def test_viterbi_matches_brute_force(bos_eos):
    rng = np.random.default_rng(11)
    x, trans, lengths = rng.normal(size=[3, 4, 3]), rng.normal(size=[3, 3]), [4, 1, 3]
    scores, path = paddle.text.viterbi_decode(paddle.to_tensor(x), paddle.to_tensor(trans),
                                              paddle.to_tensor(np.array(lengths)), bos_eos)
    for b, n in enumerate(lengths):
        def score(p):
            s = x[b, 0, p[0]] + sum(trans[p[i - 1], p[i]] + x[b, i, p[i]] for i in range(1, n))
            return s + (trans[-1, p[0]] + trans[-2, p[-1]] if bos_eos else 0.0)
        best = max(itertools.product(range(3), repeat=n), key=score)
        assert scores.numpy()[b] == pytest.approx(score(best))
        assert list(path.numpy()[b]) == list(best) + [0] * (4 - n)


def test_viterbi_errors():
    x = paddle.ones([2, 3, 4])
    with pytest.raises(ValueError):
        paddle.text.viterbi_decode(x, paddle.ones([3, 3]), paddle.to_tensor([3, 3]))
    with pytest.raises(ValueError):
        paddle.text.viterbi_decode(x, paddle.ones([4, 4]), paddle.to_tensor([5, 3]))
    with pytest.raises(TypeError):
        paddle.text.viterbi_decode(x, [[0.0]], paddle.to_tensor([3, 3]))


def test_datasets_offline_and_unported(tmp_path):
    with pytest.raises(RuntimeError, match="does not download"):
        paddle.text.UCIHousing(data_file=str(tmp_path / "missing.data"))
    for cls in (paddle.text.Conll05st, paddle.text.Imdb, paddle.text.Imikolov, paddle.text.Movielens,
                paddle.text.WMT14, paddle.text.WMT16):
        with pytest.raises(NotImplementedError):
            cls(data_file=str(tmp_path / "x"))

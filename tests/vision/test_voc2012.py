"""paddle.vision.datasets.VOC2012 vs real PaddlePaddle 3.3.1 on a small fake VOCtrainval tar (voc_cases.py)."""
import numpy as np
import pytest

import paddle_ref
import torchpaddle as paddle
from tests.vision import voc_cases


@pytest.fixture(scope="module")
def voc_tar(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("voc") / "VOCtrainval_11-May-2012.tar")
    voc_cases.write_tar(path)
    return path


@pytest.mark.conformance
def test_voc2012_matches_real_paddle(voc_tar):
    theirs = paddle_ref.results("tests.vision.voc_cases", voc_tar)
    ours = voc_cases.read_all(paddle, voc_tar)
    assert sorted(ours) == sorted(theirs)
    for key, (count, items) in theirs.items():
        assert ours[key][0] == count, key
        for mine, ref in zip(ours[key][1], items):
            assert (mine[0], mine[1], mine[3], mine[4]) == (ref[0], ref[1], ref[3], ref[4]), key
            np.testing.assert_array_equal(mine[2], ref[2], err_msg=str(key))
            np.testing.assert_array_equal(mine[5], ref[5], err_msg=str(key))


def test_voc2012_arguments(voc_tar, monkeypatch, tmp_path):
    data = paddle.vision.VOC2012(data_file=voc_tar, mode="valid", transform=lambda im: np.asarray(im)[:2])
    assert len(data) == 2 and data[1][0].shape[0] == 2
    with pytest.raises(AssertionError):
        paddle.vision.datasets.VOC2012(data_file=voc_tar, mode="eval")
    with pytest.raises(ValueError, match="backend"):
        paddle.vision.datasets.VOC2012(data_file=voc_tar, backend="tensor")
    with pytest.raises(AssertionError):
        paddle.vision.datasets.VOC2012(download=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    from torchpaddle.vision.datasets import _common
    monkeypatch.setattr(_common, "DATA_HOME", str(tmp_path / "dataset"))
    with pytest.raises(RuntimeError, match="does not download"):
        paddle.vision.datasets.VOC2012()

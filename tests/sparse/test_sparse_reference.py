"""paddle.sparse and paddle.sparse.nn vs real PaddlePaddle 3.3.1 (cases in sparse_cases.py): values, indices,
nnz, dtypes, reprs and the gradients of values."""
import pytest

import torchpaddle as paddle
import paddle_ref
from tests.nn.layer_case_tools import compare, run_cases
from tests.sparse import sparse_cases as cases


reference, ours, test_matches_real_paddle = paddle_ref.case_table(
    "tests.sparse.sparse_cases", cases.CASES, lambda: run_cases(cases.CASES, paddle),
    lambda o, t, where: compare(o, t, where, rtol=1e-5, atol=1e-5))


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_case_runs(name, ours):
    assert not (isinstance(ours[name], tuple) and ours[name][0] == "E"), f"{name} raised {ours[name][1]}"

"""One rank of the paddle.distributed.split checks (dygraph, and static through the Executor): each rank's
parameters are its part of a full weight from _split_cases; outputs and gradients pickled for the test."""
import pickle
import sys

import numpy as np

import torchpaddle as paddle
import torchpaddle.distributed as dist
from _split_cases import CASES, G, W_EMB, W_LIN, B_LIN, X, IDS, part_of

out_template = sys.argv[1]
dist.init_parallel_env()
rank, n = dist.get_rank(), dist.get_world_size()


class Recording(paddle.nn.initializer.Assign):
    """Assign that keeps the parameter it fills, so the test can read its gradient."""

    def __init__(self, value, into):
        super().__init__(value)
        self._into = into

    def __call__(self, param, block=None):
        self._into.append(param)
        return super().__call__(param, block)


def run_dygraph(case):
    params = []
    op, axis, gather, x_part = case["operation"], case["axis"], case["gather_out"], case["x_part"]
    if op == "embedding":
        x = paddle.to_tensor(IDS)
        w_attr = paddle.ParamAttr(initializer=Recording(part_of(W_EMB, 0, rank, n), params))
        out = dist.split(x, list(W_EMB.shape), "embedding", num_partitions=n, weight_attr=w_attr)
        b_attr = None
    else:
        x_np = part_of(X, 1, rank, n) if x_part else X
        x = paddle.to_tensor(x_np, stop_gradient=False)
        w_attr = paddle.ParamAttr(initializer=Recording(part_of(W_LIN, axis, rank, n), params))
        bias = B_LIN if axis == 0 else part_of(B_LIN, 0, rank, n)
        b_attr = paddle.ParamAttr(initializer=Recording(bias, params))
        out = dist.split(x, list(W_LIN.shape), "linear", axis=axis, num_partitions=n, gather_out=gather,
                         weight_attr=w_attr, bias_attr=b_attr)
    g = G[:, :out.shape[-1]] if op != "embedding" else np.ones(out.shape, "float32") * G[0, 0]
    (out * paddle.to_tensor(np.ascontiguousarray(g))).sum().backward()
    result = {"out": out.numpy(), "param_grads": [None if p.grad is None else p.grad.numpy() for p in params]}
    if op != "embedding":
        result["x_grad"] = x.grad.numpy()
    return result


def run_static(case):
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", list(X.shape), "float32")
            x.stop_gradient = False
            axis = case["axis"]
            w_attr = paddle.ParamAttr(name="w", initializer=paddle.nn.initializer.Assign(part_of(W_LIN, axis, rank,
                                                                                                  n)))
            bias = B_LIN if axis == 0 else part_of(B_LIN, 0, rank, n)
            b_attr = paddle.ParamAttr(name="b", initializer=paddle.nn.initializer.Assign(bias))
            out = dist.split(x, list(W_LIN.shape), "linear", axis=axis, num_partitions=n, weight_attr=w_attr,
                             bias_attr=b_attr)
            loss = paddle.sum(out * paddle.to_tensor(G[:, :W_LIN.shape[1]]))
            paddle.static.append_backward(loss)
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        got = exe.run(main, feed={"x": X}, fetch_list=[out, "w@GRAD", "b@GRAD", "x@GRAD"])
        return {"out": got[0], "param_grads": got[1:3], "x_grad": got[3], "op_types": [op.type for op in main.global_block().ops]}
    finally:
        paddle.disable_static()


res = {"rank": rank, "n": n, "cases": {}}
for key, case in CASES.items():
    res["cases"][key] = run_static(case) if case.get("static") else run_dygraph(case)
dist.barrier()
dist.destroy_process_group()
with open(out_template.format(rank), "wb") as f:
    pickle.dump(res, f)

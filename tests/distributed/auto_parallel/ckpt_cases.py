"""The state dicts of the sharded-checkpoint tests: global values (NumPy), and how each entry is laid out when
saved and when loaded on a job of ``n`` ranks. Shared by the rank worker (_ckpt_worker.py) and the tests."""
import numpy as np


def global_values():
    rng = np.random.RandomState(7)
    return {
        "model.w_col": rng.uniform(-1, 1, (8, 6)).astype("float32"),
        "model.w_row": rng.uniform(-1, 1, (6, 8)),
        "model.bias": rng.uniform(-1, 1, (6,)).astype("float32"),
        "model.emb": rng.uniform(-1, 1, (5, 3)),          # 5 rows over 4 ranks: one rank holds none
        "model.w2d": rng.uniform(-1, 1, (4, 6)),
        "model.sw": rng.uniform(-1, 1, (8, 3)),           # a ShardedWeight: each rank's block of rows
        "opt.w_col_moment1": rng.uniform(-1, 1, (8, 6)).astype("float32"),
        "opt.w_col_beta1_pow": np.array([0.81], "float32"),
        "opt.part": rng.uniform(-1, 1, (4, 2)),           # saved from a Partial tensor
        "opt.to_partial": rng.uniform(-1, 1, (4, 2)),     # loaded into a Partial tensor
        "step": np.array(3, "int64"),
    }


# key -> placements when saved / when loaded: "S0", "S1", "R", "P", "2d:S0,S1" (a 2x2 mesh on 4 ranks,
# else 1-D), "plain" (a dense tensor on every rank), "sw" (a ShardedWeight)
SAVE = {"model.w_col": "S1", "model.w_row": "S0", "model.bias": "R", "model.emb": "S0",
        "model.w2d": "2d:S0,S1", "model.sw": "sw", "opt.w_col_moment1": "S0", "opt.w_col_beta1_pow": "plain",
        "opt.part": "P", "opt.to_partial": "plain", "step": "plain"}
LOAD = {"model.w_col": "S0", "model.w_row": "R", "model.bias": "S0", "model.emb": "S1",
        "model.w2d": "2d:S1,S0", "model.sw": "sw", "opt.w_col_moment1": "S1", "opt.w_col_beta1_pow": "R",
        "opt.part": "S0", "opt.to_partial": "P", "step": "plain"}

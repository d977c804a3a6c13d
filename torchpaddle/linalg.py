"""``paddle.linalg``: the linear algebra namespace."""
from .tensor.linalg import (LINALG as __all__, matmul, norm, vector_norm, matrix_norm, cond, matrix_power,  # noqa: F401
                            matrix_rank, inv, det, slogdet, svd, svdvals, qr, eig, eigh, eigvals, eigvalsh,
                            cholesky, pinv, solve, triangular_solve, cholesky_solve, lstsq, lu, lu_unpack,
                            multi_dot, cross, cov, corrcoef, vecdot, matrix_transpose, diagonal, matrix_exp,
                            lu_solve, cholesky_inverse, householder_product, ormqr, svd_lowrank, pca_lowrank,
                            fp8_fp8_half_gemm_fused)

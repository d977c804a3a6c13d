"""Run inside the reference virtualenv: ``python -m tests.optable.conformance_main OUT.pkl [ROWS_MODULE]``.
Runs the op-table rows (all, or one rows module) on real PaddlePaddle and pickles the records."""
import pickle
import sys
import warnings

warnings.filterwarnings("ignore")


def main(path, only=None):
    import paddle
    from tests.optable.runner import load_rows, run_case
    paddle.seed(0)
    results = {}
    for name, case in load_rows(only).items():
        if not case.conformance:
            continue
        try:
            results[name] = run_case(paddle, case)
        except Exception as exc:  # noqa: BLE001 - a row the reference cannot even set up
            results[name] = {"setup_error": f"{type(exc).__name__}: {exc}"}
    with open(path, "wb") as f:
        pickle.dump({"version": paddle.__version__, "results": results}, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None)

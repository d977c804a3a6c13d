"""A torch 2.13 defect: a process that created a meta tensor after init_process_group("gloo") and ran a
collective aborts ~half the time at interpreter finalization ("terminate called without an active exception",
SIGABRT), even after destroy_process_group (reproduced with plain torch and torchrun). Static-graph building
uses meta tensors, so static jobs hit it. Processes started by ``python -m torchpaddle`` or the launcher leave
without finalization (torchpaddle.distributed.env.finish_process) and never abort; workers started otherwise
may, so these helpers run such a job again (up to 3 times) when, and only when, that exact exit abort happened;
any other failure fails at once.
"""
from _harness import check_ok, run_job, run_ranks

EXIT_ABORT = "terminate called without an active exception"
ATTEMPTS = 3


def aborted_at_exit(output):
    return EXIT_ABORT in output


def _retry(run, outputs):
    for attempt in range(ATTEMPTS):
        result = run()
        if attempt < ATTEMPTS - 1 and any(aborted_at_exit(o) for o in outputs(result)):
            continue
        return result


def run_ranks_retrying(argv, n, timeout):
    results = _retry(lambda: run_ranks(argv, n, timeout=timeout), lambda rs: [o or "" for _, o in rs])
    check_ok(results)
    return results


def run_job_retrying(worker, n, tmp, timeout):
    def run():
        try:
            return run_job(worker, n, tmp, timeout=timeout), ""
        except AssertionError as e:   # check_ok's message holds the failing rank's output
            return None, str(e)
    result, error = _retry(run, lambda r: [r[1]])
    assert result is not None, error
    return result

"""A known, not yet understood defect: a gloo job whose static-mode Executor/CompiledProgram runs did
collectives (c_allreduce_sum/c_broadcast kernels, or CompiledProgram's own num_trainers all-reduce) sometimes
aborts at interpreter exit ("terminate called without an active exception", SIGABRT) after all its work and
output are done, even with destroy_process_group called (~10-20% of runs). Not seen with the same kernels
called eagerly, with static mode but no collective, or in dygraph jobs. Until it is fixed, these helpers run
such a job again (up to 3 times) when, and only when, that exact exit abort happened; any other failure fails at once.
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

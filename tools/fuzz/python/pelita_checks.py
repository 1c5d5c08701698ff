"""Schemathesis checks for Pelita services, loaded through SCHEMATHESIS_HOOKS.

A 5xx is acceptable only when it is a deliberate answer: documented for the operation (the
built-in status_code_conformance check) and carrying a JSON error body with a code other than
`internal_error` (what the kit answers for an unhandled exception, i.e. a crash).
"""

import os

import schemathesis


def _error_code(body):
    if not isinstance(body, dict):
        return None
    error = body.get("error")
    if isinstance(error, dict):  # the kit default: { error: { code, message } }
        return error.get("code")
    return body.get("code")  # specs that fix { error: string, code?: string }


@schemathesis.check
def no_crash(ctx, response, case):
    if response.status_code < 500:
        return None
    try:
        body = response.json()
    except Exception as exc:  # noqa: BLE001 - any non-JSON 5xx is a crash
        raise AssertionError(f"{response.status_code} without a JSON error body") from exc
    code = _error_code(body)
    if code in (None, "internal_error"):
        raise AssertionError(f"unhandled server error {response.status_code}: {body}")
    return None



# Reach recording (`FUZZ_REACH_FILE`): one line per validated response,
# `phase<TAB>operation<TAB>status<TAB>checks that ran<TAB>seconds`, so two sizes of a run can be
# compared on what they reached, not only on whether they passed. The engine calls no
# validation hook, so the recorder wraps the function that runs the checks.
_REACH_FILE = os.environ.get("FUZZ_REACH_FILE")


def _recording(run_checks):
    def run_and_record(*, case, response, ctx, checks, on_failure, on_success=None):
        ran = set()

        def failed(name, collected, failure):
            ran.add(name)
            on_failure(name, collected, failure)

        def succeeded(name, checked_case):
            ran.add(name)
            if on_success is not None:
                on_success(name, checked_case)

        try:
            return run_checks(
                case=case, response=response, ctx=ctx, checks=checks,
                on_failure=failed, on_success=succeeded,
            )
        finally:
            phase = case.meta.phase.name.value if case.meta is not None else "explicit"
            with open(_REACH_FILE, "a", encoding="utf-8") as out:
                out.write(
                    f"{phase}\t{case.operation.label}\t{response.status_code}"
                    f"\t{','.join(sorted(ran))}\t{response.elapsed:.4f}\n"
                )

    return run_and_record


if _REACH_FILE:
    import schemathesis.checks
    import schemathesis.engine._validate
    import schemathesis.engine.run.stateful._executor

    _recorded = _recording(schemathesis.checks.run_checks)
    for _module in (
        schemathesis.checks,
        schemathesis.engine._validate,
        schemathesis.engine.run.stateful._executor,
    ):
        _module.run_checks = _recorded

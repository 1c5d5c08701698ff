"""Schemathesis checks for Pelita services, loaded through SCHEMATHESIS_HOOKS.

A 5xx is acceptable only when it is a deliberate answer: documented for the operation (the
built-in status_code_conformance check) and carrying a JSON error body with a code other than
`internal_error` (what the kit answers for an unhandled exception, i.e. a crash).
"""

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

"""Child-process side of the multi-process submit test: one process = one warm Lambda
container. The parent loads the templates and imports the AttemptsFunction handler before
forking (the "cold start"); each child drops the inherited AWS clients (connections must not be
shared across processes), waits on the barrier, then sends one HTTP API event through the same
routing the fronts use."""
from __future__ import annotations


def warm() -> object:
    from local_runtime import invoke as inv
    from local_runtime import stack

    svc = stack.load_all()["exams"]
    inv.ensure_paths(code_dirs=[svc.dir])
    inv.load_handler(svc.functions["AttemptsFunction"])
    return svc


def submit_once(svc, attempt_id: str, headers: dict[str, str], barrier, results) -> None:
    try:
        from lambdakit import aws
        from local_runtime import invoke as inv

        aws.reset()
        barrier.wait(timeout=120)
        r = inv.dispatch(svc, "POST", f"/api/attempts/{attempt_id}/submit", "", headers, None)
        body = r.json()
        results.put((r.status, body.get("error") if r.status >= 400 else body["data"]["status"]))
    except Exception as exc:  # noqa: BLE001 - reported to the parent
        results.put(("exception", repr(exc)))

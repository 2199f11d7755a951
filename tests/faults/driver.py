"""The generic fault driver (issue 23): one route case × faults × positions → outcomes.

A :class:`RouteCase` is data: the service, a ``setup`` that makes fresh resources for one run
(returns a dict of values, ``v``), the request (method, path and body built from ``v``), the
headers, and a ``read`` that reads the state the route changes back (through the API where a
route shows it, else from the table). A worker case has a ``call`` instead of a request: it
runs the worker as its event source would (``workers.py``).

For each case the driver

1. runs it clean on fresh resources, counting the DynamoDB calls of each selector (all,
   writes, transactions, conditioned single writes, conditioned transactions); a worker runs
   twice (the next schedule tick or queue delivery must find nothing left to do);
2. for each fault and each position (first, middle, last call of the fault's selector), runs it
   on fresh resources with the fault injected at that call, and checks the answer: the service's
   error format, the right status for the fault (503 + ``Retry-After`` for capacity, 413/422 for
   a refused value, 500 for ``InternalServerError``, never a 500 for a condition failure), no
   stack trace. A fault scheduled at a call the faulted run never made is a violation (a
   selector or a position that silently injects nothing must not pass);
3. re-sends the same request without faults when the faulted answer was not a success (what a
   client does), or runs the worker again (what its schedule or queue does), and compares the
   read-back state with the clean run's (ids, times and the run's own unique values
   normalised): no transition lost or applied twice.

Results go to ``.local/faults/results.jsonl`` (``tests/faults/report.py`` sums them up).
"""
from __future__ import annotations

import json
import os
import re
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .inject import count_calls, inject

LONG = os.environ.get("FAULTS_PROFILE") == "long"
RESULTS = Path(os.environ.get("FAULTS_RESULTS") or Path(__file__).resolve().parents[2] / ".local" / "faults" / "results.jsonl")

# fault → (op the positions count over, accepted statuses of the faulted answer)
CAPACITY = {503}
#: contention cancellations are retried by ``lambdakit.ddb.Table.transact``: the fault lasts for
#: every attempt of its budget, so the route sees contention that outlasts the retries
PERSISTENT = {"cancel:TransactionConflict", "cancel:ThrottlingError"}


def fault_times(fault: str) -> int:
    """How many consecutive selected calls one fault case fails."""
    from lambdakit import ddb

    return ddb.TRANSACT_ATTEMPTS if fault in PERSISTENT else 1

FAULTS: dict[str, tuple[str, set[int] | None]] = {
    "ConditionalCheckFailedException": ("cond", None),   # domain 4xx, a confirmed success, or 503
    "cancel:ConditionalCheckFailed": ("condtx", None),
    "cancel:ValidationError": ("TransactWriteItems", {413, 422}),
    "cancel:TransactionConflict": ("TransactWriteItems", CAPACITY),
    "cancel:ThrottlingError": ("TransactWriteItems", CAPACITY),
    "ProvisionedThroughputExceededException": ("*", CAPACITY),
    "InternalServerError": ("*", {500}),
    "ambiguous": ("write", None),
}
# the sample run by `make test`: one fault per route case at one position (the first call or the
# last, in turn); case i takes SAMPLE[i % len(SAMPLE)], or the next one in this order that the
# case has a call for
SAMPLE = ("ProvisionedThroughputExceededException", "ambiguous", "ConditionalCheckFailedException",
          "cancel:ConditionalCheckFailed", "InternalServerError", "cancel:ValidationError",
          "cancel:TransactionConflict", "cancel:ThrottlingError")

Json = Any


@dataclass
class Ctx:
    """What a case's builders see: the service client and the signed-in principals."""
    client: Any
    headers: dict
    extra: dict = field(default_factory=dict)


@dataclass
class RouteCase:
    name: str
    service: str
    method: str
    path: Callable[[dict], str]
    setup: Callable[[Ctx], dict] = lambda ctx: {}
    body: Callable[[dict], Json] | None = None
    read: Callable[[Ctx, dict, Json], Json] | None = None
    headers: Callable[[Ctx, dict], dict] | None = None
    ok: tuple[int, ...] = (200, 201, 202, 204)
    #: a worker case: runs the worker (``call(ctx, v)``) instead of an HTTP request; an exception
    #: is the worker asking for redelivery, and the driver then runs it again
    call: Callable[[Ctx, dict], Any] | None = None
    #: known product violations: ``fault`` or ``fault@first|middle|last|<n>`` → the bug (strict:
    #: a listed fault case that passes fails the test, so a fix has to remove its entry)
    xfail: dict[str, str] = field(default_factory=dict)

    def known_bug(self, fault: str, at: int, n: int) -> str | None:
        names = [f"{fault}@{at}"] + [f"{fault}@{w}" for w, i in (("first", 1), ("middle", (n + 1) // 2), ("last", n))
                                     if at == i] + [fault]
        return next((self.xfail[k] for k in names if k in self.xfail), None)


def fresh_insert(where: str) -> str:
    """The known violation shared by many create routes (for their ``xfail`` entries)."""
    return (f"{where}: the insert of a freshly minted id fails its attribute_not_exists condition (reachable "
            "only by an id collision) and the ConditionFailed is not mapped: 500; retry with a new id, or answer "
            "409/503")


def tag() -> str:
    return uuid.uuid4().hex[:10]


_VOLATILE = re.compile(r"(^|_)(id|ids|at|seconds|taken|token|etag|timestamp|time|date|expires|ttl|version|seq|cursor|url|"
                       r"key|code|hash|secret|number|no)$|Id$|At$", re.I)
_UUIDISH = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{10,}|"
                      r"\d{4}-\d\d-\d\dT[\d:.]+Z?[+\d:]*", re.I)


def normalise(value: Json, v: dict) -> Json:
    subs = sorted(((str(x), f"<{k}>") for k, x in v.items() if isinstance(x, str) and len(x) >= 6),
                  key=lambda p: -len(p[0]))

    def walk(x: Json) -> Json:
        if isinstance(x, dict):
            return {k: walk(val) for k, val in sorted(x.items()) if not _VOLATILE.search(k)}
        if isinstance(x, list):
            return [walk(i) for i in x]
        if isinstance(x, str):
            for s, rep in subs:
                x = x.replace(s, rep)
            return _UUIDISH.sub("<x>", x)
        return x

    return walk(value)


@dataclass
class Crash:
    """An exception that escaped the handler (Lambda would answer API Gateway's bare 500)."""
    exc: BaseException
    status: int = 599
    headers: dict = field(default_factory=dict)

    @property
    def text(self) -> str:
        return f"unhandled {type(self.exc).__name__}: {self.exc}"

    def json(self) -> Json:
        return None


def diff(a: Json, b: Json, path: str = "") -> list[str]:
    """Where two read-backs differ (faulted+resent vs clean), as ``path: got != clean``."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b)) for d in diff(a.get(k), b.get(k), f"{path}.{k}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in diff(x, y, f"{path}[{i}]")]
    return [] if a == b else [f"{path or '.'}: {json.dumps(a, default=str)[:80]} != {json.dumps(b, default=str)[:80]}"]


def send(case: RouteCase, ctx: Ctx, v: dict):
    try:
        return _send(case, ctx, v)
    except Exception as exc:  # noqa: BLE001 - reported as a violation
        return Crash(exc)


@dataclass
class Ran:
    """A worker run that returned."""
    value: Any
    status: int = 200
    headers: dict = field(default_factory=dict)
    text: str = ""

    def json(self) -> Json:
        return None


def _send(case: RouteCase, ctx: Ctx, v: dict):
    if case.call is not None:
        return Ran(case.call(ctx, v))
    hdr = case.headers(ctx, v) if case.headers else ctx.headers
    kw: dict = {"headers": hdr, "source_ip": v["_ip"]}
    if case.body is not None:
        b = case.body(v)
        kw["body" if isinstance(b, bytes) else "json"] = b  # bytes: a raw body (multipart, signed webhooks)
    return ctx.client.request(case.method, case.path(v), **kw)


def _body(r) -> Json:
    try:
        return r.json()
    except ValueError:
        return None


def error_shape_ok(service: str, body: Json) -> bool:
    if not isinstance(body, dict):
        return False
    if service == "campaigns":
        return body.get("success") is False and isinstance(body.get("error"), dict) and "code" in body["error"]
    if service == "exams":
        return isinstance(body.get("error"), str) and "status" in body
    return isinstance(body.get("error"), str)


def positions(n: int) -> list[int]:
    if n <= 0:
        return []
    return sorted({1, (n + 1) // 2, n}) if LONG else sorted({1, n})


def check_answer(case: RouteCase, fault: str, r) -> list[str]:
    problems: list[str] = []
    if case.call is not None:
        return problems  # a worker that raises is redelivered: only the state read back counts
    if isinstance(r, Crash):
        return [r.text]
    body = _body(r)
    if "Traceback" in r.text or 'File "/' in r.text:
        problems.append("stack trace in the answer")
    accepted = FAULTS[fault][1]
    if r.status >= 400 and not error_shape_ok(case.service, body):
        problems.append(f"answer {r.status} not in the {case.service} error format: {r.text[:200]}")
    if accepted is not None and r.status not in accepted and r.status >= 300:
        # a 2xx under a capacity/server fault: the faulted call was best-effort (the read-back
        # comparison below still decides whether the route's state is right)
        problems.append(f"status {r.status}, expected one of {sorted(accepted)}: {r.text[:200]}")
    if accepted is None and r.status >= 500 and r.status != 503:
        problems.append(f"status {r.status} for {fault}: {r.text[:200]}")
    if r.status == 503 and "retry-after" not in r.headers:
        problems.append("503 without Retry-After")
    return problems


def sample_fault(counts: dict[str, int], index: int) -> str | None:
    """The fault the sample gives case number ``index``: SAMPLE in turn, skipping the faults
    the case has no call for (so every case of the sample injects a fault)."""
    for k in range(len(SAMPLE)):
        fault = SAMPLE[(index + k) % len(SAMPLE)]
        if positions(counts[FAULTS[fault][0]]):
            return fault
    return None


def run_case(case: RouteCase, ctx: Ctx, faults: tuple[str, ...] | None = None, *,
             sample: int | None = None) -> list[dict]:
    """Clean run, then every fault × position (or, with ``sample=i``, the one fault
    ``sample_fault`` picks); returns one outcome dict per fault case. A case whose fault was
    scheduled but never injected (the call it targets did not happen) is a violation."""
    def fresh() -> dict:
        v = case.setup(ctx)
        v["_ip"] = "10." + ".".join(str(b) for b in uuid.uuid4().bytes[:3])  # one client IP per run (per-IP limits)
        return v

    worker = case.call is not None
    v = fresh()
    with count_calls("*") as all_c, count_calls("write") as w_c, count_calls("TransactWriteItems") as t_c, \
            count_calls("cond") as c_c, count_calls("condtx") as ct_c:
        r = send(case, ctx, v)
    assert r.status in case.ok, f"{case.name} clean run: {r.status} {r.text[:300]}"
    counts = {"*": all_c.calls, "write": w_c.calls, "TransactWriteItems": t_c.calls, "cond": c_c.calls, "condtx": ct_c.calls}
    if worker:  # the next schedule tick / queue delivery finds nothing left to do
        r = send(case, ctx, v)
        assert r.status in case.ok, f"{case.name} clean second run: {r.status} {r.text[:300]}"
    clean = normalise(case.read(ctx, v, _body(r)) if case.read else None, v)
    if sample is not None:
        picked = sample_fault(counts, sample)
        faults = (picked,) if picked else ()
    out: list[dict] = []
    for fault in tuple(FAULTS) if faults is None else faults:
        op = FAULTS[fault][0]
        ats = positions(counts[op])
        if sample is not None and ats:  # the sample: the first call or the last, in turn
            ats = [ats[0] if (sample // len(SAMPLE)) % 2 == 0 else ats[-1]]
        for at in ats:
            v2 = fresh()
            with inject(op, fault, at=at, times=fault_times(fault)) as f:
                r1 = send(case, ctx, v2)
            problems = check_answer(case, fault, r1) if f.fired else [
                f"scheduled at {op} call {at} of {counts[op]} (clean run) but never injected: "
                f"the faulted run made {f.calls} such calls"]
            final = r1
            # a client resends a failed request; a worker runs again (the next schedule tick, or
            # SQS delivering what is left) whatever the faulted run answered
            if worker or r1.status not in case.ok:
                final = send(case, ctx, v2)
                if final.status >= 500:
                    problems.append(f"{'second run' if worker else 'resend'} without faults answered "
                                    f"{final.status}: {final.text[:200]}")
            got = normalise(case.read(ctx, v2, _body(final)) if case.read else None, v2)
            if got != clean:
                problems.append("read-back differs from a clean run: " + "; ".join(diff(got, clean))[:400])
            out.append({"route": case.name, "fault": fault, "at": at, "of": counts[op], "fired": f.fired, "where": f.where,
                        "reasons": f.reasons, "status": r1.status,
                        "retry_status": final.status if final is not r1 else None,
                        "violations": problems, "xfail": case.known_bug(fault, at, counts[op])})
    return out


def record(results: list[dict]) -> None:
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    data = "".join(json.dumps(row) + "\n" for row in results).encode()
    fd = os.open(RESULTS, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:  # one write per route: safe with pytest-xdist workers appending at once
        os.write(fd, data)
    finally:
        os.close(fd)

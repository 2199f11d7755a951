"""Run one Lambda function the way the Lambda runtime does, in this fresh process.

Started as ``python -I -S bench/lambda_runner.py <spec.json>`` (isolated: no PYTHON* variables,
no site-packages, no user site): only the standard library is importable until the paths of
the spec — the function's own folder, the layer's ``python/`` and the runtime-provided
packages (boto3 & co.), in Lambda's order — are put first on ``sys.path``. Then it imports
the handler module, calls the handler with the event and a Lambda context, and prints one
JSON line: timings, the result, and any module loaded from outside those paths.

Stdlib only (it runs before anything else is importable).
"""
from __future__ import annotations

import importlib
import json
import os
import sys
import sysconfig
import time
import uuid


class Context:
    def __init__(self, name: str, timeout_s: int = 30) -> None:
        self.function_name = name
        self.function_version = "$LATEST"
        self.memory_limit_in_mb = 512
        self.aws_request_id = str(uuid.uuid4())
        self.invoked_function_arn = f"arn:aws:lambda:us-east-1:123456789012:function:{name}"
        self.log_group_name = f"/aws/lambda/{name}"
        self.log_stream_name = "artifact"
        self._deadline = time.monotonic() + timeout_s

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


def _file_of(module: object) -> str | None:
    """``module.__file__`` without running a module ``importlib.util.LazyLoader`` left unexecuted."""
    try:
        return object.__getattribute__(module, "__dict__").get("__file__")
    except AttributeError:  # sys.modules may hold objects that are not modules
        return None


def main() -> None:
    t_start = time.perf_counter()
    c_start = time.process_time()  # this process's CPU time: the load-independent figure
    spec = json.loads(open(sys.argv[1]).read())
    sys.path[:0] = spec["paths"]
    clients: list = []
    if spec.get("profile_clients"):  # time each botocore client construction (profiling runs only)
        import botocore.session

        real = botocore.session.Session.create_client

        def timed(self, service_name, *a, **k):
            c0 = time.perf_counter()
            try:
                return real(self, service_name, *a, **k)
            finally:
                clients.append([service_name, (time.perf_counter() - c0) * 1000])

        botocore.session.Session.create_client = timed
    module_name, _, attr = spec["handler"].rpartition(".")
    out: dict = {"ok": False}
    prof = None
    if spec.get("cprofile"):  # profiling runs only: cProfile of import + first call, dumped to that path
        import cProfile

        prof = cProfile.Profile()
        prof.enable()
    try:
        t0 = time.perf_counter()
        handler = getattr(importlib.import_module(module_name), attr)
        t1 = time.perf_counter()
        result = handler(spec["event"], Context(spec.get("name", "fn")))
        t2 = time.perf_counter()
        c2 = time.process_time()
        for _ in range(int(spec.get("warm", 0))):  # warm invocations (benchmark: what the floor adds)
            handler(spec["event"], Context(spec.get("name", "fn")))
        if prof is not None:
            prof.disable()
            prof.dump_stats(spec["cprofile"])
        out.update(ok=True, result=result, import_ms=(t1 - t0) * 1000, invoke_ms=(t2 - t1) * 1000,
                   total_ms=(t2 - t_start) * 1000,
                   cpu_ms=(c2 - c_start) * 1000)
    except BaseException as exc:  # noqa: BLE001 - reported to the parent
        import traceback

        out.update(error=f"{type(exc).__name__}: {exc}", traceback=traceback.format_exc()[-4000:])
    allowed = [os.path.abspath(p) for p in spec["paths"]] + [
        os.path.abspath(sysconfig.get_paths()[k]) for k in ("stdlib", "platstdlib")]
    # read __file__ from the module's dict: getattr would run a module lambdakit.deferred left
    # unexecuted (PIL.Image behind openpyxl), and -X importtime would book it to the request
    foreign = sorted({name for name, m in list(sys.modules.items())
                      if not name.startswith("__")
                      and (f := _file_of(m))
                      and not any(os.path.abspath(f).startswith(a + os.sep) for a in allowed)})
    out["foreign_modules"] = foreign
    # the design card's binding libraries this run imported (bench_coldrequest's binding floor)
    out["binding"] = [m for m in ("pydantic", "jwt", "openpyxl", "fpdf") if m in sys.modules]
    out["clients"] = clients
    sys.stdout.flush()
    print("\n@@RESULT@@" + json.dumps(out, default=str))


if __name__ == "__main__":
    main()

"""Run functions as Lambda would, each in a fresh isolated process, against the emulator.

Shared by ``tests/platform/test_artifact.py`` (the built artifact loads and serves) and
``bench/bench_coldrequest.py`` (what the first request of a cold container costs).

* ``Emulator``: a subprocess (``python bench/lambda_sandbox.py serve``) running the AWS
  emulator (moto behind ``local_runtime.emulator``) on a free port with every template's
  resources provisioned; it writes each function's resolved environment and a real DynamoDB
  item (for the floor's GetItem) to a JSON file, and lives until its stdin closes.
* ``runtime_dir``: the packages the python3.11 Lambda runtime itself provides (boto3,
  botocore, s3transfer, jmespath, python-dateutil, six, urllib3), linked from this virtualenv
  into a directory of their own; nothing else of the virtualenv is visible to a function.
* ``invoke``: ``python -I -S bench/lambda_runner.py`` with ``sys.path`` = function folder,
  layer ``python/``, runtime packages (Lambda's order), the function's environment, and
  tracing as on Lambda (``LAMBDA_TASK_ROOT`` set; X-Ray sends to a closed local UDP port).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RUNNER = Path(__file__).resolve().parent / "lambda_runner.py"
EVENTS = ROOT / "events" / "functions"
#: What the AWS Lambda python3.11 runtime ships outside the function and its layers.
RUNTIME_PROVIDED = ("boto3", "botocore", "s3transfer", "jmespath", "dateutil", "six.py", "urllib3")
REGION = "us-east-1"
FLOOR_KEY = {"pk": "BENCH#floor", "sk": "BENCH#floor"}


def event_for(service: str, logical_id: str) -> dict:
    return json.loads((EVENTS / f"{service}.{logical_id}.json").read_text())


def runtime_dir(base: Path) -> Path:
    """A directory holding (symlinks to) only the runtime-provided packages."""
    import boto3

    site = Path(boto3.__file__).resolve().parent.parent
    out = base / "lambda-runtime"
    out.mkdir(parents=True, exist_ok=True)
    for name in RUNTIME_PROVIDED:
        link = out / name
        if not link.exists():
            link.symlink_to(site / name)
    return out


def layer_from_venv(dest: Path) -> Path:
    """What the built layer plus the Lambda runtime hold, taken from this virtualenv: links to
    the packages of ``layers/shared/requirements.txt`` and the runtime-provided ones only (so a
    dev-only package that changes behaviour, such as awscrt which botocore uses when present,
    stays out). For benchmarks on the sources, where no build is wanted."""
    import re
    from importlib import metadata

    names = [re.split(r"[=<>\[ ]", ln, maxsplit=1)[0] for ln in
             (ROOT / "layers" / "shared" / "requirements.txt").read_text().splitlines()
             if ln.strip() and not ln.startswith("#")]
    names += ["boto3", "botocore", "s3transfer", "jmespath", "python-dateutil", "six", "urllib3"]
    dest.mkdir(parents=True, exist_ok=True)
    for name in names:
        dist = metadata.distribution(name)
        base = Path(str(dist.locate_file("")))
        tops = {Path(str(f)).parts[0] for f in dist.files or [] if not str(f).startswith("..")}
        for top in tops:
            link, target = dest / top, base / top
            if target.exists() and not link.exists() and not top.endswith(".dist-info") or (
                    top.endswith(".dist-info") and target.exists() and not link.exists()):
                link.symlink_to(target)
    return dest


class Emulator:
    """The emulator subprocess with every service provisioned."""

    def __init__(self, tmp: Path, services: tuple[str, ...] = (), *, seed: bool = False) -> None:
        self.state_file = tmp / "sandbox-state.json"
        self.log = tmp / "sandbox.log"
        self.state_file.unlink(missing_ok=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "PYTHON"))}
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "serve", str(self.state_file), *services,
             *(["--seed"] if seed else [])],
            cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=open(self.log, "wb"), stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 120
        while not self.state_file.exists():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("emulator did not start:\n" + self.log.read_text()[-3000:])
            time.sleep(0.05)
        self.state: dict[str, Any] = json.loads(self.state_file.read_text())
        self.endpoint: str = self.state["endpoint"]

    def function_env(self, service: str, logical_id: str) -> dict[str, str]:
        return dict(self.state["envs"][service][logical_id])

    def stop(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __enter__(self) -> Emulator:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def base_env(endpoint: str, *, tracing: bool = True) -> dict[str, str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "TZ": "UTC",
           "AWS_ENDPOINT_URL": endpoint, "AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local",
           "AWS_REGION": REGION, "AWS_DEFAULT_REGION": REGION, "AWS_EXECUTION_ENV": "AWS_Lambda_python3.11",
           "POWERTOOLS_METRICS_NAMESPACE": "Artifact"}
    if tracing:  # as on Lambda with Tracing: Active; the segments go to a closed UDP port
        env.update({"_X_AMZN_TRACE_ID": "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1",
                    "AWS_XRAY_DAEMON_ADDRESS": "127.0.0.1:9", "AWS_XRAY_CONTEXT_MISSING": "IGNORE_ERROR"})
    else:
        env["POWERTOOLS_TRACE_DISABLED"] = "true"
    return env


def invoke(paths: list[str], handler: str, event: Any, env: dict[str, str], *, name: str = "fn",
           warm: int = 0, timeout: float = 120, python: str = sys.executable, importtime: bool = False,
           profile_clients: bool = False) -> dict[str, Any]:
    """Import ``handler`` from ``paths`` only, in a fresh isolated interpreter, and call it once."""
    paths = [os.path.abspath(p) for p in paths]
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"paths": paths, "handler": handler, "event": event, "name": name, "warm": warm,
                   "profile_clients": profile_clients}, f)
    try:
        env = {**env, "LAMBDA_TASK_ROOT": paths[0], "AWS_LAMBDA_FUNCTION_NAME": name}
        t0 = time.perf_counter()
        r = subprocess.run([python, "-I", "-S", *(["-X", "importtime"] if importtime else []), str(RUNNER), f.name], capture_output=True, text=True, env=env,
                           cwd=paths[0], timeout=timeout)
        wall = (time.perf_counter() - t0) * 1000
    finally:
        os.unlink(f.name)
    head, sep, tail = r.stdout.rpartition("@@RESULT@@")
    if not sep:
        return {"ok": False, "error": f"exit {r.returncode}", "stderr": r.stderr[-4000:], "stdout": r.stdout[-2000:]}
    out: dict[str, Any] = json.loads(tail)
    out["wall_ms"] = wall
    out["logs"] = head[-4000:]
    if importtime:
        out["importtime"] = parse_importtime(r.stderr)
    out["stderr"] = "\n".join(ln for ln in r.stderr.splitlines() if not ln.startswith("import time:"))[-4000:]
    return out


def parse_importtime(stderr: str) -> dict[str, tuple[float, float]]:
    """``-X importtime`` lines → {module: (self ms, cumulative ms)}."""
    mods: dict[str, tuple[float, float]] = {}
    for line in stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, cum_us, name = (p.strip() for p in line[len("import time:"):].split("|"))
        mods[name] = (int(self_us) / 1000, int(cum_us) / 1000)
    return mods


# ------------------------------------------------------------------ emulator subprocess
def _seed_principals(envs: dict[str, dict[str, dict[str, str]]]) -> dict[str, dict[str, str]]:
    """Each service's dev principal (its ``devseed``), as request headers: campaigns' dev API
    key, the exams super admin's Cognito ID token, the internships super admin's token."""
    from local_runtime import invoke as inv
    from local_runtime.stack import load_all

    services = load_all()
    for name, fns in envs.items():
        for env in fns.values():
            os.environ.update(env)
        inv.ensure_paths(code_dirs=[services[name].dir])
    out: dict[str, dict[str, str]] = {}
    if "campaigns" in envs:
        from campaigns import devseed as cseed

        out["campaigns"] = {"authorization": f"Bearer {cseed.seed()['api_key']}"}
    if "exams" in envs:
        import boto3

        from exams import devseed as eseed

        e = eseed.seed()
        tok = boto3.client("cognito-idp", region_name=REGION).initiate_auth(
            ClientId=e["identity"]["client_id"], AuthFlow="USER_PASSWORD_AUTH",
            AuthParameters={"USERNAME": e["super_admin"]["email"], "PASSWORD": e["super_admin"]["password"]})
        out["exams"] = {"authorization": f"Bearer {tok['AuthenticationResult']['IdToken']}"}
    if "internships" in envs:
        from internships import devseed as iseed

        admin = iseed.seed()["super_admin"]
        r = inv.dispatch(services["internships"], "POST", "/api/auth/login", "",
                         {"content-type": "application/json"}, json.dumps(admin).encode())
        out["internships"] = {"authorization": f"Bearer {r.json()['token']}"}
    return out


def _serve(state_file: Path, only: list[str], seed: bool = False) -> None:
    import socket

    sys.path[:0] = [str(ROOT)]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    from local_runtime.emulator import EmulatorServer

    server = EmulatorServer(port=port)
    server.start()
    endpoint = f"http://127.0.0.1:{port}"
    os.environ.update({"AWS_ENDPOINT_URL": endpoint, "AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local",
                       "AWS_DEFAULT_REGION": REGION, "AWS_REGION": REGION})
    from local_runtime.provision import Clients, provision
    from local_runtime.stack import load_all
    from local_runtime.testing import LOCAL_PARAMS

    clients = Clients()
    envs: dict[str, dict[str, dict[str, str]]] = {}
    floor: dict[str, Any] = {}
    for name, svc in load_all().items():
        if only and name not in only:
            continue
        se = provision(svc, LOCAL_PARAMS.get(name, {"Stage": "local"}), clients=clients)
        envs[name] = {lid: se.function_env(lid) for lid in svc.functions}
        if not floor:
            for lid, res in svc.resources_of("AWS::DynamoDB::Table").items():
                table = se.resolve({"Ref": lid})
                keys = [k["AttributeName"] for k in res["Properties"]["KeySchema"]]
                item = {k: {"S": v} for k, v in zip(keys, FLOOR_KEY.values(), strict=False)}
                clients("dynamodb").put_item(TableName=table, Item={**item, "payload": {"S": "x" * 200}})
                floor = {"table": table, "key": {k: v["S"] for k, v in item.items()}}
                break
    auth = _seed_principals(envs) if seed else {}
    tmp = state_file.with_suffix(".tmp")
    tmp.write_text(json.dumps({"endpoint": endpoint, "envs": envs, "floor": floor, "auth": auth}))
    tmp.replace(state_file)
    sys.stdin.read()  # until the parent closes our stdin
    server.stop()


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "serve":
        args = [a for a in sys.argv[3:] if a != "--seed"]
        _serve(Path(sys.argv[2]), args, seed="--seed" in sys.argv[3:])

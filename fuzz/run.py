"""``make fuzz``: schemathesis against each service's OpenAPI document on the local runtime.

It starts the local runtime (as ``make dev`` does) unless one already answers, reads the
credentials from ``.local/dev.json``, signs in the extra principals a service needs
(exams: super admin, client admin, student; internships: admin, student) and runs
schemathesis once per principal with the checks ``not_a_server_error``,
``status_code_conformance`` and ``response_schema_conformance``.

Profiles: ``short`` (a few hundred cases per service, run in CI) and ``long`` (at least
10,000 cases per service, on demand). It prints one table and a final JSON line.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEV_JSON = ROOT / ".local" / "dev.json"
CHECKS = "not_a_server_error,status_code_conformance,response_schema_conformance"
# examples per operation and principal: short ≈ a few hundred cases per service, long ≥ 10,000
PROFILES = {"short": {"max_examples": 4, "phases": "examples,fuzzing"},
            "long": {"max_examples": 120, "phases": "examples,coverage,fuzzing"}}


def _get(url: str, headers: dict | None = None, timeout: float = 5) -> tuple[int, bytes]:
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:  # noqa: S310 - loopback only
            return resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def _post(url: str, body: dict, headers: dict | None = None) -> tuple[int, dict]:
    data = json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method="POST",
                                 headers={"content-type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=15) as resp:  # noqa: S310 - loopback only
            return resp.status, json.loads(resp.read() or b"{}")
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")


def _runtime_up(cfg: dict) -> bool:
    try:
        return all(_get(cfg[s]["base_url"] + p)[0] == 200 for s, p in
                   (("campaigns", "/health"), ("exams", "/health"), ("internships", "/api/health")) if s in cfg)
    except OSError:
        return False


def ensure_runtime() -> subprocess.Popen | None:
    if DEV_JSON.exists():
        try:
            if _runtime_up(json.loads(DEV_JSON.read_text())):
                return None
        except (ValueError, OSError):
            pass
    if DEV_JSON.exists():
        DEV_JSON.unlink()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    log = open(ROOT / ".local" / "fuzz-runtime.log", "wb") if (ROOT / ".local").exists() else subprocess.DEVNULL
    proc = subprocess.Popen([sys.executable, "-m", "local_runtime"], cwd=ROOT, env=env, stdout=log,
                            stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.time() + 120
    while time.time() < deadline:
        if proc.poll() is not None:
            raise SystemExit("local runtime exited early; see .local/fuzz-runtime.log")
        if DEV_JSON.exists():
            try:
                if _runtime_up(json.loads(DEV_JSON.read_text())):
                    return proc
            except (ValueError, OSError):
                pass
        time.sleep(0.5)
    stop_runtime(proc)
    raise SystemExit("local runtime did not come up within 120 s")


def stop_runtime(proc: subprocess.Popen | None) -> None:
    if proc is None:
        return
    try:
        os.killpg(proc.pid, signal.SIGINT)
        proc.wait(timeout=20)
    except Exception:  # noqa: BLE001
        os.killpg(proc.pid, signal.SIGKILL)


# ---------------------------------------------------------------- principals
def campaigns_principals(cfg: dict) -> dict[str, dict]:
    return {"admin": {"Authorization": f"Bearer {cfg['campaigns']['api_key']}"}}


def _cognito_token(cfg: dict, email: str, password: str) -> str:
    import boto3

    idp = boto3.client("cognito-idp", region_name=cfg["aws"]["region"], endpoint_url=cfg["aws"]["endpoint_url"],
                       aws_access_key_id="local", aws_secret_access_key="local")
    out = idp.initiate_auth(ClientId=cfg["exams"]["identity"]["client_id"], AuthFlow="USER_PASSWORD_AUTH",
                            AuthParameters={"USERNAME": email, "PASSWORD": password})
    return out["AuthenticationResult"]["IdToken"]


def exams_principals(cfg: dict) -> dict[str, dict]:
    base = cfg["exams"]["base_url"]
    sa = {"Authorization": "Bearer " + _cognito_token(cfg, cfg["exams"]["super_admin"]["email"],
                                                       cfg["exams"]["super_admin"]["password"])}
    out = {"super_admin": sa}
    status, body = _post(base + "/api/clients", {"name": f"Fuzz Org {uuid.uuid4().hex[:6]}", "address": "1 Road",
                                                 "logo_url": "https://example.com/logo.png", "plan_id": "growth"}, sa)
    client_id = (body.get("data") or body).get("id") if status in (200, 201) else None
    if not client_id:
        print(f"exams: could not create a client ({status}); fuzzing as super admin only", file=sys.stderr)
        return out
    for role in ("client_admin", "student"):
        email, password = f"fuzz-{role}-{uuid.uuid4().hex[:8]}@example.com", "Fuzz-Passw0rd!"
        status, _ = _post(base + "/api/create-user", {"email": email, "password": password, "name": f"Fuzz {role}",
                                                      "role": role, "client_id": client_id}, sa)
        if status in (200, 201):
            out[role] = {"Authorization": "Bearer " + _cognito_token(cfg, email, password)}
    return out


def internships_principals(cfg: dict) -> dict[str, dict]:
    base = cfg["internships"]["base_url"]
    out = {}
    sa = cfg["internships"]["super_admin"]
    status, body = _post(base + "/api/auth/login", {"email": sa["email"], "password": sa["password"]})
    if status == 200 and body.get("token"):
        out["admin"] = {"Authorization": f"Bearer {body['token']}"}
    email = f"fuzz{uuid.uuid4().hex[:8]}@example.com"
    status, body = _post(base + "/api/auth/register", {"name": "Fuzz Student", "email": email,
                                                       "password": "Fuzz-Passw0rd1", "phone": "+919800000000",
                                                       "college": "Fuzz College"},
                         {"x-forwarded-for": f"10.9.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250}"})
    if status == 200 and body.get("token"):
        out["student"] = {"Authorization": f"Bearer {body['token']}"}
    return out


PRINCIPALS = {"campaigns": campaigns_principals, "exams": exams_principals, "internships": internships_principals}


# ---------------------------------------------------------------- running
def run_service(service: str, cfg: dict, profile: dict, workdir: Path, seed: int | None) -> dict:
    base = cfg[service]["base_url"]
    status, raw = _get(base + "/openapi.json")
    if status != 200:
        return {"service": service, "error": f"GET /openapi.json answered {status}", "cases": 0, "failures": 1}
    schema_path = workdir / f"{service}.openapi.json"
    schema_path.write_bytes(raw)
    principals = PRINCIPALS[service](cfg)
    total_cases = failures = 0
    per_principal = {}
    for who, headers in principals.items():
        report = workdir / f"{service}-{who}.ndjson"
        cmd = [sys.executable, "-m", "schemathesis.cli", "run", str(schema_path), "--url", base,
               "--checks", CHECKS, "--max-examples", str(profile["max_examples"]), "--phases", profile["phases"],
               "--report", "ndjson", "--report-ndjson-path", str(report), "--no-color", "--workers", "2",
               "--suppress-health-check", "all", "--request-timeout", "30", "--generation-database", "none",
               "--exclude-path-regex", "^/(openapi.json|docs)"]
        if seed is not None:
            cmd += ["--seed", str(seed)]
        for k, v in headers.items():
            cmd += ["-H", f"{k}: {v}"]
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        (workdir / f"{service}-{who}.log").write_text(proc.stdout + proc.stderr)
        cases, fails = _count(report)
        if proc.returncode != 0 and fails == 0:
            fails = 1
        per_principal[who] = {"cases": cases, "failures": fails, "exit": proc.returncode}
        total_cases += cases
        failures += fails
        if proc.returncode != 0:
            tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-60:])
            print(f"--- {service} as {who}: schemathesis exit {proc.returncode}\n{tail}", file=sys.stderr)
    return {"service": service, "cases": total_cases, "failures": failures, "principals": per_principal}


def _count(report: Path) -> tuple[int, int]:
    """Test cases and failures from schemathesis' NDJSON event stream."""
    cases = failures = 0
    if not report.exists():
        return 0, 0
    for line in report.read_text().splitlines():
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        for kind, body in ev.items() if isinstance(ev, dict) else ():
            if kind == "ScenarioFinished" and isinstance(body, dict):
                rec = body.get("recorder") or {}
                cases += len(rec.get("cases") or {})
                for checks in (rec.get("checks") or {}).values():
                    failures += sum(1 for c in checks if str(c.get("status", "")).lower() == "failure")
    return cases, failures


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--profile", choices=sorted(PROFILES), default=os.environ.get("FUZZ_PROFILE", "short"))
    ap.add_argument("--services", default="campaigns,exams,internships")
    ap.add_argument("--seed", type=int, default=None)
    args = ap.parse_args(argv)
    proc = ensure_runtime()
    results = []
    try:
        cfg = json.loads(DEV_JSON.read_text())
        with tempfile.TemporaryDirectory(prefix="fuzz-") as tmp:
            out_dir = ROOT / ".local" / "fuzz"
            out_dir.mkdir(parents=True, exist_ok=True)
            for service in [s for s in args.services.split(",") if s in cfg]:
                t0 = time.time()
                res = run_service(service, cfg, PROFILES[args.profile], out_dir, args.seed)
                res["seconds"] = round(time.time() - t0, 1)
                results.append(res)
    finally:
        stop_runtime(proc)
    print(f"\nfuzz profile: {args.profile}")
    print(f"{'service':<12} {'cases':>8} {'failures':>9} {'seconds':>8}")
    for r in results:
        print(f"{r['service']:<12} {r['cases']:>8} {r['failures']:>9} {r.get('seconds', 0):>8}")
    print(json.dumps({"fuzz": args.profile, "results": results}))
    return 1 if any(r["failures"] for r in results) or not results else 0

"""``make fuzz``: schemathesis against each service's OpenAPI document on the local runtime.

It starts the local runtime (as ``make dev`` does) unless one already answers, reads the
credentials from ``.local/dev.json``, signs in the extra principals a service needs
(exams: super admin, client admin, student; internships: admin, student) and runs
schemathesis once per principal with the checks ``not_a_server_error``,
``status_code_conformance`` and ``response_schema_conformance``.

Profiles: ``short`` (a few hundred cases per service, run in CI) and ``long`` (at least
10,000 cases per service, on demand: it runs rounds with fresh seeds until every service has
reached ``--target`` cases). ``FUZZ_MAX_EXAMPLES`` (or ``--max-examples``) overrides the
examples per operation and phase; ``FUZZ_PROFILE``, ``FUZZ_WORKERS`` and ``FUZZ_SEED`` too.

When it starts the runtime itself, it lifts the services' rate limits through their settings'
environment variables (``RATE_LIMIT_ENV``; ``--keep-rate-limits`` keeps them): a fuzzer sends
thousands of requests a minute from one address and one key, and 429s would starve every other
check. Rate limiting itself is tested in ``tests/quality``.

It prints one table per service of failing operations (operation, check, status, title,
count), one summary table, and a final JSON line. Exit status 1 on any failure.

After schemathesis, every service also gets the hostile cases of ``fuzz/hostile.py`` as the first
principal each route accepts: the issue-17 bodies (NaN/Infinity/1e999, unpaired surrogates, deep
nesting, 1 MB strings, CR/LF, ``javascript:``/``data:`` URLs) on every body-taking route, and the
issue-32 ones: ±10^40 on every number field (nested included; a 2xx is a failure), NUL and C0
controls in every string, and hostile values for every query parameter of every GET route (forged,
truncated, non-base64 cursors and real cursors of other lists and callers, limits, pages, dates,
sort keys). A 5xx or a stored non-http(s) URL is a failure (check ``hostile_body``).
``--no-hostile`` skips them.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEV_JSON = Path(os.environ.get("LOCAL_DEV_JSON") or ROOT / ".local" / "dev.json")
CHECKS = "not_a_server_error,status_code_conformance,response_schema_conformance"
# examples per operation, phase and principal: short ≈ a few hundred cases per service (one
# round); long: rounds with new seeds until ``target`` cases per service (≥ 10,000).
PROFILES = {"short": {"max_examples": 4, "phases": "examples,fuzzing", "target": 0, "rounds": 1},
            "long": {"max_examples": 100, "phases": "examples,coverage,fuzzing", "target": 10_000, "rounds": 12}}
# Settings fields (``<PREFIX>_<FIELD>``) that lift every request rate limit while fuzzing.
# tests/quality/test_fuzz_harness.py checks that each one is a real settings field.
UNLIMITED = "1000000/minute"
RATE_LIMIT_ENV = {
    "CAMPAIGNS_PLAN_STANDARD_PER_MINUTE": "1000000",
    "CAMPAIGNS_PLAN_PRO_PER_MINUTE": "1000000",
    "CAMPAIGNS_ENTERPRISE_DEFAULT_PER_MINUTE": "1000000",
    "EXAMS_GLOBAL_RATE_LIMIT": UNLIMITED,
    "EXAMS_STRICT_RATE_LIMIT": UNLIMITED,
    "EXAMS_GUEST_START_RATE": UNLIMITED,
    "EXAMS_GUEST_START_IP_RATE": UNLIMITED,
    "INTERNSHIPS_LEADS_RATE_LIMIT": UNLIMITED,
    "INTERNSHIPS_FORMS_RATE_LIMIT": UNLIMITED,
    "INTERNSHIPS_VISIT_RATE_LIMIT": UNLIMITED,
    "INTERNSHIPS_REGISTER_RATE_PER_MINUTE": "1000000",
    "INTERNSHIPS_LOGIN_RATE_PER_MINUTE": "1000000",
    "INTERNSHIPS_CERTIFICATE_VERIFY_RATE_PER_MINUTE": "1000000",
    "INTERNSHIPS_COUPON_VALIDATE_USER_RATE": UNLIMITED,
    "INTERNSHIPS_COUPON_VALIDATE_IP_RATE": UNLIMITED,
}


def _get(url: str, headers: dict | None = None, timeout: float = 5) -> tuple[int, bytes]:
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:  # noqa: S310 - loopback only
            return resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def _post(url: str, body: dict, headers: dict | None = None, method: str = "POST") -> tuple[int, dict]:
    data = json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method,
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


def ensure_runtime(lift_rate_limits: bool = True) -> subprocess.Popen | None:
    if DEV_JSON.exists():
        try:
            if _runtime_up(json.loads(DEV_JSON.read_text())):
                print(f"fuzz: using the runtime already answering ({DEV_JSON}); its rate limits apply",
                      file=sys.stderr)
                return None
        except (ValueError, OSError):
            pass
    if DEV_JSON.exists():
        DEV_JSON.unlink()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    if lift_rate_limits:
        env.update({k: v for k, v in RATE_LIMIT_ENV.items() if k not in os.environ})
    DEV_JSON.parent.mkdir(parents=True, exist_ok=True)
    log = open(DEV_JSON.parent / "fuzz-runtime.log", "wb")
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
    # The super admin goes last: its PUT /api/settings may switch maintenance mode on, which
    # answers every later non-SA principal with 503 (documented). exams_reset switches it back off
    # before the hostile bodies, which are sent as the first principal the route admits.
    out["super_admin"] = out.pop("super_admin")
    return out


def exams_reset(cfg: dict, principals: dict[str, dict]) -> None:
    """Normal service again: schemathesis' PUT /api/settings may have left maintenance mode on or
    registration off (a documented 503/403 for everyone but super admins, not a fault)."""
    sa = principals.get("super_admin")
    if sa:
        status, _ = _post(cfg["exams"]["base_url"] + "/api/settings",
                          {"maintenance_mode": False, "registration_enabled": True}, sa, method="PUT")
        if status != 200:
            print(f"exams: could not reset the platform settings ({status})", file=sys.stderr)


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
RESETS = {"exams": exams_reset}


# ---------------------------------------------------------------- running
def run_service(service: str, cfg: dict, profile: dict, workdir: Path, seed: int | None,
                workers: int = 2) -> dict:
    base = cfg[service]["base_url"]
    status, raw = _get(base + "/openapi.json", timeout=60)
    if status != 200:
        return {"service": service, "error": f"GET /openapi.json answered {status}", "cases": 0, "failures": 1,
                "operations": {}}
    schema_path = workdir / f"{service}.openapi.json"
    schema_path.write_bytes(raw)
    principals = PRINCIPALS[service](cfg)
    reset = RESETS.get(service, lambda _cfg, _principals: None)
    total_cases = failures = errors = rounds = 0
    per_principal: dict[str, dict] = {}
    by_op: dict[tuple[str, str, str, str], int] = {}
    target = profile.get("target") or 0
    max_rounds = max(1, int(profile.get("rounds") or 1))
    base_seed = seed if seed is not None else (int(time.time()) % 100_000 if target else None)
    while rounds < max_rounds:
        round_seed = None if base_seed is None else base_seed + rounds
        for who, headers in principals.items():
            reset(cfg, principals)
            report = workdir / f"{service}-{who}-r{rounds}.ndjson"
            cmd = [sys.executable, "-m", "schemathesis.cli", "run", str(schema_path), "--url", base,
                   "--checks", CHECKS, "--max-examples", str(profile["max_examples"]), "--phases", profile["phases"],
                   "--report", "ndjson", "--report-ndjson-path", str(report), "--no-color", "--workers", str(workers),
                   "--suppress-health-check", "all", "--request-timeout", "30", "--generation-database", "none",
                   "--exclude-path-regex", "^/(openapi.json|docs|api/auth/logout)"]  # logout would revoke the fuzzer's token
            if round_seed is not None:
                cmd += ["--seed", str(round_seed)]
            for k, v in headers.items():
                cmd += ["-H", f"{k}: {v}"]
            proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
            (workdir / f"{service}-{who}-r{rounds}.log").write_text(proc.stdout + proc.stderr)
            cases, fails, ops = parse_report(report)
            errored = proc.returncode != 0 and fails == 0
            if errored:
                errors += 1
            agg = per_principal.setdefault(who, {"cases": 0, "failures": 0, "exit": 0})
            agg["cases"] += cases
            agg["failures"] += fails
            agg["exit"] = agg["exit"] or proc.returncode
            total_cases += cases
            failures += fails
            for k, n in ops.items():
                by_op[(who, *k)] = by_op.get((who, *k), 0) + n
            if errored:
                tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-40:])
                print(f"--- {service} as {who}: schemathesis exit {proc.returncode} without failures\n{tail}",
                      file=sys.stderr)
        rounds += 1
        if total_cases >= target:
            break
    hostile_res = {"cases": 0, "failures": 0, "operations": {}}
    if profile.get("hostile", True):
        reset(cfg, principals)
        hostile_res = run_hostile(service, base, json.loads(raw), principals)
        for k, n in hostile_res["operations"].items():
            by_op[("hostile", *k)] = by_op.get(("hostile", *k), 0) + n
    operations = {}
    for (who, label, check, status_, title), n in sorted(by_op.items()):
        operations.setdefault(label, []).append({"principal": who, "check": check, "status": status_,
                                                 "title": title, "count": n})
    return {"service": service, "cases": total_cases, "failures": failures + errors + hostile_res["failures"],
            "hostile_cases": hostile_res["cases"], "hostile_failures": hostile_res["failures"],
            "failing_operations": len(operations), "rounds": rounds, "seed": base_seed,
            "principals": per_principal, "operations": operations}


def _send(url: str, method: str, body: bytes | None, headers: dict) -> tuple[int, bytes, str]:
    req = urllib.request.Request(url, data=body, method=method, headers={"content-type": "application/json", **headers})
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:  # noqa: S310 - loopback only
            return resp.status, resp.read(), resp.headers.get("content-type") or ""
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(), exc.headers.get("content-type") or ""
    except OSError as exc:
        return 599, str(exc).encode(), ""


def run_hostile(service: str, base: str, doc: dict, principals: dict[str, dict]) -> dict:
    """The issue-17 hostile bodies (``fuzz/hostile.py``) on every body-taking route: a 5xx, or a
    2xx answer echoing a ``javascript:``/``data:`` URL, is a failure."""
    from . import hostile

    chosen: dict[str, dict] = {}
    cases = failures = 0
    ops: dict[tuple[str, str, str, str], int] = {}
    heads = list(principals.values()) or [{}]
    harvested: list[str] = []
    for h in heads:  # real cursors (page 1, limit 1, of each list route): other-list / other-caller cases
        for path, ops_ in sorted((doc.get("paths") or {}).items()):
            get = ops_.get("get") if isinstance(ops_, dict) else None
            if isinstance(get, dict) and "{" not in path and any(
                    p.get("name") == "cursor" for p in get.get("parameters") or []):
                status, raw = _get(f"{base}{path}?limit=1", h)
                if status == 200:
                    try:
                        harvested += hostile.cursors_in(json.loads(raw))[:1]
                    except ValueError:
                        pass
    every = list(hostile.cases(doc)) + list(hostile.number_cases(doc)) + list(
        hostile.query_cases(doc, tuple(dict.fromkeys(harvested))[:6]))
    for case in every:
        route = case.label.split(":", 1)[0]
        if "/api/auth/logout" in route:
            continue
        if route not in chosen:
            chosen[route] = heads[0]
            for h in heads:
                if _send(base + case.path, case.method, b"{}" if case.body else None, h)[0] not in (401, 403):
                    chosen[route] = h
                    break
        status, raw, ctype = _send(base + case.path, case.method, case.body or None, chosen[route])
        cases += 1
        problem = ""
        if status >= 500:
            problem = "server error"
        elif case.label.endswith(("= 10^40", "= -10^40")) and 200 <= status < 300:
            problem = "accepted a number DynamoDB cannot store"
        elif 200 <= status < 300 and case.url_field and "json" in ctype:
            try:
                if hostile.stored_bad_url(json.loads(raw)):
                    problem = "stored a non-http(s) URL"
            except ValueError:
                pass
        if problem:
            failures += 1
            key = (route, "hostile_body", str(status), f"{problem}: {case.label.split(': ', 1)[1]}"[:80])
            ops[key] = ops.get(key, 0) + 1
    return {"cases": cases, "failures": failures, "operations": ops}


def parse_report(report: Path) -> tuple[int, int, dict[tuple[str, str, str, str], int]]:
    """Test cases, failed checks and ``{(operation, check, response status, title): count}``
    from schemathesis' NDJSON event stream."""
    cases = failures = 0
    ops: dict[tuple[str, str, str, str], int] = {}
    if not report.exists():
        return 0, 0, ops
    for line in report.read_text().splitlines():
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        for kind, body in ev.items() if isinstance(ev, dict) else ():
            if kind != "ScenarioFinished" or not isinstance(body, dict):
                continue
            rec = body.get("recorder") or {}
            cases += len(rec.get("cases") or {})
            label = str(rec.get("label") or body.get("label") or "?")
            interactions = rec.get("interactions") or {}
            for case_id, checks in (rec.get("checks") or {}).items():
                for c in checks:
                    if str(c.get("status", "")).lower() != "failure":
                        continue
                    failures += 1
                    resp = (interactions.get(case_id) or {}).get("response") or {}
                    info = c.get("failure_info") or {}
                    title = str((info.get("failure") or {}).get("title") or "")
                    key = (label, str(c.get("name")), str(resp.get("status_code", "-")), title[:80])
                    ops[key] = ops.get(key, 0) + 1
    return cases, failures, ops


def _count(report: Path) -> tuple[int, int]:
    cases, failures, _ = parse_report(report)
    return cases, failures


def print_failures(results: list[dict]) -> None:
    for r in results:
        if not r.get("operations"):
            continue
        print(f"\n{r['service']}: failing operations ({r['failing_operations']})")
        print(f"  {'operation':<52} {'principal':<12} {'check':<30} {'status':>6} {'count':>6}  title")
        for label, rows in r["operations"].items():
            for row in rows:
                print(f"  {label[:52]:<52} {row['principal']:<12} {row['check'][:30]:<30} {row['status']:>6} "
                      f"{row['count']:>6}  {row['title']}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--profile", choices=sorted(PROFILES), default=os.environ.get("FUZZ_PROFILE", "short"))
    ap.add_argument("--services", default="campaigns,exams,internships")
    ap.add_argument("--seed", type=int, default=int(os.environ["FUZZ_SEED"]) if os.environ.get("FUZZ_SEED") else None)
    ap.add_argument("--max-examples", type=int,
                    default=int(os.environ["FUZZ_MAX_EXAMPLES"]) if os.environ.get("FUZZ_MAX_EXAMPLES") else None,
                    help="examples per operation, phase and principal (env FUZZ_MAX_EXAMPLES)")
    ap.add_argument("--target", type=int, default=None, help="long profile: cases per service to reach")
    ap.add_argument("--workers", type=int, default=int(os.environ.get("FUZZ_WORKERS", "2")))
    ap.add_argument("--keep-rate-limits", action="store_true", help="do not lift the services' rate limits")
    ap.add_argument("--no-hostile", action="store_true", help="skip the issue-17 hostile bodies (fuzz/hostile.py)")
    args = ap.parse_args(argv)
    profile = dict(PROFILES[args.profile])
    profile["hostile"] = not args.no_hostile
    if args.max_examples:
        profile["max_examples"] = args.max_examples
    if args.target is not None:
        profile["target"] = args.target
    proc = ensure_runtime(lift_rate_limits=not args.keep_rate_limits)
    results = []
    try:
        cfg = json.loads(DEV_JSON.read_text())
        out_dir = DEV_JSON.parent / "fuzz"
        out_dir.mkdir(parents=True, exist_ok=True)
        for service in [s for s in args.services.split(",") if s in cfg]:
            t0 = time.time()
            res = run_service(service, cfg, profile, out_dir, args.seed, args.workers)
            res["seconds"] = round(time.time() - t0, 1)
            results.append(res)
    finally:
        stop_runtime(proc)
    print_failures(results)
    print(f"\nfuzz profile: {args.profile} (max examples {profile['max_examples']}, phases {profile['phases']}"
          f"{', target %d cases' % profile['target'] if profile['target'] else ''})")
    print(f"{'service':<12} {'cases':>8} {'hostile':>8} {'failures':>9} {'failing ops':>12} {'rounds':>7} "
          f"{'seconds':>8}")
    for r in results:
        print(f"{r['service']:<12} {r['cases']:>8} {r.get('hostile_cases', 0):>8} {r['failures']:>9} "
              f"{r.get('failing_operations', 0):>12} {r.get('rounds', 0):>7} {r.get('seconds', 0):>8}")
    print(json.dumps({"fuzz": args.profile, "max_examples": profile["max_examples"], "results": results}))
    return 1 if any(r["failures"] for r in results) or not results else 0

"""Policy as code (issue 33): cfn-lint with every rule plus the serverless rules, and checkov on
the SAM-translated templates. Every finding left must be listed, with its reason, in
tools/policy/suppressions.yaml; a finding not listed fails (exit 1), and so does a listed one
that no longer occurs (the file stays the reviewed truth).

    make policy                 # what `make check` runs (.venv-policy, created on first use)
    python tools/policy/check.py --list   # every current finding as a suppression line (to review)

Runs in .venv-policy (requirements/policy.in): checkov pins versions that conflict with
aws-sam-cli's in .venv. The templates are translated with the samtranslator that cfn-lint
ships (its SAM transform, the one `sam validate --lint` uses), into .local/policy/<stack>.json.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / ".local" / "policy"
SUPPRESSIONS = Path(__file__).resolve().parent / "suppressions.yaml"
TEMPLATES = {"root": "template.yaml", "campaigns": "functions/campaigns/template.yaml",
             "exams": "functions/exams/template.yaml", "internships": "functions/internships/template.yaml"}


def translate(stack: str) -> Path:
    from cfnlint.decode import decode
    from cfnlint.template.transforms._sam import Transform

    path = str(ROOT / TEMPLATES[stack])
    tpl, matches = decode(path)
    if matches:
        raise SystemExit(f"{path}: {matches}")
    t = Transform(path, tpl, "us-east-1")
    errors = t.transform_template()
    if errors:
        raise SystemExit(f"{path}: {errors}")
    OUT.mkdir(parents=True, exist_ok=True)
    out = OUT / f"{stack}.json"
    out.write_text(json.dumps(t.template(), indent=1, default=str))
    return out


def cfn_lint_findings() -> set[tuple[str, str, str, str]]:
    """``(tool, stack, rule, resource)`` of every cfn-lint finding (all rules, serverless rules)."""
    files = [str(ROOT / p) for p in TEMPLATES.values()]
    cmd = [sys.executable, "-m", "cfnlint", "--format", "json", "--include-checks", "I",
           "--include-experimental", "--append-rules", "cfn_lint_serverless.rules", "--", *files]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if proc.returncode not in (0, 2, 4, 6, 8, 10, 12, 14) or not proc.stdout.strip():
        raise SystemExit(f"cfn-lint failed ({proc.returncode}): {proc.stderr[-2000:]}")
    by_file = {str(ROOT / p): s for s, p in TEMPLATES.items()}
    out = set()
    for m in json.loads(proc.stdout):
        stack = by_file.get(str((ROOT / m["Filename"]).resolve()), m["Filename"])
        path = m.get("Location", {}).get("Path") or []
        resource = path[1] if len(path) > 1 and path[0] == "Resources" else "/".join(map(str, path[:2])) or "-"
        out.add(("cfn-lint", stack, m["Rule"]["Id"], str(resource)))
    return out


def checkov_findings(translated: dict[str, Path]) -> set[tuple[str, str, str, str]]:
    out = set()
    for stack, path in translated.items():
        cmd = [str(Path(sys.executable).parent / "checkov"), "-f", str(path), "--framework", "cloudformation",
               "-o", "json", "--quiet", "--compact", "--skip-download"]
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
        if proc.returncode not in (0, 1) or not proc.stdout.strip():
            raise SystemExit(f"checkov failed on {path} ({proc.returncode}): {proc.stderr[-2000:]}")
        data = json.loads(proc.stdout)
        reports = data if isinstance(data, list) else [data]
        for rep in reports:
            for f in (rep.get("results") or {}).get("failed_checks", []):
                resource = f["resource"].split(".", 1)[-1]
                out.add(("checkov", stack, f["check_id"], resource))
    return out


def load_suppressions() -> dict[tuple[str, str, str, str], str]:
    """One line per finding: ``- tool stack check resource  # reason`` (the reason is required)."""
    out = {}
    for n, line in enumerate(SUPPRESSIONS.read_text().splitlines(), 1):
        s = line.strip()
        if not s.startswith("- "):
            continue
        body, _, reason = s[2:].partition("#")
        parts = body.split()
        if len(parts) != 4 or not reason.strip():
            raise SystemExit(f"{SUPPRESSIONS.name}:{n}: expected '- <tool> <stack> <check> <resource>  # <reason>'")
        out[tuple(parts)] = reason.strip()  # type: ignore[index]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--list", action="store_true", help="print every current finding as a suppression line")
    args = ap.parse_args(argv)
    translated = {s: translate(s) for s in TEMPLATES}
    findings = cfn_lint_findings() | checkov_findings(translated)
    if args.list:
        for f in sorted(findings):
            print("- " + " ".join(f) + "  # ")
        return 0
    known = load_suppressions()
    new = sorted(findings - set(known))
    stale = sorted(set(known) - findings)
    for f in new:
        print("NEW   " + " ".join(f))
    for f in stale:
        print("STALE " + " ".join(f) + "  (no longer found: remove its line)")
    print(f"policy: {len(findings)} findings, {len(known)} suppressed, {len(new)} new, {len(stale)} stale")
    return 1 if new or stale else 0


if __name__ == "__main__":
    raise SystemExit(main())

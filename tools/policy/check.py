"""Policy as code (issue 33): cfn-lint with every rule plus the serverless rules, and checkov on
the SAM-translated templates. Every finding left must be listed, with its reason, in
tools/policy/suppressions.yaml; a finding not listed fails (exit 1), and so does a listed one
that no longer occurs (the file stays the reviewed truth).

    make policy                 # what `make check` runs (.venv-policy, created on first use)
    python tools/policy/check.py --list   # every current finding as a suppression line (to review)

Two steps (`make policy` runs both): ``check.py translate`` runs in .venv and writes each
SAM-translated template to .local/policy/<stack>.json with the samtranslator of aws-sam-cli (the
one `sam deploy` uses, through cfn-lint 1.x's SAM transform in that venv); ``check.py`` then runs
in .venv-policy (requirements/policy.in: checkov pins versions that conflict with aws-sam-cli's
in .venv) and lints the raw templates with cfn-lint and the translated ones with checkov.
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


def _cfn_lint() -> subprocess.Popen:
    files = [str(ROOT / p) for p in TEMPLATES.values()]
    cmd = [str(Path(sys.executable).parent / "cfn-lint"), "--format", "json", "--include-checks", "I",
           "--include-experimental", "--append-rules", "cfn_lint_serverless.rules", "--", *files]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)


def _checkov() -> subprocess.Popen:
    cmd = [str(Path(sys.executable).parent / "checkov"), "-d", str(OUT), "--framework", "cloudformation",
           "-o", "json", "--quiet", "--compact", "--skip-download"]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)


def cfn_lint_findings(proc: subprocess.Popen) -> set[tuple[str, str, str, str]]:
    """``(tool, stack, rule, resource)`` of every cfn-lint finding (all rules, serverless rules)."""
    stdout, stderr = proc.communicate()
    if proc.returncode not in (0, 2, 4, 6, 8, 10, 12, 14) or not stdout.strip():
        raise SystemExit(f"cfn-lint failed ({proc.returncode}): {stderr[-2000:]}")
    by_file = {str(ROOT / p): s for s, p in TEMPLATES.items()}
    out = set()
    for m in json.loads(stdout):
        stack = by_file.get(str((ROOT / m["Filename"]).resolve()), m["Filename"])
        path = m.get("Location", {}).get("Path") or []
        resource = path[1] if len(path) > 1 and path[0] == "Resources" else "/".join(map(str, path[:2])) or "-"
        out.add(("cfn-lint", stack, m["Rule"]["Id"], str(resource)))
    return out


def checkov_findings(proc: subprocess.Popen) -> set[tuple[str, str, str, str]]:
    """``(tool, stack, check, resource)`` of every failed checkov check on the translated templates."""
    stdout, stderr = proc.communicate()
    if proc.returncode not in (0, 1) or not stdout.strip():
        raise SystemExit(f"checkov failed ({proc.returncode}): {stderr[-2000:]}")
    data = json.loads(stdout)
    out = set()
    for rep in data if isinstance(data, list) else [data]:
        for f in (rep.get("results") or {}).get("failed_checks", []):
            stack = Path(f["file_path"]).stem
            out.add(("checkov", stack, f["check_id"], f["resource"].split(".", 1)[-1]))
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
    ap.add_argument("step", nargs="?", choices=["translate"], help="only write the translated templates (.venv)")
    ap.add_argument("--list", action="store_true", help="print every current finding as a suppression line")
    args = ap.parse_args(argv)
    if args.step == "translate":
        for s in TEMPLATES:
            print(f"translated {translate(s).relative_to(ROOT)}")
        return 0
    translated = {s: OUT / f"{s}.json" for s in TEMPLATES}
    missing = [str(p) for p in translated.values() if not p.exists()]
    if missing:
        raise SystemExit(f"run `check.py translate` (in .venv) first: {missing}")
    lint, ckv = _cfn_lint(), _checkov()  # in parallel: together about a minute
    findings = cfn_lint_findings(lint) | checkov_findings(ckv)
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

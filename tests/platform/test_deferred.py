"""``lambdakit.deferred``: modules imported eagerly by a library run at first use (issue #21).

Each case runs in a fresh interpreter: deferral is about what a cold process imports."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = r"""
import json, sys, importlib.util
sys.path[:0] = [{layer!r}, {exams!r}]
lazy = lambda name: type(sys.modules.get(name)) is importlib.util._LazyModule
out = {{}}
from exams.reports import workbook
data = workbook.build({report!s})
out["xlsx_magic"] = data[:2].decode()
out["pil_deferred"] = lazy("PIL.Image")
print(json.dumps(out))
"""

#: one question, so the workbook's charts are written too
REPORT = {
    "candidate": "C", "test_name": "T", "status": "submitted", "score": 1, "total_marks": 1, "percentage": 100,
    "result": "pass", "time_taken": 10, "started_at": "s", "submitted_at": "e", "risk_score": 0,
    "sections": [{"title": "S", "questions": 1, "correct": 1, "marks_awarded": 1, "max_marks": 1}],
    "questions": [{"text": "Q", "type": "mcq", "options": {"A": "a"}, "chosen": "A", "correct": "A",
                   "status": "correct", "marks_awarded": 1, "max_marks": 1, "time_spent": 5,
                   "correct_ratio": 1, "facility_index": 1, "difficulty": "easy"}],
    "difficulty_analysis": {"easy": {"questions": 1, "correct": 1}},
}


def _run(env_extra: dict[str, str]) -> dict:
    code = PROBE.format(layer=str(ROOT / "layers" / "shared"), exams=str(ROOT / "functions" / "exams"),
                        report=repr(REPORT))
    env = {k: v for k, v in os.environ.items() if k not in ("LAMBDA_TASK_ROOT", "AWS_SAM_LOCAL")}
    env.update(env_extra)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_in_lambda_pillow_waits_for_first_use():
    out = _run({"LAMBDA_TASK_ROOT": "/var/task"})
    assert out["xlsx_magic"] == "PK" and out["pil_deferred"]


def test_outside_lambda_nothing_is_deferred():
    out = _run({})
    assert out["xlsx_magic"] == "PK" and not out["pil_deferred"]
    out = _run({"LAMBDA_TASK_ROOT": "/var/task", "AWS_SAM_LOCAL": "true"})  # sam local: threads
    assert not out["pil_deferred"]


def test_pyjwt_defers_nothing():
    """PyJWT's ``cryptography.x509`` was deferred while functions shipped cryptography; none does
    now (docs/platform.md, "Layers"), so ``lambdakit.pyjwt`` leaves the import machinery alone."""
    code = (f"import sys; sys.path[:0] = [{str(ROOT / 'layers' / 'shared')!r}]\n"
            "n = len(sys.meta_path)\nfrom lambdakit.pyjwt import jwt\nassert len(sys.meta_path) == n, sys.meta_path\n"
            "from lambdakit import deferred\nassert not deferred._names and deferred._finder is None\n")
    env = {**os.environ, "LAMBDA_TASK_ROOT": "/var/task"}
    env.pop("AWS_SAM_LOCAL", None)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stderr[-3000:]

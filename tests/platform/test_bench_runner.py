import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_run_discovers_tabulates_and_fails_on_a_crash(tmp_path):
    (tmp_path / "bench_good.py").write_text(
        "import json, sys\nprint('working')\nprint(json.dumps({'bench': 'good', 'ops_per_s': 12.5, 'quick': '--quick' in sys.argv}))\n")
    (tmp_path / "bench_crash.py").write_text("raise SystemExit('boom')\n")
    (tmp_path / "helper.py").write_text("raise SystemExit('not a benchmark')\n")
    r = subprocess.run([sys.executable, "bench/run.py", "--quick", "--dir", str(tmp_path)], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 1
    lines = r.stdout.strip().splitlines()
    assert json.loads(lines[-1]) == {"bench": "all", "ok": False, "count": 2}
    assert any(line.startswith("good") and " ok " in line and "ops_per_s=12.5" in line for line in lines)
    assert any(line.startswith("crash") and "FAILED" in line for line in lines)
    assert json.loads((tmp_path / "results.json").read_text())["good"]["quick"] is True
    r = subprocess.run([sys.executable, "bench/run.py", "--dir", str(tmp_path), "good"], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and json.loads(r.stdout.strip().splitlines()[-1])["count"] == 1


def test_coldstart_reports_ratios():
    r = subprocess.run([sys.executable, "bench/bench_coldstart.py", "--repeat", "1", "--only", "HealthFunction",
                        "--only", "ContactsFunctionThatDoesNotExist"], cwd=ROOT, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout.strip().splitlines()[-1])
    assert res["bench"] == "coldstart" and res["floor_ms"] > 0
    assert set(res["ratios"]) == {"campaigns.HealthFunction", "exams.HealthFunction", "internships.HealthFunction"}
    assert all(0 < v < 5 for v in res["ratios"].values())


def test_lambda_runner_leaves_deferred_modules_unexecuted(tmp_path):
    """The runner's check for modules loaded from outside the function's paths reads ``__file__``
    without running a module ``lambdakit.deferred`` left unexecuted (else ``-X importtime`` books
    it to the request), and still reports such a module when it lies outside those paths."""
    sys.path.insert(0, str(ROOT / "bench"))
    import lambda_sandbox as sb

    fn, outside = tmp_path / "fn", tmp_path / "outside"
    fn.mkdir()
    outside.mkdir()
    marker = tmp_path / "ran"
    (outside / "lazy_target.py").write_text(f"open({str(marker)!r}, 'w').close()\nVALUE = 1\n")
    (fn / "probe.py").write_text(
        "import sys\n"
        f"sys.path.append({str(outside)!r})\n"
        "from lambdakit.deferred import defer\n"
        "assert defer('lazy_target')\n"
        "import lazy_target  # bound, not run\n"
        "def lambda_handler(event, context):\n"
        "    return {'statusCode': 200}\n")
    r = sb.invoke([str(fn), str(ROOT / "layers" / "shared")], "probe.lambda_handler", {}, {})
    assert r["ok"], r
    assert r["result"] == {"statusCode": 200}
    assert not marker.exists(), "the runner ran the deferred module"
    assert r["foreign_modules"] == ["lazy_target"]

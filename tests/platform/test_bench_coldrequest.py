"""Issue #21 item 1: the cold-first-request benchmark and its headline in ``make bench``."""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_run_prints_the_cold_request_worst_ratio(tmp_path):
    (tmp_path / "bench_coldrequest.py").write_text(
        "import json\nprint(json.dumps({'bench': 'coldrequest', 'cold_request_worst_ratio': 1.17}))\n")
    r = subprocess.run([sys.executable, "bench/run.py", "--quick", "--dir", str(tmp_path)], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert json.loads(r.stdout.strip().splitlines()[-1])["cold_request_worst_ratio"] == 1.17


def test_coldrequest_serves_a_real_request_and_profiles_it():
    r = subprocess.run([sys.executable, "bench/bench_coldrequest.py", "--repeat", "1", "--profile", "1",
                        "--no-tracing-probe", "--only", "internships.EmailWorkerFunction",
                        "--only", "campaigns.ListsFunction"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    res = json.loads(r.stdout.strip().splitlines()[-1])
    assert res["bench"] == "coldrequest" and res["floor_ms"] > 0 and res["functions"] == 2
    assert not res["errors"], res["errors"]
    assert set(res["ratios"]) == {"internships.EmailWorkerFunction", "campaigns.ListsFunction"}
    assert res["cold_request_worst_ratio"] == max(res["ratios"].values())
    # the lists route ran authenticated (the dev API key), not a 401
    assert res["status"] == {"campaigns.ListsFunction": 200, "internships.EmailWorkerFunction": "ok"}
    (fn, prof), = res["profiles"].items()
    assert prof["imports_self_ms"] and any(c == "dynamodb" for c, _ in prof["clients_ms"])
    # the floor side by side with the design card's binding libraries, and with the botocore cut
    assert set(res["binding_floor_ratios"]) == {"floor+pydantic", "floor+pydantic+jwt", "floor+botodata"}
    assert all(v > 0 for v in res["binding_floor_ratios"].values())

"""The campaign send benchmark runs end to end (SES v2 provider, real dispatcher and worker) and
its call profile stays what the cost model assumes: per recipient exactly one SES send, one
conditional claim and one outcome update; everything else per 100-recipient batch."""
from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
N = 200


def test_send_bench_calls_per_recipient():
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "bench_campaign_send.py"), "--recipients", str(N)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["recipients"] == N and out["recipients_per_second"] > 0 and out["peak_rss_mb"] > 0
    total = {op: round(v * N / 1000) for op, v in out["calls_by_operation_per_1000"].items()}
    batches = math.ceil(N / 100)
    assert total["sesv2.SendEmail"] == N                     # one send per recipient, no duplicate
    assert N <= total["dynamodb.PutItem"] <= N + 2            # the claims (+ the campaign-sent record)
    rate_windows = 2 * math.ceil(N / 25)                      # 2 limits, 25 sends per window hit
    assert N <= total["dynamodb.UpdateItem"] <= N + rate_windows + 5
    assert total["dynamodb.TransactWriteItems"] <= batches + 3  # per batch + start/sent transitions
    # per batch: the contacts and the sender check (issue #17); + the send request's sender check
    assert total["dynamodb.BatchGetItem"] == 2 * batches + 1
    assert out["overhead_vs_ses_pct"] <= 10

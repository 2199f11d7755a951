"""Cron data access: the bearer secret (Secrets Manager) and per-day run records."""
from __future__ import annotations

import threading

from lambdakit import aws, clock
from lambdakit.ddb import Table

from ..settings import settings

_lock = threading.Lock()
_cache: dict[str, tuple[float, str]] = {}
SECRET_TTL = 300.0


def table() -> Table:
    return Table(settings().table_name)


def cron_secret() -> str | None:
    """``INTERNSHIPS_CRON_SECRET`` (local override) or the Secrets Manager value, cached 5 minutes."""
    s = settings()
    if s.cron_secret:
        return s.cron_secret
    arn = s.cron_secret_arn
    if not arn:
        return None
    now = clock.now_ts()
    with _lock:
        hit = _cache.get(arn)
        if hit and hit[0] > now:
            return hit[1]
    value = aws.client("secretsmanager").get_secret_value(SecretId=arn).get("SecretString") or None
    if value:
        with _lock:
            _cache[arn] = (now + SECRET_TTL, value)
    return value


def record_run(job: str, day: str, result: dict) -> None:
    """Keep the last result of each job per day (for operators; TTL 90 days)."""
    table().update(f"CRONRUN#{job}", f"DAY#{day}", set={"last_result": result, "last_run_at": clock.now_iso(),
                                                          "ttl": int(clock.now_ts()) + 90 * 86400},
                   add={"runs": 1})

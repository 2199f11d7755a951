"""Cron data access: the bearer secret (Secrets Manager) and per-day run records."""
from __future__ import annotations

from lambdakit import clock, secrets
from lambdakit.ddb import Table

from ..settings import settings

SECRET_TTL = 300


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
    return secrets.secret_string(arn, max_age=SECRET_TTL) or None


def record_run(job: str, day: str, result: dict) -> None:
    """Keep the last result of each job per day (for operators; TTL 90 days)."""
    table().update(f"CRONRUN#{job}", f"DAY#{day}", set={"last_result": result, "last_run_at": clock.now_iso(),
                                                          "ttl": int(clock.now_ts()) + 90 * 86400},
                   add={"runs": 1})

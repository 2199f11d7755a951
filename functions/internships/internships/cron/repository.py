"""Cron data access: the bearer secret (Secrets Manager) and per-day run records."""
from __future__ import annotations

from lambdakit import clock
from lambdakit.ddb import Table

from ..auth import secrets_store
from ..settings import settings

SECRET_TTL = 300

Key = tuple[str, str]


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
    return secrets_store.secret_string(arn, max_age=SECRET_TTL) or None


def prefetch_secret() -> bool:
    """Start the secret's first read of this Lambda process on a thread (``secrets_store.prefetch``);
    True when it started (the caller may create the DynamoDB client during its round trip)."""
    s = settings()
    return bool(not s.cron_secret and s.cron_secret_arn and secrets_store.prefetch(s.cron_secret_arn))


def warm() -> None:
    """Create the DynamoDB client now (while another thread waits on the network)."""
    table().client  # noqa: B018 - the property creates and caches it


def read_consistent(keys: list[Key]) -> dict[Key, dict]:
    """The items of ``keys`` that exist, in one strongly consistent BatchGetItem."""
    return table().get_many(keys, consistent=True)


def record_run(job: str, day: str, result: dict) -> None:
    """Keep the last result of each job per day (for operators; TTL 90 days)."""
    table().update(f"CRONRUN#{job}", f"DAY#{day}", set={"last_result": result, "last_run_at": clock.now_iso(),
                                                          "ttl": int(clock.now_ts()) + 90 * 86400},
                   add={"runs": 1})

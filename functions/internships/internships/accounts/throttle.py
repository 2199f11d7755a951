"""Credential throttling for every route that checks a credential (login, reset-password).

OWASP ASVS 5.0 V6.3 (brute force / credential stuffing) without handing anyone a way to lock
an account (V6 asks that throttling not become a denial of service):

* per (account, IP): after ``login_lockout_threshold`` consecutive failures that pair waits
  ``base * 2**k`` seconds (capped at ``login_lockout_max_seconds``) before each further try;
  a success from that address clears it. Other addresses, the owner's included, are unaffected.
* per account, from every address together: past ``login_account_ceiling`` failures within
  ``login_account_window_seconds`` the account is *slowed*, never locked: one try per
  ``login_account_slow_seconds`` from anywhere (429 with a Retry-After of a few seconds).

Unknown accounts are throttled exactly like known ones (no enumeration through 429s). The
account is keyed by a hash of ``kind`` and the normalized identifier, so no e-mail is stored
in a key.
"""
from __future__ import annotations

from lambdakit import clock
from lambdakit.errors import RateLimited
from lambdakit.security import sha256_hex

from ..settings import settings
from . import repository as repo

#: ``account`` for a credential that names no account until it is valid (a set-password token):
#: only the per-IP back-off applies (a ceiling on "every account" would slow every user).
NO_ACCOUNT = "*"


def account_key(kind: str, account: str) -> str:
    return sha256_hex(f"{kind}\x00{account.lower()}")[:40]


def _window_start(now: float) -> int:
    w = settings().login_account_window_seconds
    return int(now // w) * w


def check(kind: str, account: str, ip: str) -> bool:
    """Before checking the credential: ``RateLimited`` (429 + Retry-After) while this (account, IP)
    pair is backing off, or while the account is past its ceiling and its slot is taken. Returns
    whether the pair has failures on record (``succeeded`` then clears them)."""
    s = settings()
    now = clock.now_ts()
    key = account_key(kind, account)
    pair, failures = repo.throttle_state(key, ip, _window_start(now))
    if pair and float(pair.get("locked_until", 0)) > now:
        retry = int(float(pair["locked_until"]) - now) + 1
        raise RateLimited("Too many failed attempts from this address; try again later",
                          headers={"Retry-After": str(retry)})
    if account != NO_ACCOUNT and failures >= s.login_account_ceiling:
        d = repo.rate_hit(f"authslow#{key}", 1, s.login_account_slow_seconds)
        if not d.allowed:
            raise RateLimited("Too many attempts for this account; try again in a few seconds",
                              headers={"Retry-After": str(d.retry_after)})
    return pair is not None


def failed(kind: str, account: str, ip: str) -> None:
    """After a wrong credential: count it; start or lengthen the pair's back-off."""
    s = settings()
    now = clock.now_ts()
    key = account_key(kind, account)
    start = _window_start(now)
    n = repo.record_failure(key, ip, None if account == NO_ACCOUNT else start, int(now) + 86400,
                            start + s.login_account_window_seconds + 60)
    if n >= s.login_lockout_threshold:
        k = n - s.login_lockout_threshold
        repo.delay_pair(key, ip, now + min(s.login_lockout_max_seconds, s.login_lockout_base_seconds * (2 ** min(k, 20))))


def succeeded(kind: str, account: str, ip: str) -> None:
    """After a good credential: the pair starts afresh (the account window keeps its count)."""
    repo.clear_pair(account_key(kind, account), ip)

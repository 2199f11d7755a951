"""Accounts and sessions: registration, login, refresh-token rotation with reuse detection, logout.

Contract used by the other slices: ``create_user``, ``get_user``, ``issue_tokens``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from lambdakit import clock, ids
from lambdakit.errors import BadRequest, ConditionFailed, Contention, RateLimited, Unauthorized, ValidationFailed
from lambdakit.observability import count
from lambdakit.security import hash_password, random_token, sha256_hex, verify_password

from ..auth import tokens
from ..auth.permissions import ROLES
from ..settings import settings
from . import phones, throttle
from . import repository as repo

PROFILE_FIELDS = ("phone", "college", "degree", "branch", "year_of_study", "graduation_year", "birthday", "gender",
                  "city", "state", "country", "linkedin_url", "github_url", "avatar_url")
#: attempts at storing a new session family (fresh keys each time; see ``_issue``)
FAMILY_ATTEMPTS = 3


# ---------------------------------------------------------------- validation rules
def normalize_email(email: str) -> str:
    from email_validator import EmailNotValidError, validate_email

    try:
        return validate_email(email.strip(), check_deliverability=False).normalized.lower()
    except EmailNotValidError:
        raise ValidationFailed("A valid email address is required", fields={"email": "Invalid email"}) from None


def is_disposable(email: str) -> bool:
    from disposable_email_domains import blocklist

    domain = email.rsplit("@", 1)[-1].lower().strip(".")
    parts = domain.split(".")
    return any(".".join(parts[i:]) in blocklist for i in range(len(parts) - 1))


def check_not_disposable(email: str) -> None:
    if is_disposable(email):
        raise BadRequest("Disposable email addresses are not allowed")


def check_password_policy(password: str) -> None:
    if (len(password) < 8 or not re.search(r"[A-Z]", password) or not re.search(r"[a-z]", password)
            or not re.search(r"[0-9]", password)):
        raise ValidationFailed(
            "Password must be at least 8 characters and contain an uppercase letter, a lowercase letter and a digit",
            fields={"password": "Too weak"})


def public_user(user: dict) -> dict:
    """The user's own view (``models.PublicUser``): only the attributes that model declares leave the service
    (the password hash, Google subject, counters, token version and storage keys never do)."""
    from lambdakit.model import dump

    from .models import PublicUser

    return dump(PublicUser, {**user, "has_password": bool(user.get("password_hash"))}, exclude_unset=True)


def summary(user: dict) -> dict:
    return {"id": user["id"], "name": user.get("name", ""), "email": user["email"], "role": user.get("role", "student")}


# ---------------------------------------------------------------- users (contract)
def create_user(*, email: str, password: str | None, name: str, role: str = "student", phone: str | None = None,
                google_sub: str | None = None, email_verified: bool = False, **profile) -> dict:
    """Create an account. ``Conflict`` (409) on a duplicate e-mail; disposable domains refused; ``phone``
    (optional) stored in E.164 (``phones.check``: 400 naming ``phone`` when it is no valid number).
    ``password=None`` creates an account that can only sign in with Google (``google_sub`` links
    it in the same write; ``email_verified`` when the provider proved the address)."""
    email = normalize_email(email)
    check_not_disposable(email)
    if role not in ROLES:
        raise ValidationFailed("Unknown role", fields={"role": "Unknown role"})
    name = (name or "").strip()
    if not name:
        raise ValidationFailed("Name is required", fields={"name": "Required"})
    now = clock.now_iso()
    user = {"id": ids.sortable_id(), "email": email, "name": name, "role": role, "created_at": now, "updated_at": now,
            "open_enrollments": 0, "invoice_count": 0}
    phone = phones.check(phone, required=False)
    if phone:
        user["phone"] = phone
    if google_sub:
        user["google_sub"] = google_sub
    if email_verified:
        user["email_verified"] = True
    for k, v in profile.items():
        if k in PROFILE_FIELDS and v not in (None, ""):
            user[k] = v
    if password is not None:
        check_password_policy(password)
        user["password_hash"] = hash_password(password, n=settings().scrypt_n)
    repo.create_user(user)
    return user


def get_user(user_id: str) -> dict | None:
    return repo.get_user(user_id)


@dataclass(frozen=True)
class Tokens:
    access_token: str
    access_max_age: int
    refresh_token: str
    refresh_max_age: int
    csrf_token: str


def issue_tokens(user: dict) -> Tokens:
    """Access JWT + a refresh token opening a new session family (login, register, Google)."""
    return _issue(user)[0]


def _issue(user: dict, *, family_id: str | None = None, family_expires_at: float | None = None) -> tuple[Tokens, dict]:
    """Access JWT + a new refresh token (new family unless rotating within one) and its session item."""
    access, access_ttl = tokens.issue_access_token(user)
    now = clock.now_ts()
    refresh = random_token(32)  # 256 random bits
    session = {"token_hash": sha256_hex(refresh), "user_id": user["id"], "status": "active",
               "created_at": clock.now_iso()}
    if family_id is None:
        expires = now + settings().refresh_token_days * 86400
        for attempt in range(FAMILY_ATTEMPTS):
            # new keys on each attempt: the family id and the refresh token are minted here, so a
            # condition failure is a collision (Table.transact fresh=, 503): minted again, retried,
            # never a half-done sign-in (a registered account without its session; issue 23)
            family_id = ids.sortable_id()
            session.update(family_id=family_id, expires_at=int(expires), ttl=int(expires) + 86400)
            try:
                repo.create_family({"family_id": family_id, "user_id": user["id"], "revoked": False,
                                    "expires_at": int(expires), "created_at": clock.now_iso(),
                                    "ttl": int(expires) + 86400}, session)
                break
            except Contention as exc:
                if "FreshKeyTaken" not in (exc.reasons or []) or attempt == FAMILY_ATTEMPTS - 1:
                    raise
                refresh = random_token(32)
                session["token_hash"] = sha256_hex(refresh)
    else:
        expires = family_expires_at or now
        session.update(family_id=family_id, expires_at=int(expires), ttl=int(expires) + 86400)
    return Tokens(access, access_ttl, refresh, max(0, int(expires - now)), random_token(24)), session


# ---------------------------------------------------------------- register / login
def _rate(subject: str, limit: int) -> None:
    if settings().rate_limits_lifted:  # Stage=local with RATE_LIMITS=off only (lambdakit.settings)
        return
    d = repo.rate_hit(subject, limit, 60)
    if not d.allowed:
        raise RateLimited("Too many requests, please try again later", headers=d.headers())


def register(data, ip: str) -> tuple[dict, Tokens]:
    _rate(f"register#{ip}", settings().register_rate_per_minute)
    phone = phones.check(data.phone)
    user = create_user(email=data.email, password=data.password, name=data.name, phone=phone,
                       college=data.college)
    count("Registrations")
    return user, issue_tokens(user)


@lru_cache(maxsize=4)
def _dummy_hash(n: int) -> str:
    return hash_password(random_token(16), n=n)


def _needs_rehash(encoded: str) -> bool:
    """True when the stored scrypt parameters are below the current ones (``scrypt_n``, r=8, p=1)."""
    try:
        scheme, n, r, p, _salt, _dk = encoded.split("$")
        return scheme != "scrypt" or int(n) < settings().scrypt_n or int(r) < 8 or int(p) < 1
    except ValueError:
        return False


def login(email: str, password: str, ip: str) -> tuple[dict, Tokens]:
    s = settings()
    _rate(f"login#{ip}", s.login_rate_per_minute)
    invalid = Unauthorized("Invalid email or password")
    try:
        email = normalize_email(email)
    except ValidationFailed:
        verify_password(password, _dummy_hash(s.scrypt_n))
        raise invalid from None
    had_failures = throttle.check("login", email, ip)
    uid = repo.user_id_for_email(email)
    user = repo.get_user(uid, consistent=True) if uid else None
    encoded = user.get("password_hash") if user else None
    ok = verify_password(password, encoded or _dummy_hash(s.scrypt_n))
    if not (ok and user and encoded) or user.get("disabled"):
        throttle.failed("login", email, ip)
        raise invalid
    if had_failures:
        throttle.succeeded("login", email, ip)
    if _needs_rehash(encoded):
        # transparent upgrade to the current cost; a concurrent password change wins
        repo.set_password_hash_if_unchanged(user["id"], encoded, hash_password(password, n=s.scrypt_n))
    count("SignIns", method="password")
    return user, issue_tokens(user)


# ---------------------------------------------------------------- refresh / logout
def refresh(refresh_token: str | None) -> tuple[dict, Tokens]:
    if not refresh_token or len(refresh_token) > 200:
        raise Unauthorized("Refresh token required")
    h = sha256_hex(refresh_token)
    session, family = repo.session_and_family(h)
    now = clock.now_ts()
    if not session or not family:
        raise Unauthorized("Invalid refresh token")
    if family.get("revoked"):
        raise Unauthorized("Session has been revoked")
    if session.get("status") != "active":
        # ASVS 10.4.5: a rotated (or revoked) token presented again revokes the whole family.
        repo.revoke_family(family["family_id"], "reuse", clock.now_iso())
        raise Unauthorized("Refresh token reuse detected; please sign in again")
    if float(family.get("expires_at", 0)) <= now:
        raise Unauthorized("Session expired; please sign in again")
    user = repo.get_user(session["user_id"], consistent=True)
    if not user or user.get("disabled"):
        repo.revoke_family(family["family_id"], "account", clock.now_iso())
        raise Unauthorized("Account not found or disabled")
    if user.get("password_changed_at") and str(family.get("created_at", "")) < str(user["password_changed_at"]):
        # sessions opened before a password reset end with it
        repo.revoke_family(family["family_id"], "password_reset", clock.now_iso())
        raise Unauthorized("Session ended by a password change; please sign in again")
    if user.get("sessions_revoked_at") and str(family.get("created_at", "")) < str(user["sessions_revoked_at"]):
        # sessions opened before the verified Google owner took the account over (google.py) end with it
        repo.revoke_family(family["family_id"], "account_linked", clock.now_iso())
        raise Unauthorized("Session ended when the account was linked to Google; please sign in again")
    tok, new_session = _issue(user, family_id=family["family_id"], family_expires_at=float(family["expires_at"]))
    try:
        repo.rotate(h, new_session, clock.now_iso())
    except ConditionFailed:
        # Lost a race with another use of the same token: that is reuse too.
        repo.revoke_family(family["family_id"], "reuse", clock.now_iso())
        raise Unauthorized("Refresh token reuse detected; please sign in again") from None
    return user, tok


def logout(refresh_token: str | None, user_id: str) -> None:
    """Revoke the presented refresh token's family (only the caller's own) and every access token
    issued to the caller so far (``token_version`` bump: other devices refresh to a new one)."""
    repo.bump_token_version(user_id)
    if not refresh_token or len(refresh_token) > 200:
        return
    h = sha256_hex(refresh_token)
    session, family = repo.session_and_family(h)
    if not session or session.get("user_id") != user_id:
        return
    if session:
        repo.revoke_session(h, clock.now_iso())
    if family:
        repo.revoke_family(family["family_id"], "logout", clock.now_iso())


# ---------------------------------------------------------------- set-password links (lead convert, staff-created)
def reset_password(token: str, password: str, ip: str) -> dict:
    """Consume a set-password token (``PWRESET#<sha256>``, single use, 72 h) and set the password.

    Every access token and refresh session issued before the reset stops working."""
    _rate(f"reset#{ip}", settings().login_rate_per_minute)
    invalid = BadRequest("This link is invalid or has expired")
    # the token is the credential and names no account until it is valid: throttled per IP
    # (the same back-off as a sign-in pair; docs/internships-journey.md "Credential throttling")
    had_failures = throttle.check("reset", throttle.NO_ACCOUNT, ip)
    if not token or len(token) > 200:
        throttle.failed("reset", throttle.NO_ACCOUNT, ip)
        raise invalid
    check_password_policy(password)
    h = sha256_hex(token)
    item = repo.password_token(h)
    now_ts = int(clock.now_ts())
    user = repo.get_user(str(item["user_id"]), consistent=True) if item and int(item.get("expires_at", 0)) > now_ts \
        else None
    if not user or user.get("disabled"):
        throttle.failed("reset", throttle.NO_ACCOUNT, ip)
        raise invalid
    try:
        repo.consume_password_token(h, user["id"], hash_password(password, n=settings().scrypt_n), clock.now_iso(),
                                    now_ts)
    except ConditionFailed:
        throttle.failed("reset", throttle.NO_ACCOUNT, ip)
        raise invalid from None
    if had_failures:
        throttle.succeeded("reset", throttle.NO_ACCOUNT, ip)
    return user

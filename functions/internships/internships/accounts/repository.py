"""Users, e-mail uniqueness, refresh-token sessions, login lockouts, rate counters.

Keys (see docs/internships-data-model.md):
  user            pk USER#<id>            sk PROFILE   gsi1 USERS / <created_at>#<id>, gsi2 ROLE#<role> / <created_at>#<id>
  e-mail claim    pk EMAIL#<lower email>  sk EMAIL     {user_id}
  session         pk SESSION#<sha256>     sk SESSION   {family_id, user_id, status active|rotated|revoked, ttl}
  family          pk FAMILY#<id>          sk FAMILY    {user_id, revoked, expires_at, ttl}
  throttling      pk AUTHTHROTTLE#<sha256(kind, account)>  sk IP#<ip> {failures, locked_until, ttl}
                                                           sk W#<window start> {failures, ttl}
  OAuth state     pk OAUTHSTATE#<sha256(state)>  sk STATE {ttl}  (claimed once by the callback)
  set-password    pk PWRESET#<sha256>     sk PWRESET   {user_id, purpose, expires_at, ttl} (written by admin_people)
  counters        pk COUNTERS             sk users | users#role#<role>   {count}
"""
from __future__ import annotations

from lambdakit import ratelimit
from lambdakit.errors import ConditionFailed, Conflict, Contention, NotFound

from ..store import clean as _clean
from ..store import table

PROFILE = "PROFILE"


def user_key(user_id: str) -> tuple[str, str]:
    return f"USER#{user_id}", PROFILE


def email_key(email: str) -> tuple[str, str]:
    return f"EMAIL#{email.lower()}", "EMAIL"


def user_index_attrs(user: dict) -> dict:
    created = user["created_at"]
    return {"gsi1pk": "USERS", "gsi1sk": f"{created}#{user['id']}",
            "gsi2pk": f"ROLE#{user['role']}", "gsi2sk": f"{created}#{user['id']}"}


def create_user(user: dict) -> None:
    """User + e-mail claim + counters in one transaction; ``Conflict`` on a taken e-mail."""
    pk, sk = user_key(user["id"])
    epk, esk = email_key(user["email"])
    item = {"pk": pk, "sk": sk, **user_index_attrs(user), **user}
    try:
        table().transact([
            {"put": {"pk": epk, "sk": esk, "user_id": user["id"], "created_at": user["created_at"]},
             "condition": "attribute_not_exists(pk)"},
            {"put": item, "condition": "attribute_not_exists(pk)"},
            {"update": ("COUNTERS", "users"), "add": {"count": 1}},
            {"update": ("COUNTERS", f"users#role#{user['role']}"), "add": {"count": 1}},
        ])
    except ConditionFailed:
        raise Conflict("An account with this email already exists") from None


def get_user(user_id: str, *, consistent: bool = False) -> dict | None:
    item = table().get(*user_key(user_id), consistent=consistent)
    return _clean(item)


def user_id_for_email(email: str) -> str | None:
    item = table().get(*email_key(email), consistent=True)
    return item["user_id"] if item else None


def update_user(user_id: str, fields: dict, remove: list[str] | None = None) -> dict:
    try:
        return _clean(table().update(*user_key(user_id), set=fields, remove=remove or None, must_exist=True))
    except ConditionFailed:
        raise NotFound("User not found") from None


def link_google(user: dict, google_sub: str, avatar_url: str | None, now: str) -> dict:
    """Link ``google_sub`` to ``user`` (as the caller read it) in one conditional update;
    ``ConditionFailed`` when the user changed meanwhile (the caller reads again).

    A user not linked yet has an e-mail nobody proved (a password registration sends no
    verification mail): the verified Google owner takes it over, as Firebase Auth does. Google
    linked, ``email_verified`` set, the password removed, every earlier session revoked
    (``sessions_revoked_at`` ends the refresh families opened before it, ``token_version`` + 1 the
    access tokens), all only while no Google account is linked. A user already linked to
    ``google_sub`` is verified: the update only fills a missing avatar."""
    sets: dict = {"updated_at": now}
    values: dict = {}
    add: dict[str, int | float] | None = None
    remove: list[str] | None = None
    if user.get("google_sub"):
        cond = "google_sub = :sub"
        values[":sub"] = google_sub
    else:
        cond = "attribute_not_exists(google_sub)"
        sets.update(google_sub=google_sub, email_verified=True, sessions_revoked_at=now)
        add, remove = {"token_version": 1}, ["password_hash"]
    if avatar_url and not user.get("avatar_url"):  # an avatar set meanwhile wins
        sets["avatar_url"] = avatar_url
        cond += " AND (attribute_not_exists(avatar_url) OR avatar_url = :empty)"
        values[":empty"] = ""
    return _clean(table().update(*user_key(user["id"]), set=sets, add=add, remove=remove, condition=cond,
                                 values=values or None, must_exist=True))


# ---------------------------------------------------------------- sessions
def session_key(token_hash: str) -> tuple[str, str]:
    return f"SESSION#{token_hash}", "SESSION"


def family_key(family_id: str) -> tuple[str, str]:
    return f"FAMILY#{family_id}", "FAMILY"


def create_family(family: dict, session: dict) -> None:
    fpk, fsk = family_key(family["family_id"])
    spk, ssk = session_key(session["token_hash"])
    table().transact([
        {"put": {"pk": fpk, "sk": fsk, **family}, "condition": "attribute_not_exists(pk)"},
        {"put": {"pk": spk, "sk": ssk, **session}, "condition": "attribute_not_exists(pk)"},
    ], fresh=(0, 1))  # both keys minted for this write: a condition failure is a collision (503)


def session_and_family(token_hash: str) -> tuple[dict | None, dict | None]:
    s = table().get(*session_key(token_hash), consistent=True)
    if not s:
        return None, None
    f = table().get(*family_key(s["family_id"]), consistent=True)
    return s, f


def rotate(old_hash: str, new_session: dict, now: str) -> None:
    """Mark the old session rotated and store the new one, only if the old one is still
    active and its family not revoked. ``ConditionFailed`` otherwise."""
    spk, ssk = session_key(old_hash)
    npk, nsk = session_key(new_session["token_hash"])
    fpk, fsk = family_key(new_session["family_id"])
    table().transact([
        {"update": (spk, ssk), "set": {"status": "rotated", "rotated_at": now, "replaced_by": new_session["token_hash"]},
         "condition": "#st = :active", "names": {"#st": "status"}, "values": {":active": "active"}},
        {"put": {"pk": npk, "sk": nsk, **new_session}, "condition": "attribute_not_exists(pk)"},
        {"check": (fpk, fsk), "condition": "attribute_exists(pk) AND revoked = :f",
         "values": {":f": False}},
    ])


def revoke_family(family_id: str, reason: str, now: str) -> None:
    table().update(*family_key(family_id), set={"revoked": True, "revoked_reason": reason, "revoked_at": now})


def revoke_session(token_hash: str, now: str) -> None:
    try:
        table().update(*session_key(token_hash), set={"status": "revoked", "revoked_at": now}, must_exist=True)
    except ConditionFailed:
        pass


# ---------------------------------------------------------------- credential throttling / rate limits
def _throttle_pk(account_key: str) -> str:
    return f"AUTHTHROTTLE#{account_key}"


def throttle_state(account_key: str, ip: str, window_start: int) -> tuple[dict | None, int]:
    """One BatchGetItem (consistent): the (account, IP) failure item and the account's failures
    in the window starting at ``window_start``."""
    pk = _throttle_pk(account_key)
    items = table().batch_get([(pk, f"IP#{ip}"), (pk, f"W#{window_start}")], consistent=True)
    pair = next((i for i in items if i["sk"] == f"IP#{ip}"), None)
    window = next((i for i in items if i["sk"] == f"W#{window_start}"), None)
    return pair, int(window.get("failures", 0)) if window else 0


def record_failure(account_key: str, ip: str, window_start: int | None, pair_ttl: int, window_ttl: int) -> int:
    """Count one failure for the (account, IP) pair and (unless ``window_start`` is None) for the
    account's window; the pair's consecutive-failure count after it."""
    pk = _throttle_pk(account_key)
    if window_start is not None:
        table().update(pk, f"W#{window_start}", add={"failures": 1}, set={"ttl": window_ttl})
    item = table().update(pk, f"IP#{ip}", add={"failures": 1}, set={"ttl": pair_ttl})
    return int(item.get("failures", 1))


def delay_pair(account_key: str, ip: str, until: float) -> None:
    table().update(_throttle_pk(account_key), f"IP#{ip}", set={"locked_until": int(until)})


def clear_pair(account_key: str, ip: str) -> None:
    table().delete(_throttle_pk(account_key), f"IP#{ip}")


def rate_hit(subject: str, limit: int, window_seconds: int) -> ratelimit.RateDecision:
    return ratelimit.hit(table(), subject, limit, window_seconds)


# ---------------------------------------------------------------- set-password tokens / access-token version
def password_token(token_hash: str) -> dict | None:
    return table().get(f"PWRESET#{token_hash}", "PWRESET", consistent=True)


def consume_password_token(token_hash: str, user_id: str, password_hash: str, now: str, now_ts: int) -> None:
    """Delete the single-use token (still unexpired) and set the new password, bumping the user's
    ``token_version`` (revokes issued access tokens) in one transaction; ``ConditionFailed`` when the
    token was used meanwhile, expired, or the user is gone."""
    upk, usk = user_key(user_id)
    table().transact([
        {"delete": (f"PWRESET#{token_hash}", "PWRESET"),
         "condition": "attribute_exists(pk) AND user_id = :u AND expires_at > :now",
         "values": {":u": user_id, ":now": now_ts}},
        {"update": (upk, usk), "set": {"password_hash": password_hash, "password_changed_at": now, "updated_at": now},
         "add": {"token_version": 1}, "condition": "attribute_exists(pk)"},
    ])


def claim_oauth_state(state_hash: str, ttl: int) -> bool:
    """Record that the callback used this state; ``False`` when it was used before (replay)."""
    try:
        table().put_new({"pk": f"OAUTHSTATE#{state_hash}", "sk": "STATE", "ttl": ttl})
    except ConditionFailed:
        return False
    return True


def set_password_hash_if_unchanged(user_id: str, old_hash: str, new_hash: str) -> bool:
    """Replace the stored password hash only if it is still ``old_hash`` (transparent rehash on
    login; a concurrent password change wins). ``False`` when the condition failed."""
    try:
        table().update(*user_key(user_id), set={"password_hash": new_hash}, condition="password_hash = :old",
                       values={":old": old_hash}, must_exist=True)
    except ConditionFailed:
        return False
    return True


def bump_token_version(user_id: str, attempts: int = 3) -> None:
    """Invalidate every access token issued to the user so far (logout).

    A condition failure is confirmed before it is believed (issue 23, rule 2): only a user read
    back as gone ends it quietly; a user that exists is bumped again, and a failure that persists
    is an error (503), never a logout that leaves the access tokens valid."""
    for _ in range(attempts):
        try:
            table().update(*user_key(user_id), add={"token_version": 1}, must_exist=True)
            return
        except ConditionFailed:
            if table().get(*user_key(user_id), consistent=True) is None:
                return  # the account is gone: no token of it is valid any more
    raise Contention("Could not sign out, please retry")

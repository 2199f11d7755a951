"""Local development seed, called by the local runtime after provisioning (AWS_ENDPOINT_URL at the
emulator) and by the tests. Idempotent.

* creates (or resets the password of) the bootstrap super_admin;
* makes the PaymentSecret a complete JSON ``{key_id, key_secret, webhook_secret}`` (the emulator
  stores generated secrets as plain strings);
* returns what a developer needs, for ``dev.json``::

    {"super_admin": {"email", "password"}, "cron_secret": "...",
     "payments": {"key_id", "key_secret", "webhook_secret"}}
"""
from __future__ import annotations

import json

from lambdakit import aws, clock
from lambdakit.security import hash_password, random_token

from .accounts import repository as users
from .accounts import service as accounts
from .auth import secrets_store
from .settings import settings


def _secret(arn: str, fallback: str) -> str:
    if not arn:
        return fallback
    return aws.client("secretsmanager").get_secret_value(SecretId=arn)["SecretString"]


def _ensure_payment_secret() -> dict:
    s = settings()
    if not s.payment_secret_arn:
        return {"key_id": s.payment_key_id or "rzp_test_local", "key_secret": s.payment_key_secret,
                "webhook_secret": s.payment_webhook_secret}
    raw = _secret(s.payment_secret_arn, "")
    try:
        data = json.loads(raw)
        if not isinstance(data, dict):
            data = {}
    except ValueError:
        data = {"key_secret": raw} if raw else {}
    changed = False
    for key, default in (("key_id", "rzp_test_local"), ("key_secret", random_token(24)),
                         ("webhook_secret", random_token(24))):
        if not data.get(key):
            data[key] = default
            changed = True
    if changed:
        aws.client("secretsmanager").put_secret_value(SecretId=s.payment_secret_arn, SecretString=json.dumps(data))
        secrets_store.forget()
    return {k: data[k] for k in ("key_id", "key_secret", "webhook_secret")}


def _ensure_super_admin() -> dict:
    s = settings()
    email = s.seed_admin_email
    password = "Adm1n-" + random_token(12)
    uid = users.user_id_for_email(email)
    if uid:
        users.update_user(uid, {"password_hash": hash_password(password, n=s.scrypt_n), "role": "super_admin",
                                "gsi2pk": "ROLE#super_admin", "updated_at": clock.now_iso()})
    else:
        accounts.create_user(email=email, password=password, name="Super Admin", role="super_admin")
    return {"email": email, "password": password}


def seed() -> dict:
    s = settings()
    return {
        "super_admin": _ensure_super_admin(),
        "cron_secret": s.cron_secret or _secret(s.cron_secret_arn, ""),
        "payments": _ensure_payment_secret(),
    }

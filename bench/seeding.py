"""Background data for the cost benchmarks: one real object made through the API, cloned N times
straight into the service's table (BatchWriteItem), so 100,000 rows cost a minute, not an hour
of API calls.

``clone_items(table, tokens, n)`` copies every item of ``table`` that mentions the first token
``n`` times, each copy with every token replaced by a fresh value of the same length (the object's
id, and e.g. the random part of its e-mail address, so uniqueness markers and e-mail keyed index
entries are distinct rows too). Items whose key does not change are skipped (a shared counter,
say). Set-up only: it finds the object's items with a Scan.

``seed_service(service, dev, n)`` does it against a running local runtime (``dev`` is its
``dev.json``), in the partitions the end-to-end scenarios read:

* campaigns: ``n`` contacts in the dev key's account (no list, no tag);
* exams: ``n`` student profiles and ``n`` questions in a background client (the super admin's
  lists span every client);
* internships: ``n`` student accounts (the platform is one tenant).
"""
from __future__ import annotations

import uuid
from typing import Any


def _swap(v: Any, repl: dict[str, str]) -> Any:
    if isinstance(v, str):
        for old, new in repl.items():
            v = v.replace(old, new)
        return v
    if isinstance(v, dict):
        return {k: _swap(x, repl) for k, x in v.items()}
    if isinstance(v, list):
        return [_swap(x, repl) for x in v]
    if isinstance(v, set):
        return {_swap(x, repl) for x in v}
    return v


def _fresh(token: str) -> str:
    """A random value of the token's shape: same length, separators kept, digits stay digits,
    hex stays hex, letters keep their case (so a UUID stays a UUID, a numeric id numeric)."""
    import secrets
    import string

    out = []
    for ch in token:
        if ch.isdigit():
            out.append(secrets.choice(string.digits))
        elif ch in "abcdef":
            out.append(secrets.choice("0123456789abcdef"))
        elif ch in "ABCDEF":
            out.append(secrets.choice("0123456789ABCDEF"))
        elif ch.islower():
            out.append(secrets.choice(string.ascii_lowercase))
        elif ch.isupper():
            out.append(secrets.choice(string.ascii_uppercase))
        else:
            out.append(ch)
    return "".join(out)


def clone_items(table: Any, tokens: list[str], n: int) -> int:
    """Copy the items mentioning ``tokens[0]`` ``n`` times with fresh tokens; returns items written."""
    if n <= 0:
        return 0
    items, kw = [], {}
    while True:
        page = table.scan(**kw)
        items += [i for i in page["Items"] if any(tokens[0] in str(v) for v in i.values())]
        if "LastEvaluatedKey" not in page:
            break
        kw["ExclusiveStartKey"] = page["LastEvaluatedKey"]
    written = 0
    with table.batch_writer() as bw:
        for _ in range(n):
            repl = {t: _fresh(t) for t in tokens}
            for it in items:
                copy = _swap(it, repl)
                if copy["pk"] == it["pk"] and copy.get("sk") == it.get("sk"):
                    continue
                bw.put_item(Item=copy)
                written += 1
    return written


# ----------------------------------------------------------------- against a running runtime
def _ddb_table(dev: dict, prefix: str) -> Any:
    import boto3

    kw = {"endpoint_url": dev["aws"]["endpoint_url"], "region_name": dev["aws"]["region"],
          "aws_access_key_id": "local", "aws_secret_access_key": "local"}
    names = boto3.client("dynamodb", **kw).list_tables()["TableNames"]
    name = next(t for t in names if t.startswith(prefix + "-"))
    return boto3.resource("dynamodb", **kw).Table(name)


def _ok(r: Any, *codes: int) -> dict:
    assert r.status_code in codes, f"{r.request.method} {r.request.url}: {r.status_code} {r.text[:300]}"
    return r.json()


def seed_campaigns(dev: dict, n: int) -> int:
    import requests

    c = dev["campaigns"]
    tag = uuid.uuid4().hex[:12]
    cid = _ok(requests.post(c["base_url"] + "/contacts", json={"email": f"bg-{tag}@example.com", "first_name": "Bg"},
                            headers={"Authorization": f"Bearer {c['api_key']}"}, timeout=60), 201)["data"]["id"]
    return _ddb_table(dev, "campaigns"), [[cid, tag]]


def seed_exams(dev: dict, n: int) -> int:
    import boto3
    import requests

    ex = dev["exams"]
    idp = boto3.client("cognito-idp", endpoint_url=dev["aws"]["endpoint_url"], region_name=dev["aws"]["region"],
                       aws_access_key_id="local", aws_secret_access_key="local")

    def sign_in(email: str, password: str) -> dict:
        r = idp.initiate_auth(ClientId=ex["identity"]["client_id"], AuthFlow="USER_PASSWORD_AUTH",
                              AuthParameters={"USERNAME": email, "PASSWORD": password})
        return {"Authorization": f"Bearer {r['AuthenticationResult']['IdToken']}"}

    base, pw = ex["base_url"], "Passw0rd!x"
    sa = sign_in(ex["super_admin"]["email"], ex["super_admin"]["password"])
    client = _ok(requests.post(base + "/api/clients", json={"name": "Background", "plan_id": "enterprise"}, headers=sa,
                               timeout=60), 201)["data"]["id"]
    tag, ca_email = uuid.uuid4().hex[:12], f"bg-ca-{uuid.uuid4().hex[:8]}@example.com"
    _ok(requests.post(base + "/api/create-user", json={"email": ca_email, "password": pw, "name": "Bg CA",
                                                       "role": "client_admin", "client_id": client}, headers=sa,
                      timeout=60), 201)
    ca = sign_in(ca_email, pw)
    st = _ok(requests.post(base + "/api/create-user", json={"email": f"bg-{tag}@example.com", "password": pw,
                                                            "name": "Bg Student", "role": "student"}, headers=ca,
                           timeout=60), 201)["data"]["id"]
    q = _ok(requests.post(base + "/api/questions", headers=ca, timeout=60, json={
        "question_text": "Background question?", "question_type": "mcq", "option_a": "a", "option_b": "b",
        "option_c": "c", "option_d": "d", "correct_answer": "A", "marks": 1}), 201)["data"]["id"]
    return _ddb_table(dev, "exams"), [[st, tag], [q]]


def seed_internships(dev: dict, n: int) -> int:
    import requests

    i = dev["internships"]
    tag = uuid.uuid4().hex[:12]
    user = _ok(requests.post(i["base_url"] + "/api/auth/register", timeout=60, json={
        "name": "Bg Student", "email": f"bg-{tag}@example.com", "password": "Student-Passw0rd1",
        "phone": "+91 98765 43210"}), 200, 201)["user"]
    return _ddb_table(dev, "internships"), [[user["id"], tag]]


SEEDERS = {"campaigns": seed_campaigns, "exams": seed_exams, "internships": seed_internships}


def forget_rate_limits(table: Any) -> None:
    """Delete the fixed-window rate-limit counters (``RL#...``) the seeding requests added, so the
    scenarios run afterwards get the whole budget (e.g. 3 registrations per minute per IP)."""
    kw: dict[str, Any] = {"FilterExpression": "begins_with(pk, :p)", "ExpressionAttributeValues": {":p": "RL#"}}
    with table.batch_writer() as bw:
        while True:
            page = table.scan(**kw)
            for it in page["Items"]:
                bw.delete_item(Key={"pk": it["pk"], "sk": it["sk"]})
            if "LastEvaluatedKey" not in page:
                break
            kw["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def seed_service(service: str, dev: dict, n: int) -> int:
    """``n`` background rows per entity (one made through the API, ``n - 1`` clones); items written."""
    table, objects = SEEDERS[service](dev, n)
    forget_rate_limits(table)
    return sum(clone_items(table, tokens, n - 1) for tokens in objects)

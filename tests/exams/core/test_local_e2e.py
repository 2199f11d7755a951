"""The issue's end-to-end scenario against a moto *server* (as under ``make dev``): devseed,
sign-in with InitiateAuth against the emulator, tokens verified against the emulator's JWKS
(the local-stage redirect of the Cognito JWKS URL to AWS_ENDPOINT_URL)."""
from __future__ import annotations

import boto3


def test_done_when_scenario(moto_server):
    from exams import devseed
    from exams.identity import jwks
    from local_runtime import testing

    app = testing.start(only=["exams"])
    jwks.reset()
    dev = devseed.seed()
    idp = boto3.client("cognito-idp", region_name="us-east-1", endpoint_url=moto_server)

    def sign_in(email, password):
        r = idp.initiate_auth(ClientId=dev["identity"]["client_id"], AuthFlow="USER_PASSWORD_AUTH",
                              AuthParameters={"USERNAME": email, "PASSWORD": password})
        return {"Authorization": f"Bearer {r['AuthenticationResult']['IdToken']}"}

    api = app.exams
    sa = sign_in(dev["super_admin"]["email"], dev["super_admin"]["password"])
    # 1. SA creates two clients with a client admin each
    cids, admins = [], []
    for n in (1, 2):
        r = api.post("/api/clients", json={"name": f"Org {n}", "plan_id": "starter"}, headers=sa)
        assert r.status == 201, r.text
        cids.append(r.json()["data"]["id"])
        email = f"admin{n}@example.com"
        r = api.post("/api/create-user", headers=sa, json={"email": email, "password": "Passw0rd!x",
                                                           "name": f"Admin {n}", "role": "client_admin",
                                                           "client_id": cids[-1]})
        assert r.status == 201, r.text
        admins.append(email)
    # 2. one CA signs in through the emulator's Cognito and creates a student
    ca1 = sign_in(admins[0], "Passw0rd!x")
    r = api.post("/api/create-user", headers=ca1, json={"email": "kid@example.com", "password": "Passw0rd!x",
                                                        "name": "Kid", "role": "student"})
    assert r.status == 201 and r.json()["data"]["client_id"] == cids[0]
    student_id = r.json()["data"]["id"]
    # 3. the other CA gets 403 on the first client's data
    ca2 = sign_in(admins[1], "Passw0rd!x")
    r = api.get("/api/profiles", query={"client_id": cids[0]}, headers=ca2)
    assert (r.status, r.json()["error"]) == (403, "TENANT_MISMATCH")
    r = api.put(f"/api/profiles/{student_id}", json={"name": "x"}, headers=ca2)
    assert (r.status, r.json()["error"]) == (403, "BOLA_VIOLATION")
    # 4. maintenance mode answers that CA with 503, but not SA
    assert api.put("/api/settings", json={"maintenance_mode": True}, headers=sa).status == 200
    assert api.get("/api/profiles", headers=ca2).status == 503
    assert api.get("/api/profiles", headers=sa).status == 200
    assert api.put("/api/settings", json={"maintenance_mode": False}, headers=sa).status == 200
    # 5. audit logs show the sign-ins and the mutations
    logs = api.get("/api/superadmin/audit-logs", headers=sa, query={"limit": 200}).json()["data"]
    actions = [x["action"] for x in logs]
    assert actions.count("login") == 3, [(x["action"], x.get("user_id"), x.get("metadata")) for x in logs if x["action"] == "login"]
    assert actions.count("client.create") == 2 and actions.count("user.create") == 3
    assert actions.count("settings.update") == 2

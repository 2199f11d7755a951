def test_sa_creates_client_and_users(exams_app, exam_users):
    exam_users.super_admin()
    c = exam_users.client("Acme", "starter")
    assert c["plan_id"] == "starter" and c["subscription"]["expiry_date"]
    ca = exam_users.client_admin(c["id"])
    st = exam_users.student(c["id"], by=ca)
    r = exams_app.exams.get("/api/profiles", headers=ca.headers)
    assert r.status == 200, r.text
    ids = {p["id"] for p in r.json()["data"]}
    assert {ca.id, st.id} <= ids
    assert r.headers["x-request-id"] and r.headers["x-ratelimit-remaining"]

def test_campaigns_health(app):
    r = app.campaigns.get("/health")
    assert r.status == 200
    body = r.json()
    assert body["success"] is True and body["data"]["status"] == "healthy"
    assert body["data"]["version"] and body["timestamp"].endswith("Z")


def test_exams_health_and_info(app):
    r = app.exams.get("/health")
    assert r.status == 200 and r.json()["data"]["status"] == "healthy"
    r = app.exams.get("/")
    assert r.status == 200 and r.json()["data"]["name"]


def test_internships_health(app):
    r = app.internships.get("/api/health")
    assert r.status == 200 and r.json()["status"] == "healthy"


def test_undocumented_route_is_404_in_service_format(app):
    assert app.campaigns.get("/nope").status == 404

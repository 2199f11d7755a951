"""Jobs aggregated from fixture feeds served on 127.0.0.1 (a real HTTP server), search, saved jobs."""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

RSS = b"""<?xml version="1.0"?><rss version="2.0"><channel><title>Intern Board</title>
<item><title>Python Developer Intern</title><link>https://jobs.example.com/1</link><author>Acme</author>
<category>location: Bangalore</category><description>&lt;b&gt;Build&lt;/b&gt; APIs</description>
<pubDate>Mon, 01 Jan 2024 10:00:00 GMT</pubDate></item>
<item><title>Data Science Intern</title><link>https://jobs.example.com/2</link><author>Globex</author>
<category>location: Remote</category><pubDate>Tue, 02 Jan 2024 10:00:00 GMT</pubDate></item>
</channel></rss>"""
ATOM = b"""<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Atom Jobs</title>
<entry><title>Python Developer Intern</title><link href="https://jobs.example.com/1"/><updated>2024-01-03T00:00:00Z</updated></entry>
<entry><title>React Frontend Intern</title><link href="https://jobs.example.com/3"/><author><name>Initech</name></author>
<updated>2024-01-03T00:00:00Z</updated></entry></feed>"""
API = {"results": [{"title": "Backend Python Engineer", "company": {"display_name": "Umbrella"},
                    "location": {"display_name": "Pune"}, "redirect_url": "https://jobs.example.com/api/9",
                    "created": "2024-01-04T00:00:00Z", "description": "Django"}]}


class _H(BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802
        self.server.hits.append(self.path)
        if self.path.startswith("/rss"):
            body, ct = RSS, "application/rss+xml"
        elif self.path.startswith("/atom"):
            body, ct = ATOM, "application/atom+xml"
        elif self.path.startswith("/api"):
            body, ct = json.dumps(API).encode(), "application/json"
        elif self.path.startswith("/huge"):
            body, ct = b"<rss>" + b"x" * 5000 + b"</rss>", "application/rss+xml"
        else:
            self.send_response(404)
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", ct)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a):
        pass


@pytest.fixture
def feeds(eng, monkeypatch):
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _H)
    srv.hits = []
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    base = f"http://127.0.0.1:{srv.server_address[1]}"
    from lambdakit import settings as ks

    monkeypatch.setenv("INTERNSHIPS_JOBS_RSS_FEEDS", f"{base}/rss,{base}/atom,{base}/missing")
    monkeypatch.setenv("INTERNSHIPS_JOBS_SEARCH_URL", f"{base}/api?what={{query}}&where={{location}}")
    monkeypatch.setenv("INTERNSHIPS_JOBS_DEFAULT_QUERIES", "python intern")
    ks.reset_settings()
    yield srv, base
    srv.shutdown()
    srv.server_close()


def test_jobs_end_to_end(eng, feeds, intern_users):
    srv, base = feeds
    c = eng.internships
    admin = intern_users.staff("admin")
    s = intern_users.student()
    r = c.post("/api/admin/jobs/fetch-rss", headers=admin.headers)
    assert r.status == 200, r.text
    body = r.json()
    assert body["added"] == 3 and body["updated"] == 1 and body["sources"] == 2 and len(body["errors"]) == 1
    r = c.post("/api/admin/jobs/fetch-all", headers=admin.headers)
    assert r.json()["added"] == 1 and any("/api?what=python+intern" in h for h in srv.hits)
    lst = c.get("/api/admin/jobs", headers=admin.headers).json()
    assert lst["total"] == 4 and len(lst["jobs"]) == 4
    # search
    assert c.get("/api/jobs", headers=s.headers).status == 400
    r = c.get("/api/jobs", headers=s.headers, query={"keyword": "python"})
    titles = sorted(j["title"] for j in r.json()["jobs"])
    assert titles == ["Backend Python Engineer", "Python Developer Intern"]
    r = c.get("/api/jobs", headers=s.headers, query={"keyword": "python", "location": "bangalore"})
    jobs = r.json()["jobs"]
    assert [j["title"] for j in jobs] == ["Python Developer Intern"] and jobs[0]["company"] == "Acme"
    assert jobs[0]["description"] == "Build APIs"
    assert [j["company"] for j in c.get("/api/jobs", headers=s.headers, query={"location": "Pune"}).json()["jobs"]] == [
        "Umbrella"]
    assert c.get("/api/jobs", headers=s.headers, query={"keyword": "cobol"}).json()["jobs"] == []
    sug = c.get("/api/jobs", headers=s.headers, query={"suggestions": "1", "q": "pyt"}).json()["suggestions"]
    assert set(sug) == {"Python Developer Intern", "Backend Python Engineer"}
    assert c.get("/api/jobs", headers=s.headers, query={"suggestions": "1", "q": "data sc"}).json()["suggestions"] == [
        "Data Science Intern"]
    # saved jobs
    jid = jobs[0]["id"]
    assert c.post("/api/jobs/saved", json={"jobId": jid}, headers=s.headers).json()["alreadySaved"] is False
    assert c.post("/api/jobs/saved", json={"jobId": jid}, headers=s.headers).json()["alreadySaved"] is True
    assert c.post("/api/jobs/saved", json={"jobId": "nope"}, headers=s.headers).status == 404
    assert c.post("/api/jobs/saved", json={}, headers=s.headers).status == 400
    saved = c.get("/api/jobs/saved", headers=s.headers).json()
    assert [j["jobId"] for j in saved["jobs"]] == [jid] and saved["jobs"][0]["title"] == "Python Developer Intern"
    assert c.delete("/api/jobs/saved", json={"jobId": jid}, headers=s.headers).status == 200
    assert c.delete("/api/jobs/saved", json={"jobId": jid}, headers=s.headers).status == 404
    assert c.get("/api/jobs/saved", headers=s.headers).json()["jobs"] == []
    # refresh one query; admin delete
    assert c.post("/api/admin/jobs/refresh", json={}, headers=admin.headers).status == 400
    r = c.post("/api/admin/jobs/refresh", json={"query": "django"}, headers=admin.headers)
    assert r.status == 200 and r.json()["updated"] == 1
    assert c.delete("/api/admin/jobs", json={"jobId": jid}, headers=admin.headers).json()["deleted"] == 1
    assert c.get("/api/jobs", headers=s.headers, query={"location": "bangalore"}).json()["jobs"] == []
    assert c.delete("/api/admin/jobs", headers=admin.headers).status == 400
    r = c.delete("/api/admin/jobs", json={"all": True}, headers=admin.headers)
    assert r.json()["deleted"] == 3 and c.get("/api/admin/jobs", headers=admin.headers).json()["total"] == 0


def test_refresh_takes_the_query_from_the_body_or_the_query_string(eng, feeds, intern_users):
    """Spec: POST /api/admin/jobs/refresh | query (string) | Refreshes one query. A client may send it as
    the body's ``query`` or as ``?query=``; neither is 400 (round 11)."""
    srv, base = feeds
    c = eng.internships
    admin = intern_users.staff("admin")
    r = c.post("/api/admin/jobs/refresh", query={"query": "django"}, headers=admin.headers)
    assert r.status == 200, r.text
    assert r.json()["added"] == 1 and any(h.startswith("/api?what=django") for h in srv.hits)
    r = c.post("/api/admin/jobs/refresh", json={"query": "flask"}, query={"query": "django"}, headers=admin.headers)
    assert r.status == 200 and any(h.startswith("/api?what=flask") for h in srv.hits)
    assert c.post("/api/admin/jobs/refresh", headers=admin.headers).status == 400
    assert c.post("/api/admin/jobs/refresh", query={"query": ""}, headers=admin.headers).status == 400


def test_fetch_refuses_private_addresses_outside_local_and_caps_size(eng, feeds, monkeypatch):
    srv, base = feeds
    from internships.jobs.fetch import FetchError, fetch
    from lambdakit import settings as ks

    monkeypatch.setenv("INTERNSHIPS_JOBS_MAX_RESPONSE_BYTES", "1000")
    ks.reset_settings()
    with pytest.raises(FetchError, match="too large"):
        fetch(f"{base}/huge")
    monkeypatch.setenv("INTERNSHIPS_STAGE", "prod")
    ks.reset_settings()
    n = len(srv.hits)
    with pytest.raises(FetchError, match="refused"):
        fetch(f"{base}/rss")
    with pytest.raises(FetchError, match="refused"):
        fetch("https://169.254.169.254/latest/meta-data")
    assert len(srv.hits) == n  # never connected


def test_delete_jobs_older_than_an_impossible_age_is_a_400(eng, intern_users):
    """Found by CI's short fuzz: olderThanDays=127594615 named a date before year 1 (500)."""
    admin = intern_users.staff("admin")
    for bad in ("127594615", "36501", "-1"):
        r = eng.internships.delete("/api/admin/jobs", query={"olderThanDays": bad}, headers=admin.headers)
        assert r.status == 400, (bad, r.text)
        assert "olderThanDays" in r.json()["error"]
    r = eng.internships.delete("/api/admin/jobs", query={"olderThanDays": "36500"}, headers=admin.headers)
    assert r.status == 200, r.text

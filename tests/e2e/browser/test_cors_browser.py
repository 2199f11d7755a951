"""Issue 31 item 3: a browser on another origin calls each service with ``fetch``, as API Gateway's
CORS lets it (the local runtime answers preflights and sets the headers from the templates'
``CorsConfiguration``). The judge is Chromium itself: from the allowed origin every call
succeeds (internships with its cookies); from another origin the browser blocks every one."""
from __future__ import annotations

import boto3

CALLS = """
const done = arguments[arguments.length - 1];
const [cbase, key, ebase, ibase, email, password] = arguments;
async function attempt(fn) { try { return await fn(); } catch (e) { return {error: String(e)}; } }
(async () => {
  const out = {};
  // campaigns: the API key as a bearer header (not a simple request: preflight first)
  out.campaigns = await attempt(async () => {
    const r = await fetch(cbase + "/api", {headers: {"Authorization": "Bearer " + key}});
    return {status: r.status, body: await r.json()};
  });
  // exams: a header the service reads (preflight), and the exposed X-Request-Id it answers with
  out.exams = await attempt(async () => {
    const r = await fetch(ebase + "/health", {headers: {"X-Request-Id": "browser-cors-check"}});
    return {status: r.status, requestId: r.headers.get("x-request-id"), body: await r.json()};
  });
  // internships: sign in with credentials (the cookies are set), then a cookie-only call
  if (email) {
    out.login = await attempt(async () => {
      const r = await fetch(ibase + "/api/auth/login", {method: "POST", credentials: "include",
        headers: {"Content-Type": "application/json"}, body: JSON.stringify({email, password})});
      return {status: r.status};
    });
  }
  out.me = await attempt(async () => {
    const r = await fetch(ibase + "/api/auth/me", {credentials: "include"});
    return {status: r.status, body: await r.json()};
  });
  // a simple request (no preflight): the response comes back, the browser still checks the origin
  out.health = await attempt(async () => {
    const r = await fetch(ibase + "/api/health");
    return {status: r.status};
  });
  done(out);
})();
"""


def test_fetch_from_an_allowed_origin_succeeds_and_from_another_is_blocked(browser, browser_runtime, page_origins):
    dev, _ = browser_runtime
    allowed, blocked = page_origins
    assert allowed in dev["campaigns"]["cors_origins"] and blocked not in dev["internships"]["cors_origins"]
    c, e, i = dev["campaigns"], dev["exams"], dev["internships"]
    sa = i["super_admin"]

    browser.get(allowed + "/")
    ok = browser.execute_async_script(CALLS, c["base_url"], c["api_key"], e["base_url"], i["base_url"],
                                      sa["email"], sa["password"])
    assert ok["campaigns"].get("status") == 200, ok
    assert ok["campaigns"]["body"]["data"], ok
    assert ok["exams"].get("status") == 200 and ok["exams"]["requestId"], ok  # exposed header readable
    assert ok["login"] == {"status": 200}, ok
    assert ok["me"].get("status") == 200 and ok["me"]["body"]["user"]["email"] == sa["email"], ok
    assert ok["health"] == {"status": 200}, ok

    # a front's own origin is in every service's local default list (no LOCAL_CORS_ORIGINS needed):
    # from the exams front's /docs page the calls to campaigns and internships (cookies kept) succeed
    assert e["base_url"] in i["cors_origins"] and e["base_url"] in c["cors_origins"]
    browser.get(e["base_url"] + "/docs")
    front = browser.execute_async_script(CALLS, c["base_url"], c["api_key"], e["base_url"], i["base_url"], "", "")
    assert front["campaigns"].get("status") == 200 and front["exams"].get("status") == 200, front
    assert front["me"].get("status") == 200 and front["me"]["body"]["user"]["email"] == sa["email"], front

    # same browser, same cookies, another origin: every call is blocked by the browser
    browser.get(blocked + "/")
    no = browser.execute_async_script(CALLS, c["base_url"], c["api_key"], e["base_url"], i["base_url"], "", "")
    for name in ("campaigns", "exams", "me", "health"):
        assert "error" in no[name] and "Failed to fetch" in no[name]["error"], (name, no)


def test_exams_bearer_call_from_the_allowed_origin(browser, browser_runtime, page_origins):
    """An authenticated exams call (Cognito token from the emulator) passes the preflight with
    ``Authorization``; the same call from another origin is blocked."""
    dev, _ = browser_runtime
    ex = dev["exams"]
    idp = boto3.client("cognito-idp", endpoint_url=dev["aws"]["endpoint_url"], region_name=dev["aws"]["region"],
                       aws_access_key_id="local", aws_secret_access_key="local")
    token = idp.initiate_auth(ClientId=ex["identity"]["client_id"], AuthFlow="USER_PASSWORD_AUTH",
                              AuthParameters={"USERNAME": ex["super_admin"]["email"],
                                              "PASSWORD": ex["super_admin"]["password"]})["AuthenticationResult"]["IdToken"]
    script = """
    const done = arguments[arguments.length - 1];
    fetch(arguments[0] + "/api/clients", {headers: {"Authorization": "Bearer " + arguments[1]}})
      .then(async r => done({status: r.status, body: await r.json()})).catch(e => done({error: String(e)}));
    """
    for origin, allowed in ((page_origins[0], True), (page_origins[1], False)):
        browser.get(origin + "/")
        got = browser.execute_async_script(script, ex["base_url"], token)
        if allowed:
            assert got.get("status") == 200 and "data" in got["body"], got
        else:
            assert "Failed to fetch" in got.get("error", ""), got

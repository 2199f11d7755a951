"""Small plain pages the internships front serves locally, where its ``FrontendUrl`` points.

Deployed, ``FrontendUrl`` is the operator's own web app; locally it is the runtime itself, so the
links the service builds (Google sign-in's ``/dashboard`` and ``/login?error=``, the certificate
QR code's ``/verify/{id}``, the set-password e-mail's ``/reset-password?token=``) end on a
readable page instead of a 404. Each page calls the service's own API routes (in-process, the
same routing as the front), is plain HTML with inline CSS, loads nothing else, and escapes every
value it shows. These are not Lambda routes and are never deployed.
"""
from __future__ import annotations

import html
import json
from typing import Any, Callable
from urllib.parse import parse_qs, unquote

from . import invoke as inv
from .stack import Service

STYLE = ("body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#222}"
         "h1{font-size:1.5rem}.box{border:1px solid #ccc;border-radius:6px;padding:1rem;margin:1rem 0}"
         ".err{border-color:#c33;background:#fff5f5}.ok{border-color:#393;background:#f5fff5}"
         "dt{font-weight:600}dd{margin:0 0 .5rem 0}input,button{font:inherit;padding:.4rem;margin:.2rem 0}"
         "small{color:#666}")

#: What the Google sign-in's ``error`` codes mean (accounts/google.py); others are shown as sent.
SIGN_IN_ERRORS = {
    "account_conflict": "This Google account's e-mail already belongs to another account.",
    "account_disabled": "This account is disabled. Contact the programme's administrators.",
    "account_error": "The account could not be signed in. Please try again.",
    "code_rejected": "Google did not accept the sign-in code. Please start again.",
    "disposable_email": "Disposable e-mail addresses cannot sign in.",
    "email_not_verified": "Google has not verified this account's e-mail address, so it cannot sign in.",
    "google_not_configured": "Google sign-in is not configured on this server.",
    "id_token_expired": "The sign-in took too long. Please start again.",
    "invalid_audience": "The sign-in answer was meant for another application.",
    "invalid_email": "The Google account has no usable e-mail address.",
    "invalid_id_token": "The sign-in answer from Google could not be verified.",
    "invalid_issuer": "The sign-in answer did not come from Google.",
    "invalid_nonce": "The sign-in answer did not match this sign-in. Please start again.",
    "invalid_state": "The sign-in could not be matched to this browser. Please start again.",
    "missing_code": "Google sent no sign-in code (the sign-in was cancelled?).",
    "provider_unavailable": "Google could not be reached. Please try again later.",
    "state_already_used": "This sign-in link was already used. Please start again.",
    "state_expired": "The sign-in took too long. Please start again.",
}

RESET_SCRIPT = """
document.getElementById('f').addEventListener('submit', async function (ev) {
  ev.preventDefault();
  var out = document.getElementById('out');
  var r = await fetch('/api/auth/reset-password', {method: 'POST', headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({token: document.getElementById('token').value,
                          password: document.getElementById('password').value})});
  var body = await r.json().catch(function () { return {}; });
  out.className = 'box ' + (r.ok ? 'ok' : 'err');
  out.textContent = r.ok ? 'Password changed. You can now sign in.' : (body.message || body.error || ('Error ' + r.status));
});
"""


def esc(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def page(title: str, body: str, *, status: int = 200, script: str = "") -> inv.HttpResult:
    doc = (f"<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
           f"<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>{esc(title)}</title>"
           f"<style>{STYLE}</style></head><body><h1>{esc(title)}</h1>{body}"
           f"<p><small>Local development page of the internships runtime (not deployed).</small></p>"
           + (f"<script>{script}</script>" if script else "") + "</body></html>")
    return inv.HttpResult(status, {"content-type": "text/html; charset=utf-8", "cache-control": "no-store",
                                   "x-content-type-options": "nosniff"}, [], doc.encode())


class Pages:
    def __init__(self, invoker: Callable[[Any, dict], Any], svc: Service) -> None:
        self.invoker = invoker
        self.svc = svc

    def api(self, method: str, path: str, headers: dict[str, str]) -> tuple[int, dict]:
        keep = {k: v for k, v in headers.items() if k in ("cookie", "authorization", "x-forwarded-for")}
        r = inv.dispatch(self.svc, method, path, "", keep, None, invoker=self.invoker)
        try:
            body = json.loads(r.body or b"{}")
        except ValueError:
            body = {}
        return r.status, body if isinstance(body, dict) else {}

    def handle(self, method: str, path: str, raw_query: str, headers: dict[str, str]) -> inv.HttpResult | None:
        if method not in ("GET", "HEAD"):
            return None
        query = {k: v[0] for k, v in parse_qs(raw_query).items()}
        if path == "/dashboard":
            return self.dashboard(headers)
        if path == "/login":
            return self.login(query.get("error"))
        if path.startswith("/verify/") and path.count("/") == 2:
            return self.verify(unquote(path[len("/verify/"):]), headers)
        if path == "/reset-password":
            return self.reset_password(query.get("token", ""))
        return None

    def dashboard(self, headers: dict[str, str]) -> inv.HttpResult:
        status, body = self.api("GET", "/api/auth/me", headers)
        user = body.get("user") if status == 200 else None
        if not isinstance(user, dict):
            return page("Dashboard", "<div class=\"box err\"><p>You are not signed in.</p></div>"
                        "<p><a href=\"/api/auth/google\">Sign in with Google</a> or <a href=\"/login\">sign in</a>.</p>")
        rows = "".join(f"<dt>{esc(label)}</dt><dd>{esc(user.get(key))}</dd>"
                       for label, key in (("Name", "name"), ("E-mail", "email"), ("Role", "role"), ("User id", "id"))
                       if user.get(key) not in (None, ""))
        return page("Dashboard", f"<div class=\"box ok\"><p>Signed in as <strong>{esc(user.get('name') or user.get('email'))}"
                                 f"</strong>.</p><dl>{rows}</dl></div>"
                                 "<p>API: <code>GET /api/auth/me</code>, <a href=\"/docs\">all routes</a>.</p>")

    def login(self, error: str | None) -> inv.HttpResult:
        parts = []
        if error:
            reason = SIGN_IN_ERRORS.get(error, "The sign-in failed.")
            parts.append(f"<div class=\"box err\"><p><strong>Sign-in failed.</strong> {esc(reason)}</p>"
                         f"<p><small>Reason code: <code>{esc(error)}</code></small></p></div>")
        parts.append("<p><a href=\"/api/auth/google\">Sign in with Google</a></p>"
                     "<p>With e-mail and password: <code>POST /api/auth/login</code> (see <a href=\"/docs\">/docs</a>).</p>")
        return page("Sign in", "".join(parts))

    def verify(self, cert_id: str, headers: dict[str, str]) -> inv.HttpResult:
        from urllib.parse import quote

        status, body = self.api("GET", "/api/certificates/verify/" + quote(cert_id, safe=""), headers)
        cert = body.get("certificate") if status == 200 else None
        if isinstance(cert, dict) and body.get("valid"):
            rows = "".join(f"<dt>{esc(label)}</dt><dd>{esc(cert.get(key))}</dd>"
                           for label, key in (("Certificate", "certificateId"), ("Awarded to", "studentName"),
                                              ("Programme", "domainName"), ("Duration", "duration"),
                                              ("Issued", "issueDate"), ("Expires", "expiryAt"))
                           if cert.get(key) not in (None, ""))
            return page("Certificate verification", f"<div class=\"box ok\"><p><strong>Valid certificate.</strong></p>"
                                                    f"<dl>{rows}</dl></div>")
        reason = {404: "No valid certificate has this number (unknown or revoked).", 410: "This certificate has expired.",
                  429: "Too many verifications from this address; try again in a minute."}.get(
            status, "The certificate could not be verified now.")
        return page("Certificate verification", f"<div class=\"box err\"><p><strong>Not verified.</strong> {esc(reason)}"
                                                f"</p><p><small>Certificate number: {esc(cert_id)}</small></p></div>")

    def reset_password(self, token: str) -> inv.HttpResult:
        form = ("<form id=\"f\"><input type=\"hidden\" id=\"token\" value=\"" + esc(token) + "\">"
                "<label>New password<br><input type=\"password\" id=\"password\" required autocomplete=\"new-password\">"
                "</label><br><button type=\"submit\">Set password</button></form><div id=\"out\"></div>")
        if not token:
            form = "<div class=\"box err\"><p>This link has no token: open the link from the e-mail.</p></div>"
        return page("Set a new password", form, script=RESET_SCRIPT if token else "")

"""/api/auth/google, /api/auth/google/callback: Google sign-in (GoogleAuthFunction).

Its own function because only it verifies RS256 (Google's ID token: ``google`` + ``oidc``, in pure
Python: ``lambdakit.rs256``, docs/platform.md "Layers") and calls the provider; the password routes
(``accounts.handler``, AuthFunction) never import that code. Same rules as before the split:
``google`` does the flow and signs in with ``service.issue_tokens``.
"""
from __future__ import annotations

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.http import cookies, query
from lambdakit.openapi import doc

from ..http import build_app, lambda_entry
from . import google

router = APIGatewayHttpRouter()


@router.get("/api/auth/google", summary="Start Google sign-in (302 to the provider)",
            description="OpenID Connect code flow with PKCE S256 against the configured issuer (Google; under "
                        "make dev the local stand-in provider). State, nonce and verifier travel in a signed "
                        "(own key), 10-minute HttpOnly cookie. Not configured: 302 to /login?error="
                        "google_not_configured.",
            openapi_extensions=doc(redirect=True, public=True))
def google_start():
    location, cookie = google.start(query(router, "next"))
    return Response(status_code=302, headers={"Location": location, "Cache-Control": "no-store"}, cookies=[cookie])


@router.get("/api/auth/google/callback", summary="Google sign-in callback",
            description="Checks the state against the cookie and uses it once, exchanges the code with the PKCE "
                        "verifier, verifies the ID token (JWKS signature, iss, aud, exp, nonce, email_verified), "
                        "refuses disposable domains, then creates the account (email_verified) or signs in to "
                        "the one with that e-mail: already linked to this Google account, it just signs in; "
                        "never linked (e-mail unverified, e.g. registered with a password), the verified owner "
                        "takes it over in one conditional write: Google linked, email_verified, password removed, "
                        "earlier refresh and access tokens revoked. The picture claim becomes the avatar only if "
                        "it is a valid https URL (dropped otherwise). Sets the same cookies as password sign-in "
                        "and redirects to /dashboard. Failures go to /login?error=<reason> and create nothing "
                        "(reasons: docs/internships-journey.md).",
            openapi_extensions=doc(redirect=True, public=True))
def google_callback():
    location, cookie_list = google.callback(
        code=query(router, "code"), state=query(router, "state"), error=query(router, "error"),
        state_cookie=cookies(router).get(google.STATE_COOKIE))
    return Response(status_code=302, headers={"Location": location, "Cache-Control": "no-store"},
                    cookies=cookie_list)


app = build_app(router)
lambda_handler = lambda_entry(app)

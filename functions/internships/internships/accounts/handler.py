"""/api/auth/*: register, login, logout, refresh, reset-password, me, permissions (AuthFunction).

Google sign-in (``/api/auth/google``, ``/api/auth/google/callback``) is ``google_handler``
(GoogleAuthFunction): only it verifies RS256 ID tokens and calls the provider, so this module never
imports ``google``/``oidc``.
"""
from __future__ import annotations

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.http import client_ip, cookies, json_object, parse_model
from lambdakit.openapi import doc

from ..auth import REFRESH_COOKIE, caller_item, principal, require_user, session_cookies
from ..http import build_app, lambda_entry, ok
from . import service

router = APIGatewayHttpRouter()


def _auth_response(user: dict, tok: service.Tokens) -> Response:
    return ok({"success": True, "user": service.summary(user), "token": tok.access_token},
              cookies=session_cookies.session_cookies(tok.access_token, tok.access_max_age, tok.refresh_token,
                                                      tok.refresh_max_age, tok.csrf_token),
              headers={"Cache-Control": "no-store"})


@router.post("/api/auth/register", summary="Register a student account",
             description="Password: 8+ chars with upper, lower and digit; phone required, a valid number "
                         "stored in E.164 (India when it has no country code; else 400 naming phone); disposable e-mail "
                         "domains refused; 3/min per IP. Sets auth-token, refresh-token and csrf-token cookies.",
             openapi_extensions=doc(body="internships.accounts.models:RegisterRequest", response="internships.accounts.models:AuthResponse", errors=(409,), public=True))
def register():
    from .models import RegisterRequest

    data = parse_model(RegisterRequest, json_object(router))
    user, tok = service.register(data, client_ip(router))
    return _auth_response(user, tok)


@router.post("/api/auth/login", summary="Sign in with e-mail and password",
             description="5/min per IP. After 5 consecutive failures one (account, IP) pair backs off "
                         "exponentially (30 s doubling to 15 min); past 20 failures an hour from all addresses "
                         "the account is slowed to one try per 5 s, never locked (429 + Retry-After). Same error "
                         "for unknown user and wrong password. A hash below the current scrypt cost is "
                         "upgraded on success.",
             openapi_extensions=doc(body="internships.accounts.models:LoginRequest", response="internships.accounts.models:AuthResponse", errors=(401,), public=True))
def login():
    from .models import LoginRequest

    data = parse_model(LoginRequest, json_object(router))
    user, tok = service.login(data.email, data.password, client_ip(router))
    return _auth_response(user, tok)


@router.post("/api/auth/logout", summary="Sign out", middlewares=[require_user],
             description="Revokes the refresh-token family and clears both cookies.",
             openapi_extensions=doc(response="internships.accounts.models:MessageResponse"))
def logout():
    service.logout(cookies(router).get(REFRESH_COOKIE), principal(router).user_id)
    return ok({"success": True, "message": "Logged out"}, cookies=session_cookies.clear_cookies())


@router.post("/api/auth/refresh", summary="Rotate the refresh token",
             description="Needs the refresh-token cookie; returns a new cookie pair. A rotated token presented "
                         "again revokes its whole family. 401 for a family opened before a password reset or "
                         "before the verified Google owner took the account over.",
             openapi_extensions=doc(response="internships.accounts.models:AuthResponse", errors=(401,)))
def refresh():
    from ..auth import csrf

    if cookies(router).get(REFRESH_COOKIE):
        csrf.check(router)
    user, tok = service.refresh(cookies(router).get(REFRESH_COOKIE))
    return _auth_response(user, tok)


@router.post("/api/auth/reset-password", summary="Set a new password with a set-password link's token",
             description="Body {token, password}. Consumes the single-use token e-mailed by staff (e.g. lead "
                         "convert; valid 72 h); password policy as register; 400 for an unknown, used or expired "
                         "token (5 of those from one IP start the same back-off as sign-in: 429). Revokes every "
                         "earlier access token and session of the account.",
             openapi_extensions=doc(body="internships.accounts.models:ResetPasswordRequest",
                                    response="internships.accounts.models:MessageResponse", public=True))
def reset_password():
    from .models import ResetPasswordRequest

    data = parse_model(ResetPasswordRequest, json_object(router))
    service.reset_password(data.token, data.password, client_ip(router))
    return ok({"success": True, "message": "Password updated; please sign in"}, headers={"Cache-Control": "no-store"})


@router.get("/api/auth/me", summary="The signed-in user", middlewares=[require_user],
             openapi_extensions=doc(response="internships.accounts.models:MeResponse"))
def me():
    # the user item authenticate read for this request (same eventually consistent read): not read twice
    return ok({"success": True, "user": service.public_user(caller_item(router))})


@router.get("/api/auth/permissions", summary="The caller's permission names", middlewares=[require_user],
             openapi_extensions=doc(response="internships.accounts.models:PermissionsResponse"))
def permissions():
    p = principal(router)
    return ok({"success": True, "role": p.role, "permissions": sorted(p.permissions)})


app = build_app(router)
lambda_handler = lambda_entry(app)

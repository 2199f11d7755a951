"""Profile: GET/PUT /api/profile, POST /api/profile/avatar, GET /api/avatars/{userId} (added: 302 to a
short-lived S3 URL), GET /api/proxy-image?url= (allow-listed avatar hosts)."""
from __future__ import annotations

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.http import header, json_object, parse_model, query, raw_body
from lambdakit.openapi import FILE_STORE_NOTE, doc

from ..auth import caller_item, principal, require_user
from ..http import build_app, lambda_entry, ok
from . import service

router = APIGatewayHttpRouter()


@router.get("/api/profile", summary="The caller's full profile", middlewares=[require_user],
             openapi_extensions=doc(response="internships.profile.models:ProfileResponse"))
def get_profile():
    return ok({"success": True, "profile": service.get(principal(router), caller_item(router))})


@router.put("/api/profile", summary="Update the profile (email and role are immutable)",
            middlewares=[require_user],
             openapi_extensions=doc(body="internships.profile.models:ProfileUpdate", response="internships.profile.models:ProfileResponse"))
def update_profile():
    from .models import ProfileUpdate

    data = parse_model(ProfileUpdate, json_object(router))
    return ok({"success": True, "profile": service.update(principal(router), data)})


@router.post("/api/profile/avatar", summary="Upload an avatar (multipart field file, image ≤ 4 MB)",
             middlewares=[require_user],
             description="JPEG, PNG or WebP (by magic bytes, else 400), at most 4 MB = 4,194,304 bytes "
                         "(INTERNSHIPS_AVATAR_MAX_BYTES); larger: 413 {error: \"Image exceeds 4 MB (4,194,304 "
                         "bytes)\"}. The limit is what fits a synchronous Lambda invocation (6 MB) once API "
                         "Gateway base64-encodes the body (4/3) next to the headers, with headroom: a 5 MB image "
                         "would never reach the function.",
             openapi_extensions=doc(form={"file": "file"}, response="internships.profile.models:AvatarResponse", errors=(400, 413),
                                    notes={503: "S3 busy or unreachable while storing the image: the previous avatar is kept. " + FILE_STORE_NOTE}))
def upload_avatar():
    url = service.upload_avatar(principal(router), raw_body(router), header(router, "content-type"))
    return ok({"success": True, "avatarUrl": url})


@router.get("/api/avatars/<userId>", summary="A user's uploaded avatar (302 to a short-lived URL)",
             openapi_extensions=doc(redirect=True, public=True,
                                    notes={503: "S3 busy or unreachable while signing the image link. " + FILE_STORE_NOTE}))
def avatar(userId: str):  # noqa: N803
    return Response(status_code=302, headers={"Location": service.avatar_redirect(userId),
                                              "Cache-Control": "public, max-age=3000"})


@router.get("/api/proxy-image", summary="Proxy an avatar image from an allow-listed host",
            description="https only, host allow-list, every resolved address public, no redirects, ≤ 4 MB "
                        "(the base64 response must fit Lambda's 6 MB), "
                        "content typed by magic bytes.",
             openapi_extensions=doc(query="internships.profile.models:ProxyImageQuery", content_type="image/*", errors=(502,)))
def proxy_image():
    data, mime = service.proxy_image(query(router, "url"))
    return Response(status_code=200, content_type=mime, body=data,
                    headers={"Cache-Control": "public, max-age=86400", "X-Content-Type-Options": "nosniff"})


app = build_app(router)
lambda_handler = lambda_entry(app)

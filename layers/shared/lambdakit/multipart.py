"""multipart/form-data parsing of an API Gateway body with python-multipart."""
from __future__ import annotations

from dataclasses import dataclass, field

from .errors import ApiError, ValidationFailed


@dataclass
class UploadedFile:
    field_name: str
    filename: str
    content_type: str
    data: bytes


@dataclass
class Form:
    fields: dict[str, str] = field(default_factory=dict)
    files: dict[str, UploadedFile] = field(default_factory=dict)


def parse(body: bytes, content_type: str | None, *, max_bytes: int) -> Form:
    if not content_type or not content_type.lower().startswith("multipart/form-data"):
        raise ValidationFailed("Expected multipart/form-data", fields={"body": "Expected multipart/form-data"})
    if len(body) > max_bytes:
        raise ApiError(f"Upload exceeds {max_bytes} bytes", code="PAYLOAD_TOO_LARGE", status=413)
    from python_multipart import MultipartParser
    from python_multipart.multipart import parse_options_header

    _, params = parse_options_header(content_type)
    boundary = params.get(b"boundary")
    if not boundary:
        raise ValidationFailed("Malformed multipart body", fields={"body": "Missing boundary"})

    form = Form()
    state: dict = {}

    def on_part_begin():
        state.clear()
        state.update(headers={}, data=bytearray(), hname=b"", hval=b"")

    def on_header_field(data, start, end):
        state["hname"] += data[start:end]

    def on_header_value(data, start, end):
        state["hval"] += data[start:end]

    def on_header_end():
        state["headers"][state["hname"].decode("latin-1").lower()] = state["hval"].decode("latin-1")
        state["hname"], state["hval"] = b"", b""

    def on_part_data(data, start, end):
        state["data"] += data[start:end]

    def on_part_end():
        disp = state["headers"].get("content-disposition", "")
        _, p = parse_options_header(disp.encode("latin-1"))
        name = (p.get(b"name") or b"").decode("utf-8", "replace")
        fname = p.get(b"filename")
        if fname is not None:
            form.files[name] = UploadedFile(name, fname.decode("utf-8", "replace"),
                                            state["headers"].get("content-type", "application/octet-stream"),
                                            bytes(state["data"]))
        else:
            try:
                form.fields[name] = bytes(state["data"]).decode("utf-8")
            except UnicodeDecodeError:
                raise ValidationFailed("Form field is not valid UTF-8", fields={name: "Invalid UTF-8"}) from None

    parser = MultipartParser(boundary, {
        "on_part_begin": on_part_begin, "on_part_data": on_part_data, "on_part_end": on_part_end,
        "on_header_field": on_header_field, "on_header_value": on_header_value, "on_header_end": on_header_end,
    })
    try:
        parser.write(body)
        parser.finalize()
    except Exception as exc:  # noqa: BLE001 - python-multipart raises several error types
        if isinstance(exc, ApiError):
            raise
        raise ValidationFailed("Malformed multipart body", fields={"body": "Malformed multipart body"}) from None
    return form


def sniff_image(data: bytes) -> str | None:
    """MIME type from magic bytes: JPEG, PNG or WebP; ``None`` otherwise."""
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None

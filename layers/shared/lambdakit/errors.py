"""Domain errors shared by every service.

Domain code raises ``ApiError`` (or a subclass) with a machine code, an HTTP
status, a message and optional details. Each service renders it in its own
format (see ``lambdakit.http.ErrorFormat``); nothing here knows a body shape.
"""
from __future__ import annotations

from typing import Any


class ApiError(Exception):
    status: int = 400
    code: str = "BAD_REQUEST"

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        status: int | None = None,
        details: Any = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        if status is not None:
            self.status = status
        self.details = details
        self.headers = headers or {}

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"{type(self).__name__}({self.status} {self.code}: {self.message})"


class BadRequest(ApiError):
    status, code = 400, "BAD_REQUEST"


class ValidationFailed(ApiError):
    """Field-level validation failure.

    ``fields`` maps a dotted field path to a message; each service renders it
    (campaigns: an object keyed by field; exams: an array of {field, message};
    internships: a single string).
    """

    status, code = 422, "VALIDATION_ERROR"

    def __init__(self, message: str = "Request validation failed", *, fields: dict[str, str] | None = None, **kw: Any) -> None:
        super().__init__(message, **kw)
        self.fields = dict(fields or {})


class Unauthorized(ApiError):
    status, code = 401, "UNAUTHORIZED"


class Forbidden(ApiError):
    status, code = 403, "FORBIDDEN"


class NotFound(ApiError):
    status, code = 404, "NOT_FOUND"


class Conflict(ApiError):
    status, code = 409, "CONFLICT"


class Gone(ApiError):
    status, code = 410, "GONE"


class PayloadTooLarge(ApiError):
    status, code = 413, "PAYLOAD_TOO_LARGE"


class RateLimited(ApiError):
    status, code = 429, "RATE_LIMITED"


class ServiceUnavailable(ApiError):
    status, code = 503, "SERVICE_UNAVAILABLE"


class Contention(ServiceUnavailable):
    """An item stayed busy: ``Table.transact`` was cancelled by DynamoDB for transaction
    conflicts (another request writing the same items) on every retry within its time budget.

    Not a ``ConditionFailed`` (no condition was evaluated false), so repositories that map
    condition failures to domain errors never mistake it for one; handlers let it through and
    each service renders it in its error format: 503, ``Retry-After: 1``, code ``CONTENTION``.
    """

    status, code = 503, "CONTENTION"

    def __init__(self, message: str = "The resource is busy, please retry", *,
                 reasons: list[str] | None = None, **kw: Any) -> None:
        kw.setdefault("headers", {"Retry-After": "1"})
        super().__init__(message, **kw)
        self.reasons = list(reasons or [])


class Throttled(ServiceUnavailable):
    """DynamoDB kept refusing for capacity (throttling, provisioned throughput, request
    limit) after botocore's retry budget: 503 with ``Retry-After``, code ``THROTTLED``."""

    status, code = 503, "THROTTLED"

    def __init__(self, message: str = "The service is busy, please retry", *, aws_code: str = "", **kw: Any) -> None:
        kw.setdefault("headers", {"Retry-After": "1"})
        super().__init__(message, **kw)
        self.aws_code = aws_code


class StorageRefused(ApiError):
    """DynamoDB refused a value of the request (a number beyond its 38 digits or range, an
    item over 400 KB, a string it will not store): never a ``ConditionFailed``. 422
    ``VALUE_NOT_STORABLE``, or 413 ``PAYLOAD_TOO_LARGE`` for an item over the size limit."""

    status, code = 422, "VALUE_NOT_STORABLE"

    def __init__(self, message: str = "A value of the request cannot be stored", *, aws_message: str = "",
                 **kw: Any) -> None:
        super().__init__(message, **kw)
        self.aws_message = aws_message


class ConditionFailed(Exception):
    """Raised by the data-access layer when a DynamoDB condition does not hold, and only then
    (a ``ConditionalCheckFailedException``, or a transaction cancelled with at least one
    ``ConditionalCheckFailed`` reason).

    Repositories catch it and raise the domain error that fits (Conflict, NotFound,
    a state error...). ``reasons`` holds per-item cancellation codes of a transaction;
    ``failed_ops`` the indexes of the operations whose condition failed.
    """

    def __init__(self, message: str = "condition failed", reasons: list[str] | None = None, item: dict | None = None):
        super().__init__(message)
        self.reasons = reasons or []
        self.item = item
        self.failed_ops = [i for i, r in enumerate(self.reasons) if r == "ConditionalCheckFailed"]


class FileStoreUnavailable(ServiceUnavailable):
    """S3 answered "busy" or could not be reached after botocore's retries (SlowDown, a 5xx,
    a timeout, a dropped connection, a cut response stream; see ``lambdakit.s3``): 503 with
    ``Retry-After``, code ``FILE_STORE_UNAVAILABLE``. Nothing was recorded as stored."""

    status, code = 503, "FILE_STORE_UNAVAILABLE"

    def __init__(self, message: str = "The file store is unavailable, please retry", *, aws_code: str = "",
                 **kw: Any) -> None:
        kw.setdefault("headers", {"Retry-After": "1"})
        super().__init__(message, **kw)
        self.aws_code = aws_code


class FileStoreError(ApiError):
    """S3 refused a call for a reason a retry does not cure (access denied, no credentials, a
    request it rejects; see ``lambdakit.s3``): 500 ``FILE_STORE_ERROR`` without internals (the
    AWS error code is logged). Nothing was recorded as stored."""

    status, code = 500, "FILE_STORE_ERROR"

    def __init__(self, message: str = "The file store failed; nothing was stored", *, aws_code: str = "",
                 **kw: Any) -> None:
        super().__init__(message, **kw)
        self.aws_code = aws_code

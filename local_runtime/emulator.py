"""The local AWS emulator: moto's server, made safe for concurrent clients.

moto's backends are not thread-safe, and its werkzeug server handles each request in its own
thread. Under parallel load (``make fuzz`` with several workers, the e2e tests, any client
with threads) that broke in three ways, all seen in a long fuzz run:

* ``transact_write_items`` deep-copies every table it touches (to roll back on a cancelled
  transaction) while other threads write to it: ``RuntimeError: dictionary changed size
  during iteration`` → HTTP 500, which botocore retries.
* the rollback puts back that whole-table copy, silently undoing writes other threads made
  in the meantime (lost updates);
* the copy is O(table size) per transaction item: at ~20,000 items a two-item transaction
  takes ~2.5 s, so under load a call outlives the SDK's read timeout (10 s), botocore
  resends it, and moto applies it a second time: the retried ``put`` with
  ``attribute_not_exists(pk)`` is then cancelled (``ConditionalCheckFailed``) although
  the first attempt succeeded.

Real AWS services are linearizable per item and honour ``TransactWriteItems``'
``ClientRequestToken`` (botocore fills it in and keeps it across retries: a retried call
with the same token succeeds without being applied twice). The emulator does the same:

1. :class:`SerialisedApp`, a WSGI middleware, evaluates one request at a time (one lock
   around moto's app). Long-polling SQS ``ReceiveMessage`` calls are let through without
   the lock (moto waits inside them; holding the lock there would stall every other call).
   Handlers still run in parallel; only each emulator call is atomic, as on AWS.
2. ``TransactWriteItems`` with a ``ClientRequestToken``: a successful response is kept for
   ten minutes and replayed for a retry with the same token and the same request; the same
   token with a different request gets ``IdempotentParameterMismatchException`` (400).
3. :func:`install_item_level_transactions`: a transaction snapshots only the items it
   touches and restores only those when cancelled (O(items in the transaction), not
   O(table)), which is correct because requests are serialised.
"""
from __future__ import annotations

import copy
import hashlib
import io
import json
import threading
import time
from collections import OrderedDict
from typing import Any, Callable, Iterable

TOKEN_WINDOW_SECONDS = 600.0  # DynamoDB keeps a ClientRequestToken for 10 minutes
_NO_LOCK_TARGETS = frozenset({"AmazonSQS.ReceiveMessage"})
_TRANSACT_TARGET = "DynamoDB_20120810.TransactWriteItems"

StartResponse = Callable[..., Any]


class SerialisedApp:
    """WSGI middleware: one emulator request at a time, idempotent ``TransactWriteItems``."""

    def __init__(self, app: Callable[[dict, StartResponse], Iterable[bytes]],
                 window_seconds: float = TOKEN_WINDOW_SECONDS) -> None:
        self.app = app
        self.lock = threading.RLock()
        self.window = window_seconds
        #: token → (expires_at, request digest, status, headers, body)
        self._tokens: OrderedDict[str, tuple[float, str, str, list, bytes]] = OrderedDict()

    def __call__(self, environ: dict, start_response: StartResponse) -> Iterable[bytes]:
        target = environ.get("HTTP_X_AMZ_TARGET", "")
        if target in _NO_LOCK_TARGETS or _is_query_receive(environ):
            return self.app(environ, start_response)
        with self.lock:
            if target == _TRANSACT_TARGET:
                return self._transact(environ, start_response)
            return self._run(environ, start_response)[3]

    # -- internals -------------------------------------------------------------------------
    def _run(self, environ: dict, start_response: StartResponse) -> tuple[str, list, Any, list[bytes]]:
        """Call moto and drain its response while the lock is held (bodies may be lazy)."""
        seen: dict[str, Any] = {}

        def capture(status: str, headers: list, exc_info: Any = None) -> Any:
            seen["status"], seen["headers"] = status, headers
            return start_response(status, headers, exc_info) if exc_info else start_response(status, headers)

        result = self.app(environ, capture)
        try:
            body = [bytes(chunk) for chunk in result]
        finally:
            close = getattr(result, "close", None)
            if close is not None:
                close()
        return seen.get("status", "500 INTERNAL SERVER ERROR"), seen.get("headers", []), None, body

    def _transact(self, environ: dict, start_response: StartResponse) -> Iterable[bytes]:
        raw = _read_body(environ)
        try:
            request = json.loads(raw or b"{}")
            token = request.pop("ClientRequestToken", None) if isinstance(request, dict) else None
        except ValueError:
            token = None
        if not isinstance(token, str) or not token:
            return self._run(environ, start_response)[3]
        digest = hashlib.sha256(json.dumps(request, sort_keys=True).encode()).hexdigest()
        now = time.monotonic()
        self._prune(now)
        kept = self._tokens.get(token)
        if kept is not None:
            if kept[1] != digest:
                mismatch = json.dumps({
                    "__type": "com.amazonaws.dynamodb.v20120810#IdempotentParameterMismatchException",
                    "message": "The request uses the same client token as a previous, but non-identical request.",
                }).encode()
                start_response("400 BAD REQUEST", [("Content-Type", "application/x-amz-json-1.0"),
                                                   ("Content-Length", str(len(mismatch)))])
                return [mismatch]
            start_response(kept[2], list(kept[3]))
            return [kept[4]]
        status, headers, _, body = self._run(environ, start_response)
        if status.startswith("200"):
            self._tokens[token] = (now + self.window, digest, status, list(headers), b"".join(body))
        return body

    def _prune(self, now: float) -> None:
        while self._tokens:
            token, kept = next(iter(self._tokens.items()))
            if kept[0] > now:
                return
            del self._tokens[token]


def _read_body(environ: dict) -> bytes:
    try:
        length = int(environ.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    raw = environ["wsgi.input"].read(length) if length > 0 else b""
    environ["wsgi.input"] = io.BytesIO(raw)
    environ["CONTENT_LENGTH"] = str(len(raw))
    return raw


def _is_query_receive(environ: dict) -> bool:
    """An SQS ``ReceiveMessage`` in the query protocol (older SDKs): ``Action`` in the URL."""
    return "Action=ReceiveMessage" in (environ.get("QUERY_STRING") or "")


# ---------------------------------------------------------------- item-level transactions
_state = threading.local()
_installed = False


class _TableCopyShim:
    """Stands in for the ``copy`` module inside ``moto.dynamodb.models``: while a patched
    ``transact_write_items`` runs, deep copies of whole tables are skipped (the patch keeps
    its own per-item snapshot); everything else is the real ``copy``."""

    def __getattr__(self, name: str) -> Any:
        return getattr(copy, name)

    @staticmethod
    def deepcopy(x: Any, memo: Any = None, _nil: Any = None) -> Any:
        from moto.dynamodb.models.table import Table

        if getattr(_state, "in_transaction", False) and isinstance(x, Table):
            return x  # the rollback that assigns it back is then a no-op; the patch restores items
        return copy.deepcopy(x, memo)


_token_replay_installed = False
_kept_tokens: "OrderedDict[str, tuple[float, str, Any]]" = OrderedDict()


def install_transaction_token_replay() -> None:
    """In-process moto (the test harness, no WSGI server): honour ``TransactWriteItems``'
    ``ClientRequestToken`` as DynamoDB does, at moto's response handler. A resend of an
    applied transaction with the same token and request (botocore keeps the token across its
    retries) returns the first result without applying it again; the same token with another
    request is ``IdempotentParameterMismatchException``. Idempotent."""
    global _token_replay_installed
    if _token_replay_installed:
        return
    from moto.dynamodb.exceptions import DynamodbException
    from moto.dynamodb.responses import DynamoHandler

    original = DynamoHandler.transact_write_items

    def transact_write_items(self: Any) -> Any:
        body = dict(self.body or {})
        token = body.pop("ClientRequestToken", None)
        if not isinstance(token, str) or not token:
            return original(self)
        digest = hashlib.sha256(json.dumps(body, sort_keys=True, default=str).encode()).hexdigest()
        now = time.monotonic()
        while _kept_tokens and next(iter(_kept_tokens.values()))[0] <= now:
            _kept_tokens.popitem(last=False)
        kept = _kept_tokens.get(token)
        if kept is not None:
            if kept[1] != digest:
                raise DynamodbException(
                    "IdempotentParameterMismatchException",
                    "The request uses the same client token as a previous, but non-identical request.")
            return kept[2]
        result = original(self)
        _kept_tokens[token] = (now + TOKEN_WINDOW_SECONDS, digest, result)
        return result

    DynamoHandler.transact_write_items = transact_write_items  # type: ignore[method-assign]
    _token_replay_installed = True


def install_item_level_transactions() -> None:
    """Patch moto's ``transact_write_items`` to snapshot and restore only the touched items.

    Only correct while DynamoDB requests are serialised (``SerialisedApp``); idempotent."""
    global _installed
    if _installed:
        return
    import moto.dynamodb.models as models

    original = models.DynamoDBBackend.transact_write_items

    def transact_write_items(self: Any, transact_items: list[dict[str, Any]]) -> None:
        snapshot = _snapshot(self, transact_items)
        _state.in_transaction = True
        try:
            original(self, transact_items)
        except BaseException:
            _restore(snapshot)
            raise
        finally:
            _state.in_transaction = False

    models.copy = _TableCopyShim()  # type: ignore[assignment]
    models.DynamoDBBackend.transact_write_items = transact_write_items  # type: ignore[method-assign]
    _installed = True


def _snapshot(backend: Any, transact_items: list[dict[str, Any]]) -> list[tuple[Any, Any, Any, Any, bool]]:
    """(table, hash key, range key, deep copy of the item or None, partition existed) per op."""
    out = []
    for entry in transact_items:
        try:
            _, op = next(iter(entry.items()))
            table = backend.get_table(op["TableName"])
            if "Item" in op and "Key" not in op:
                key = {table.hash_key_attr: op["Item"][table.hash_key_attr]}
                if table.range_key_attr is not None:
                    key[table.range_key_attr] = op["Item"][table.range_key_attr]
            else:
                key = op["Key"]
            hash_key, range_key = backend.get_keys_value(table, key)
            existed = hash_key in table.items
            current = table.get_item(hash_key, range_key)
        except Exception:  # noqa: BLE001 - moto rejects this op itself, before writing it
            continue
        out.append((table, hash_key, range_key, copy.deepcopy(current), existed))
    return out


def _restore(snapshot: list[tuple[Any, Any, Any, Any, bool]]) -> None:
    for table, hash_key, range_key, item, existed in reversed(snapshot):
        if range_key is not None:
            partition = table.items.get(hash_key)
            if item is not None:
                table.items[hash_key][range_key] = item
            elif partition is not None:
                partition.pop(range_key, None)
                if not partition and not existed:
                    del table.items[hash_key]
        elif item is not None:
            table.items[hash_key] = item
        else:
            table.items.pop(hash_key, None)


class EmulatorServer:
    """moto in server mode behind :class:`SerialisedApp` (same interface as moto's
    ``ThreadedMotoServer``: ``start()``, ``stop()``, ``get_host_and_port()``)."""

    def __init__(self, ip_address: str = "127.0.0.1", port: int = 4566) -> None:
        self._ip_address = ip_address
        self._port = port
        self._server: Any = None
        self._thread: threading.Thread | None = None
        self.app: SerialisedApp | None = None

    def start(self) -> None:
        from moto.moto_server.werkzeug_app import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
        from werkzeug.serving import make_server

        install_item_level_transactions()
        self.app = SerialisedApp(DomainDispatcherApplication(create_backend_app))
        self._server = make_server(self._ip_address, self._port, self.app, threaded=True,
                                   request_handler=MotoRequestHandler)
        self._thread = threading.Thread(target=self._server.serve_forever, name="aws-emulator", daemon=True)
        self._thread.start()

    def get_host_and_port(self) -> tuple[str, int]:
        assert self._server is not None, "start() first"
        host, port = self._server.server_address[:2]
        return str(host), int(port)

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

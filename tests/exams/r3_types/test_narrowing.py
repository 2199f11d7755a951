"""Round-3 typing: the explicit narrowing helpers added for mypy keep the service's behaviour."""
from __future__ import annotations

from types import SimpleNamespace

import pytest


def _app(state):
    from exams.identity import CONTEXT_KEY

    return SimpleNamespace(context={CONTEXT_KEY: state} if state is not None else {})


def test_signed_in_returns_the_principal_of_a_guarded_route():
    from exams.identity import Principal, signed_in
    from exams.identity.authn import AuthState

    p = Principal(user_id="u1", role="student", client_id="c1", email="s@example.com", name="S")
    assert signed_in(_app(AuthState(token_present=True, principal=p))) is p


@pytest.mark.parametrize("state", [None, "no-principal"])
def test_signed_in_without_a_principal_is_a_401_in_the_service_format(state):
    from exams.identity import signed_in
    from exams.identity.authn import AuthState
    from lambdakit.errors import ApiError

    app = _app(AuthState(token_present=False) if state else None)
    with pytest.raises(ApiError) as exc:
        signed_in(app)
    assert exc.value.status == 401 and exc.value.code == "MISSING_AUTH_TOKEN"


def test_strip_keys_drops_key_and_index_attributes_and_keeps_none():
    from exams.store import strip_keys

    item = {"pk": "A", "sk": "B", "ttl": 1, "gsi1pk": "x", "gsi2sk": "y", "id": "t1", "n": 0}
    assert strip_keys(item) == {"id": "t1", "n": 0}
    assert strip_keys(None) is None

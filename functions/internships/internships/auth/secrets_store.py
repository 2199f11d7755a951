"""Secrets Manager reads of the auth package: ``lambdakit.secrets`` (Powertools' SecretsProvider on
the shared client, cached five minutes like the Lambda secrets extension).

Data-access module: the only place in the auth package that reads secrets.
"""
from __future__ import annotations

from lambdakit import secrets


def secret_string(arn: str) -> str:
    return secrets.secret_string(arn)


def secret_json(arn: str) -> dict:
    return secrets.secret_json(arn)


def forget() -> None:
    secrets.forget()

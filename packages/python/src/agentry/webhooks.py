"""Standard Webhooks verification of task deliveries.

``webhook-id``, ``webhook-timestamp`` (within a tolerance) and ``webhook-signature: v1,<base64
HMAC-SHA256 of "id.timestamp.body">`` keyed by the base64-decoded part of the agent's ``whsec_`` secret.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import time
from typing import Any, Iterable, Mapping, Union

TaskDelivery = dict[str, Any]
"""The delivery payload: taskId, taskToken, title, description, input, callbackUrl, capabilities,
priority, expiresAt, timestamp."""

Headers = Union[Mapping[str, str], Iterable[tuple[str, str]], Iterable[tuple[bytes, bytes]]]


class WebhookVerificationError(Exception):
    """The delivery is not signed by the secret, is too old, or is not a task delivery."""


def _header(headers: Headers, name: str) -> str | None:
    items: Iterable[Any] = headers.items() if isinstance(headers, Mapping) else headers
    for key, value in items:
        key_text = key.decode("latin-1") if isinstance(key, bytes) else str(key)
        if key_text.lower() == name:
            return value.decode("latin-1") if isinstance(value, bytes) else str(value)
    return None


def _secret_bytes(secret: str) -> bytes:
    body = secret[len("whsec_") :] if secret.startswith("whsec_") else secret
    try:
        data = base64.b64decode(body, validate=True)
    except (binascii.Error, ValueError):
        data = b""
    if not data:
        raise WebhookVerificationError("the webhook secret is empty or not base64")
    return data


def sign_webhook(secret: str, webhook_id: str, timestamp: int, body: bytes | str) -> str:
    """The ``webhook-signature`` value the service sends for this delivery (for tests and relays)."""
    raw = body.encode("utf-8") if isinstance(body, str) else body
    digest = hmac.new(_secret_bytes(secret), f"{webhook_id}.{timestamp}.".encode("utf-8") + raw, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode("ascii")


def verify_webhook(
    headers: Headers,
    body: bytes | str,
    secret: str,
    *,
    tolerance_seconds: int = 300,
    now: float | None = None,
) -> TaskDelivery:
    """Checks a delivery and returns the task it carries; raises ``WebhookVerificationError`` otherwise.

    ``headers`` is a mapping (any case) or a list of pairs (an ASGI scope's); ``body`` the raw bytes as received.
    """
    webhook_id = _header(headers, "webhook-id")
    timestamp = _header(headers, "webhook-timestamp")
    signatures = _header(headers, "webhook-signature")
    if not webhook_id or not timestamp or not signatures:
        raise WebhookVerificationError("missing webhook-id, webhook-timestamp or webhook-signature")
    if not re.fullmatch(r"[0-9]{1,15}", timestamp):
        raise WebhookVerificationError("webhook-timestamp is not unix seconds")
    current = int(time.time() if now is None else now)
    if abs(current - int(timestamp)) > tolerance_seconds:
        raise WebhookVerificationError("webhook-timestamp is outside the tolerance")
    raw = body.encode("utf-8") if isinstance(body, str) else bytes(body)
    expected = hmac.new(_secret_bytes(secret), f"{webhook_id}.{timestamp}.".encode("utf-8") + raw, hashlib.sha256).digest()
    matched = False
    for entry in signatures.split(" "):
        version, _, value = entry.partition(",")
        if version != "v1" or not value:
            continue
        try:
            given = base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            continue
        if hmac.compare_digest(given, expected):
            matched = True
    if not matched:
        raise WebhookVerificationError("no webhook-signature matches")
    try:
        delivery = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise WebhookVerificationError("the body is not JSON") from None
    if not isinstance(delivery, dict) or not isinstance(delivery.get("taskId"), str) or not isinstance(delivery.get("taskToken"), str):
        raise WebhookVerificationError("the body is not a task delivery (no taskId and taskToken)")
    return delivery

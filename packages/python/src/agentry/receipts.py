"""Trust receipts: build, canonicalise (RFC 8785, the bytes the service verifies), sign, verify.

Submitting is ``Client.submit_receipt``.
"""

from __future__ import annotations

import base64
import uuid
from datetime import datetime, timedelta, timezone
from typing import Any, Literal, Mapping

from .canonical import canonical_bytes
from .keys import Ed25519PrivateKey, public_key_string, verify_signature

RECEIPT_VERSION = "2026-03-12"

Kind = Literal["offer", "decision", "outcome"]
Receipt = dict[str, Any]


def _iso_seconds(moment: datetime) -> str:
    """Seconds precision in UTC, as the spec's examples: ``2026-11-01T10:00:00Z``."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def party(agent: str, pubkey: str) -> dict[str, str]:
    """A receipt party: the agent's id (or slug) at the service and its ``ed25519:`` key."""
    return {"agent": agent, "pubkey": pubkey}


def build_receipt(
    *,
    kind: Kind,
    task_class: str,
    issuer: Mapping[str, str],
    subject: Mapping[str, str],
    payload: Mapping[str, Any],
    correlation_id: str | None = None,
    receipt_id: str | None = None,
    issued_at: datetime | None = None,
    expires_at: datetime | None = None,
) -> Receipt:
    """An unsigned receipt. ``correlation_id`` ties the offer, decision and outcome of one piece of
    work together (a new one when not given); ``expires_at`` defaults to 30 days after ``issued_at``."""
    issued = issued_at or datetime.now(timezone.utc)
    expires = expires_at or issued + timedelta(days=30)
    body = dict(payload)
    if kind == "offer" and "taskClass" not in body:
        body = {"taskClass": task_class, **body}
    return {
        "kind": kind,
        "version": RECEIPT_VERSION,
        "receiptId": receipt_id or str(uuid.uuid4()),
        "correlationId": correlation_id or str(uuid.uuid4()),
        "issuedAt": _iso_seconds(issued),
        "expiresAt": _iso_seconds(expires),
        "taskClass": task_class,
        "issuer": dict(issuer),
        "subject": dict(subject),
        "payload": body,
    }


def canonical_receipt_bytes(receipt: Mapping[str, Any]) -> bytes:
    """The signed bytes: UTF-8 of the RFC 8785 form of the envelope without its top-level ``signature``."""
    return canonical_bytes({name: value for name, value in receipt.items() if name != "signature"})


def sign_receipt(receipt: Mapping[str, Any], key: Ed25519PrivateKey, key_id: str | None = None) -> Receipt:
    """Signs with the issuer's private key; the key must match ``issuer.pubkey``."""
    issuer = receipt.get("issuer")
    if not isinstance(issuer, Mapping) or public_key_string(key) != issuer.get("pubkey"):
        raise ValueError("the signing key is not the issuer.pubkey of the receipt")
    envelope = {name: value for name, value in receipt.items() if name != "signature"}
    value = base64.b64encode(key.sign(canonical_receipt_bytes(envelope))).decode("ascii")
    return {**envelope, "signature": {"alg": "Ed25519", "keyId": key_id or f"{issuer.get('agent')}#1", "value": value}}


def verify_receipt(receipt: Mapping[str, Any]) -> bool:
    """True when ``signature.value`` is the issuer key's signature over the receipt's canonical bytes."""
    issuer = receipt.get("issuer")
    signature = receipt.get("signature")
    if not isinstance(issuer, Mapping) or not isinstance(signature, Mapping):
        return False
    pubkey = issuer.get("pubkey")
    value = signature.get("value")
    if not isinstance(pubkey, str) or not isinstance(value, str) or signature.get("alg") != "Ed25519":
        return False
    try:
        data = canonical_receipt_bytes(receipt)
    except (TypeError, ValueError):
        return False
    return verify_signature(pubkey, data, value)

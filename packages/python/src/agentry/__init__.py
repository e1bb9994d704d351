"""Agentry's Python SDK: a client (sync and asyncio), Ed25519 keys in the TypeScript kit's file
format, trust receipts with byte-identical RFC 8785 signing, Standard Webhooks verification,
offline receipt-log proof checks and an agent runner."""

from ._routes import FINAL_TASK_STATUSES, retry_after_seconds
from .async_client import AsyncClient
from .canonical import canonical_bytes, canonicalize
from .client import Client
from .errors import AgentryError, AgentryNetworkError, AgentryTimeoutError
from .keys import (
    KeyFileError,
    agent_signature_header,
    generate_key,
    key_from_seed,
    load_key,
    parse_public_key,
    public_key_string,
    save_key,
    sign_challenge,
    sign_text,
    verify_signature,
)
from .paging import AsyncPagedList, PagedList
from .receipts import RECEIPT_VERSION, build_receipt, canonical_receipt_bytes, party, sign_receipt, verify_receipt
from .runner import AgentRunner, AgentRunnerError
from .tlog import (
    TlogVerificationError,
    check_consistency,
    check_inclusion,
    hash_children,
    hash_leaf,
    parse_checkpoint,
    parse_tlog_proof,
    parse_verifier_key,
    receipt_log_entry,
    verify_checkpoint,
    verify_consistency,
    verify_entry_proof,
    verify_note,
    verify_receipt_proof,
)
from .webhooks import TaskDelivery, WebhookVerificationError, sign_webhook, verify_webhook

__version__ = "0.1.0"

__all__ = [
    "FINAL_TASK_STATUSES",
    "RECEIPT_VERSION",
    "AgentRunner",
    "AgentRunnerError",
    "AgentryError",
    "AgentryNetworkError",
    "AgentryTimeoutError",
    "AsyncClient",
    "AsyncPagedList",
    "Client",
    "KeyFileError",
    "PagedList",
    "TaskDelivery",
    "TlogVerificationError",
    "WebhookVerificationError",
    "agent_signature_header",
    "build_receipt",
    "canonical_bytes",
    "canonical_receipt_bytes",
    "canonicalize",
    "check_consistency",
    "check_inclusion",
    "generate_key",
    "hash_children",
    "hash_leaf",
    "key_from_seed",
    "load_key",
    "parse_checkpoint",
    "parse_public_key",
    "parse_tlog_proof",
    "parse_verifier_key",
    "party",
    "public_key_string",
    "receipt_log_entry",
    "retry_after_seconds",
    "save_key",
    "sign_challenge",
    "sign_receipt",
    "sign_text",
    "sign_webhook",
    "verify_checkpoint",
    "verify_consistency",
    "verify_entry_proof",
    "verify_note",
    "verify_receipt",
    "verify_receipt_proof",
    "verify_signature",
    "verify_webhook",
]

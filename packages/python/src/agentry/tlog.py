"""Offline verification of transparency-log statements in the C2SP formats.

RFC 6962 Merkle trees (SHA-256), signed notes (c2sp.org/signed-note, Ed25519), checkpoints
(c2sp.org/tlog-checkpoint) and proofs (c2sp.org/tlog-proof@v1). The proof checks follow Go's
golang.org/x/mod/sumdb/tlog, as the TypeScript kit's do.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence, Union

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from .canonical import canonical_bytes

HASH_SIZE = 32
_ED25519 = 0x01
_PROOF_HEADER = "c2sp.org/tlog-proof@v1"
EMPTY_ROOT = hashlib.sha256(b"").digest()


class TlogVerificationError(Exception):
    """A log statement that does not verify, or is malformed."""


def hash_leaf(entry: bytes) -> bytes:
    """RFC 6962 leaf hash: SHA-256(0x00 || entry)."""
    return hashlib.sha256(b"\x00" + entry).digest()


def hash_children(left: bytes, right: bytes) -> bytes:
    """RFC 6962 interior node hash: SHA-256(0x01 || left || right)."""
    return hashlib.sha256(b"\x01" + left + right).digest()


def _split(n: int) -> int:
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def _inclusion(proof: Sequence[bytes], lo: int, hi: int, index: int, leaf: bytes) -> bytes | None:
    if lo + 1 == hi:
        return leaf if not proof else None
    if not proof:
        return None
    last, rest = proof[-1], proof[:-1]
    k = _split(hi - lo)
    if index < lo + k:
        inner = _inclusion(rest, lo, lo + k, index, leaf)
        return None if inner is None else hash_children(inner, last)
    inner = _inclusion(rest, lo + k, hi, index, leaf)
    return None if inner is None else hash_children(last, inner)


def check_inclusion(proof: Sequence[bytes], size: int, root: bytes, index: int, leaf_hash: bytes) -> bool:
    """Whether ``proof`` shows the leaf hash at ``index`` in the tree of ``size`` entries with root ``root``."""
    if index < 0 or index >= size:
        return False
    computed = _inclusion(list(proof), 0, size, index, leaf_hash)
    return computed is not None and computed == root


def _consistency(proof: Sequence[bytes], lo: int, hi: int, n: int, old: bytes) -> tuple[bytes, bytes] | None:
    if n == hi:
        if lo == 0:
            return (old, old) if not proof else None
        return (proof[0], proof[0]) if len(proof) == 1 else None
    if not proof:
        return None
    last, rest = proof[-1], proof[:-1]
    k = _split(hi - lo)
    if n <= lo + k:
        hashes = _consistency(rest, lo, lo + k, n, old)
        return None if hashes is None else (hashes[0], hash_children(hashes[1], last))
    hashes = _consistency(rest, lo + k, hi, n, old)
    return None if hashes is None else (hash_children(last, hashes[0]), hash_children(last, hashes[1]))


def check_consistency(proof: Sequence[bytes], new_size: int, new_root: bytes, old_size: int, old_root: bytes) -> bool:
    """Whether ``proof`` shows the tree of ``old_size`` entries is a prefix of the tree of ``new_size``."""
    if old_size < 0 or old_size > new_size:
        return False
    if old_size == 0:
        return not proof
    hashes = _consistency(list(proof), 0, new_size, old_size, old_root)
    return hashes is not None and hashes[0] == old_root and hashes[1] == new_root


def _strict_b64(text: str) -> bytes | None:
    if not re.fullmatch(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?", text):
        return None
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None
    return data if base64.b64encode(data).decode("ascii") == text else None


def note_key_id(name: str, public_key: bytes) -> bytes:
    """The signed-note key id: the first 4 bytes of SHA-256(name || 0x0A || 0x01 || public key)."""
    return hashlib.sha256(name.encode("utf-8") + b"\n" + bytes([_ED25519]) + public_key).digest()[:4]


def _is_key_name(name: str) -> bool:
    return bool(name) and not re.search(r"[\s+]", name)


@dataclass(frozen=True)
class VerifierKey:
    """A signed-note verifier key, ``<name>+<8 hex key id>+<base64 of 0x01 || 32-byte Ed25519 key>``."""

    name: str
    key_id: bytes
    public_key: bytes
    text: str


def parse_verifier_key(text: str) -> VerifierKey:
    match = re.fullmatch(r"([^+]*)\+([^+]*)\+(.*)", text.strip(), re.S)
    if not match:
        raise TlogVerificationError("a verifier key is <name>+<8 hex digits>+<base64 key>")
    name, id_hex, key_text = match.groups()
    if not _is_key_name(name):
        raise TlogVerificationError("the verifier key name is empty or holds spaces or +")
    key = _strict_b64(key_text)
    if not re.fullmatch(r"[0-9a-f]{8}", id_hex) or key is None or len(key) != 33 or key[0] != _ED25519:
        raise TlogVerificationError("the verifier key is not an Ed25519 (type 0x01) key")
    public_key = key[1:]
    if note_key_id(name, public_key).hex() != id_hex:
        raise TlogVerificationError("the verifier key id does not match its name and key")
    return VerifierKey(name, note_key_id(name, public_key), public_key, text.strip())


def verifier_key_text(name: str, public_key: bytes) -> str:
    """The verifier key text for a name and a raw Ed25519 public key."""
    return f"{name}+{note_key_id(name, public_key).hex()}+{base64.b64encode(bytes([_ED25519]) + public_key).decode('ascii')}"


@dataclass(frozen=True)
class NoteSignature:
    name: str
    key_id: bytes
    signature: bytes


def parse_signed_note(note: str) -> tuple[str, list[NoteSignature]]:
    """Splits a signed note into its text (ending in a newline) and its signature lines."""
    split = note.rfind("\n\n")
    if split < 0 or not note.endswith("\n"):
        raise TlogVerificationError("a signed note is text, an empty line and signature lines")
    text = note[: split + 1]
    if re.search(r"[\x00-\x09\x0b-\x1f\x7f]", note):
        raise TlogVerificationError("a signed note holds no control characters but newlines")
    lines = note[split + 2 : -1].split("\n")
    if len(lines) > 100:
        raise TlogVerificationError("a signed note has at most 100 signatures")
    signatures = []
    for line in lines:
        match = re.fullmatch(r"\u2014 (\S+) (\S+)", line)
        data = _strict_b64(match.group(2)) if match else None
        if not match or data is None or len(data) < 5 or not _is_key_name(match.group(1)):
            raise TlogVerificationError(f"malformed signature line: {json.dumps(line)}")
        signatures.append(NoteSignature(match.group(1), data[:4], data[4:]))
    return text, signatures


KeyLike = Union[VerifierKey, str]


def verify_note(note: str, keys: Sequence[KeyLike]) -> tuple[str, list[VerifierKey]]:
    """Verifies a signed note against trusted keys: at least one signature must be by one of them,
    and every signature by a known key must verify. Answers the text and the keys that signed it."""
    trusted = [parse_verifier_key(key) if isinstance(key, str) else key for key in keys]
    text, signatures = parse_signed_note(note)
    signed_by: list[VerifierKey] = []
    for signature in signatures:
        key = next((k for k in trusted if k.name == signature.name and k.key_id == signature.key_id), None)
        if key is None:
            continue
        try:
            if len(signature.signature) != 64:
                raise InvalidSignature()
            Ed25519PublicKey.from_public_bytes(key.public_key).verify(signature.signature, text.encode("utf-8"))
        except InvalidSignature:
            raise TlogVerificationError(f"the signature by {key.name} does not verify") from None
        signed_by.append(key)
    if not signed_by:
        raise TlogVerificationError("the note carries no signature by a trusted key")
    return text, signed_by


@dataclass(frozen=True)
class Checkpoint:
    origin: str
    size: int
    root: bytes
    extensions: list[str]
    note: str = ""


def parse_checkpoint(text: str) -> Checkpoint:
    """Reads a checkpoint body: ``<origin>\\n<size>\\n<base64 root>\\n`` and optional extension lines."""
    lines = text.split("\n")
    if len(lines) < 4 or lines[-1] != "":
        raise TlogVerificationError("a checkpoint is origin, size and root hash, one per line")
    origin, size_text, root_text = lines[0], lines[1], lines[2]
    root = _strict_b64(root_text)
    if origin == "" or not re.fullmatch(r"0|[1-9][0-9]{0,15}", size_text) or root is None or len(root) != HASH_SIZE:
        raise TlogVerificationError("malformed checkpoint")
    extensions = lines[3:-1]
    if any(line == "" for line in extensions):
        raise TlogVerificationError("a checkpoint has no empty lines")
    return Checkpoint(origin, int(size_text), root, extensions)


def verify_checkpoint(note: str, keys: Sequence[KeyLike], origin: str | None = None) -> Checkpoint:
    """Verifies a signed checkpoint against trusted keys; with ``origin``, it must be that log's."""
    text, _ = verify_note(note, keys)
    checkpoint = parse_checkpoint(text)
    if origin is not None and checkpoint.origin != origin:
        raise TlogVerificationError(f"the checkpoint is of log {checkpoint.origin}, not {origin}")
    return Checkpoint(checkpoint.origin, checkpoint.size, checkpoint.root, checkpoint.extensions, note)


@dataclass(frozen=True)
class TlogProof:
    extra: bytes | None
    index: int
    proof: list[bytes]
    checkpoint: str


def parse_tlog_proof(text: str) -> TlogProof:
    """Reads the c2sp.org/tlog-proof@v1 text format."""
    blank = text.find("\n\n")
    if blank < 0:
        raise TlogVerificationError("a tlog proof has an empty line before its checkpoint")
    lines = text[:blank].split("\n")
    if lines.pop(0) != _PROOF_HEADER:
        raise TlogVerificationError(f"a tlog proof starts with {_PROOF_HEADER}")
    extra: bytes | None = None
    if lines and lines[0].startswith("extra "):
        extra = _strict_b64(lines.pop(0)[len("extra ") :])
        if extra is None:
            raise TlogVerificationError("the extra line is not base64")
    index_match = re.fullmatch(r"index (0|[1-9][0-9]{0,15})", lines.pop(0) if lines else "")
    if not index_match:
        raise TlogVerificationError("a tlog proof names its index")
    hashes = []
    for line in lines:
        digest = _strict_b64(line)
        if digest is None or len(digest) != HASH_SIZE:
            raise TlogVerificationError("an inclusion proof line is not a base64 SHA-256 hash")
        hashes.append(digest)
    return TlogProof(extra, int(index_match.group(1)), hashes, text[blank + 2 :])


@dataclass(frozen=True)
class VerifiedEntryProof:
    index: int
    entry: bytes
    checkpoint: Checkpoint


def verify_entry_proof(proof_text: str, keys: Sequence[KeyLike], *, origin: str | None = None, entry: bytes | None = None) -> VerifiedEntryProof:
    """Verifies a tlog proof offline: the checkpoint is signed by a trusted key, and the entry
    (given, or carried in the ``extra`` line) is at the proof's index in the checkpointed tree."""
    proof = parse_tlog_proof(proof_text)
    checkpoint = verify_checkpoint(proof.checkpoint, keys, origin)
    data = entry if entry is not None else proof.extra
    if data is None:
        raise TlogVerificationError("the proof carries no entry and none was given")
    if entry is not None and proof.extra is not None and proof.extra != entry:
        raise TlogVerificationError("the proof is about another entry")
    if not check_inclusion(proof.proof, checkpoint.size, checkpoint.root, proof.index, hash_leaf(data)):
        raise TlogVerificationError(f"the entry is not at index {proof.index} of the tree of size {checkpoint.size}")
    return VerifiedEntryProof(proof.index, data, checkpoint)


def receipt_log_entry(receipt: Mapping[str, Any]) -> bytes:
    """The bytes the receipt log holds for a receipt: its RFC 8785 form, signature included."""
    return canonical_bytes(dict(receipt))


@dataclass(frozen=True)
class VerifiedReceiptProof(VerifiedEntryProof):
    receipt: dict[str, Any]


def verify_receipt_proof(
    proof_text: str,
    keys: Sequence[KeyLike],
    *,
    origin: str | None = None,
    receipt: Mapping[str, Any] | bytes | None = None,
) -> VerifiedReceiptProof:
    """As ``verify_entry_proof``, and the entry is a JSON receipt (returned parsed). Pass ``receipt``
    (the receipt, or its log entry bytes) to check the proof is about it."""
    entry = None if receipt is None else receipt if isinstance(receipt, bytes) else receipt_log_entry(receipt)
    verified = verify_entry_proof(proof_text, keys, origin=origin, entry=entry)
    try:
        parsed = json.loads(verified.entry.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise TlogVerificationError("the logged entry is not a JSON receipt") from None
    if not isinstance(parsed, dict):
        raise TlogVerificationError("the logged entry is not a JSON receipt")
    return VerifiedReceiptProof(verified.index, verified.entry, verified.checkpoint, parsed)


def verify_consistency(older: str, newer: str, proof: Sequence[str | bytes], keys: Sequence[KeyLike]) -> tuple[Checkpoint, Checkpoint]:
    """Verifies that a newer signed checkpoint extends an older one: both signed by a trusted key,
    of the same log, and the consistency proof (base64 hashes or bytes) holds between them."""
    first = verify_checkpoint(older, keys)
    second = verify_checkpoint(newer, keys, first.origin)
    hashes = []
    for item in proof:
        digest = _strict_b64(item) if isinstance(item, str) else bytes(item)
        if digest is None or len(digest) != HASH_SIZE:
            raise TlogVerificationError("a consistency proof hash is not a base64 SHA-256 hash")
        hashes.append(digest)
    if first.size > second.size:
        raise TlogVerificationError(f"the older checkpoint (size {first.size}) is larger than the newer (size {second.size})")
    holds = (
        first.root == second.root and not hashes
        if first.size == second.size
        else check_consistency(hashes, second.size, second.root, first.size, first.root)
    )
    if not holds:
        raise TlogVerificationError(f"the tree of size {second.size} does not extend the tree of size {first.size}")
    return first, second

"""Ed25519 keys as the service expects them.

Private key files are PKCS#8 PEM, mode 0600 (the TypeScript kit's format: a key made by one kit
works in the other); public keys are spelled ``ed25519:<base64 of the 32 raw bytes>``; claim
signatures and the ``X-Agent-Signature`` header are signatures over UTF-8 text, base64url.
"""

from __future__ import annotations

import base64
import os
import re
import stat
import sys
import time

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

__all__ = [
    "KeyFileError",
    "Ed25519PrivateKey",
    "generate_key",
    "save_key",
    "load_key",
    "key_from_seed",
    "public_key_string",
    "parse_public_key",
    "sign_text",
    "sign_challenge",
    "agent_signature_header",
    "verify_signature",
]


class KeyFileError(Exception):
    """A key file that cannot be written or read as an Ed25519 key; ``path`` names it."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(message)
        self.path = path


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def _b64decode_loose(text: str) -> bytes:
    """base64 or base64url, padded or not."""
    body = text.rstrip("=").replace("-", "+").replace("_", "/")
    return base64.b64decode(body + "=" * (-len(body) % 4), validate=True)


def generate_key() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.generate()


def save_key(path: str | os.PathLike[str], key: Ed25519PrivateKey, *, overwrite: bool = False) -> None:
    """Writes the key as PKCS#8 PEM, readable by its owner only; refuses to overwrite unless ``overwrite``."""
    name = os.fspath(path)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    flags = os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if overwrite else os.O_EXCL)
    try:
        fd = os.open(name, flags, 0o600)
    except FileExistsError:
        raise KeyFileError(name, f"{name} already exists; not overwriting a key") from None
    except OSError as error:
        raise KeyFileError(name, f"cannot write {name}: {error.strerror}") from error
    with os.fdopen(fd, "wb") as file:
        file.write(pem)
    # The mode given to open applies only to a new file, and is narrowed by the umask.
    if sys.platform != "win32":
        os.chmod(name, 0o600)


def load_key(path: str | os.PathLike[str], *, allow_insecure_mode: bool = False) -> Ed25519PrivateKey:
    """Reads a PKCS#8 PEM Ed25519 private key.

    A key file that others can read is refused (on POSIX systems) unless ``allow_insecure_mode``:
    whoever reads it can act as the agent.
    """
    name = os.fspath(path)
    try:
        if sys.platform != "win32" and not allow_insecure_mode:
            mode = stat.S_IMODE(os.stat(name).st_mode)
            if mode & 0o077:
                raise KeyFileError(name, f"{name} is readable by others (mode {mode:04o}); run chmod 600 {name}")
        with open(name, "rb") as file:
            data = file.read()
    except FileNotFoundError:
        raise KeyFileError(name, f"no key file at {name}; create one with `agentry keygen` or agentry.save_key") from None
    except OSError as error:
        raise KeyFileError(name, f"cannot read {name}: {error.strerror}") from error
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError):
        raise KeyFileError(name, f"{name} is not a PEM private key") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise KeyFileError(name, f"{name} holds a {type(key).__name__} key, not Ed25519")
    return key


def key_from_seed(seed: bytes) -> Ed25519PrivateKey:
    """An Ed25519 private key from its 32-byte seed (for test vectors and keys kept elsewhere)."""
    if len(seed) != 32:
        raise ValueError("an Ed25519 seed is 32 bytes")
    return Ed25519PrivateKey.from_private_bytes(seed)


def _raw_public(key: Ed25519PrivateKey | Ed25519PublicKey) -> bytes:
    public = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    return public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def public_key_string(key: Ed25519PrivateKey | Ed25519PublicKey) -> str:
    """``ed25519:<base64>`` of the key's 32 raw public bytes."""
    return "ed25519:" + base64.b64encode(_raw_public(key)).decode("ascii")


_PUBKEY = re.compile(r"ed25519:([A-Za-z0-9+/_-]+={0,2})")


def parse_public_key(value: str) -> bytes:
    """Decodes ``ed25519:<base64|base64url>`` strictly to 32 bytes; raises ValueError on anything else."""
    match = _PUBKEY.fullmatch(value)
    if not match:
        raise ValueError("a public key is written ed25519:<base64>")
    body = match.group(1).rstrip("=").replace("-", "+").replace("_", "/")
    try:
        raw = base64.b64decode(body + "=" * (-len(body) % 4), validate=True)
    except ValueError:
        raise ValueError("an Ed25519 public key is exactly 32 bytes") from None
    if len(raw) != 32 or base64.b64encode(raw).decode("ascii").rstrip("=") != body:
        raise ValueError("an Ed25519 public key is exactly 32 bytes")
    return raw


def sign_text(key: Ed25519PrivateKey, text: str) -> str:
    """Signs the UTF-8 bytes of ``text``; base64url without padding."""
    return _b64url(key.sign(text.encode("utf-8")))


def sign_challenge(key: Ed25519PrivateKey, nonce: str) -> str:
    """The claim (and key proof) signature: over the UTF-8 bytes of the nonce string itself."""
    return sign_text(key, nonce)


def agent_signature_header(key: Ed25519PrivateKey, agent_id: str, now: float | None = None) -> str:
    """``X-Agent-Signature: <unix seconds>.<base64url signature over "<agentId>.<unix seconds>">``."""
    seconds = int(time.time() if now is None else now)
    return f"{seconds}.{sign_text(key, f'{agent_id}.{seconds}')}"


_SIGNATURE = re.compile(r"[A-Za-z0-9+/_-]+={0,2}")


def verify_signature(pubkey: str, data: bytes, signature: str) -> bool:
    """Whether ``signature`` (base64 or base64url) is the ``ed25519:`` key's signature over ``data``."""
    try:
        public = Ed25519PublicKey.from_public_bytes(parse_public_key(pubkey))
    except ValueError:
        return False
    if not _SIGNATURE.fullmatch(signature):
        return False
    try:
        raw = _b64decode_loose(signature)
    except ValueError:
        return False
    if len(raw) != 64:
        return False
    try:
        public.verify(raw, data)
    except InvalidSignature:
        return False
    return True

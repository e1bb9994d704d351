"""Keys, canonical JSON, receipts, webhooks and log proofs against the vectors the TypeScript kit
made (test/fixtures/vectors), and a key file passed between the two kits both ways."""

from __future__ import annotations

import base64
import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import agentry
from conftest import PACKAGE, REPO, VECTORS


def test_canonical_json_matches_the_typescript_kit(vectors: dict[str, Any]) -> None:
    for case in vectors["canonical"]:
        assert agentry.canonicalize(json.loads(case["json"])) == case["canonical"], case["json"]


def test_receipts_sign_to_the_typescript_kits_bytes(vectors: dict[str, Any]) -> None:
    key = agentry.key_from_seed(bytes.fromhex(vectors["keys"]["A"]["seedHex"]))
    assert agentry.public_key_string(key) == vectors["keys"]["A"]["pubkey"]
    for case in vectors["receipts"]:
        receipt = case["receipt"]
        assert agentry.canonical_receipt_bytes(receipt).decode("utf-8") == case["canonical"]
        assert agentry.verify_receipt(receipt)
        unsigned = {name: value for name, value in receipt.items() if name != "signature"}
        signed = agentry.sign_receipt(unsigned, key, receipt["signature"]["keyId"])
        assert signed == receipt, "same envelope, same signature value"
        tampered = json.loads(json.dumps(receipt))
        tampered["payload"]["x-tamper"] = 1
        assert not agentry.verify_receipt(tampered)


def test_build_receipt_matches_the_typescript_shape(vectors: dict[str, Any]) -> None:
    from datetime import datetime, timezone

    key = agentry.key_from_seed(bytes.fromhex(vectors["keys"]["A"]["seedHex"]))
    first = vectors["receipts"][0]["receipt"]
    built = agentry.build_receipt(
        kind="offer",
        task_class="code.review",
        issuer=first["issuer"],
        subject=first["subject"],
        payload={"requiredScopes": ["repo:read"], "promisedSlaMs": 60000},
        receipt_id=first["receiptId"],
        correlation_id=first["correlationId"],
        issued_at=datetime(2026, 11, 1, 10, 0, tzinfo=timezone.utc),
    )
    assert agentry.sign_receipt(built, key) == first
    with pytest.raises(ValueError, match="issuer.pubkey"):
        agentry.sign_receipt(built, agentry.generate_key())


def test_the_service_vectors_verify_as_the_service_said() -> None:
    shared = json.loads((VECTORS / "receipts.json").read_text())
    for case in shared["receipts"]:
        if case["expect"]["status"] == 201:
            assert agentry.verify_receipt(case["receipt"]) == case["expect"]["signatureVerified"], case["name"]
    key = agentry.key_from_seed(bytes.fromhex(shared["keys"]["A"]["seedHex"]))
    assert agentry.sign_challenge(key, shared["claim"]["nonce"]) == shared["claim"]["signatureBase64url"]


def test_webhook_and_agent_signature_vectors(vectors: dict[str, Any]) -> None:
    hook = vectors["webhook"]
    headers = {"Webhook-Id": hook["id"], "webhook-timestamp": str(hook["timestamp"]), "webhook-signature": hook["signature"]}
    assert agentry.sign_webhook(hook["secret"], hook["id"], hook["timestamp"], hook["body"]) == hook["signature"]
    delivery = agentry.verify_webhook(headers, hook["body"].encode(), hook["secret"], now=hook["timestamp"])
    assert delivery["taskId"] == "task-1" and delivery["input"] == {"text": "héllo"}
    with pytest.raises(agentry.WebhookVerificationError, match="no webhook-signature"):
        agentry.verify_webhook(headers, hook["body"] + " ", hook["secret"], now=hook["timestamp"])
    with pytest.raises(agentry.WebhookVerificationError, match="no webhook-signature"):
        agentry.verify_webhook(headers, hook["body"], "whsec_" + base64.b64encode(b"x" * 32).decode(), now=hook["timestamp"])
    with pytest.raises(agentry.WebhookVerificationError, match="tolerance"):
        agentry.verify_webhook(headers, hook["body"], hook["secret"], now=hook["timestamp"] + 301)
    with pytest.raises(agentry.WebhookVerificationError, match="missing"):
        agentry.verify_webhook({}, hook["body"], hook["secret"])
    as_pairs = [(name.lower().encode(), value.encode()) for name, value in headers.items()]
    assert agentry.verify_webhook(as_pairs, hook["body"], hook["secret"], now=hook["timestamp"])["taskId"] == "task-1"
    signature = vectors["agentSignature"]
    key = agentry.key_from_seed(bytes.fromhex(vectors["keys"]["A"]["seedHex"]))
    assert agentry.agent_signature_header(key, signature["agentId"], now=signature["seconds"]) == signature["header"]


def test_key_files(tmp_path: Path, vectors: dict[str, Any]) -> None:
    key = agentry.key_from_seed(bytes.fromhex(vectors["keys"]["A"]["seedHex"]))
    path = tmp_path / "agent.key"
    agentry.save_key(path, key)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert path.read_text() == vectors["keys"]["A"]["pkcs8Pem"], "the same bytes the TypeScript kit writes"
    assert agentry.public_key_string(agentry.load_key(path)) == vectors["keys"]["A"]["pubkey"]
    with pytest.raises(agentry.KeyFileError, match="already exists"):
        agentry.save_key(path, agentry.generate_key())
    os.chmod(path, 0o644)
    with pytest.raises(agentry.KeyFileError, match="readable by others.*chmod 600"):
        agentry.load_key(path)
    assert agentry.load_key(path, allow_insecure_mode=True)
    with pytest.raises(agentry.KeyFileError, match="no key file"):
        agentry.load_key(tmp_path / "absent.key")
    junk = tmp_path / "junk.key"
    junk.write_text("not a key")
    os.chmod(junk, 0o600)
    with pytest.raises(agentry.KeyFileError, match="not a PEM private key"):
        agentry.load_key(junk)
    with pytest.raises(ValueError):
        agentry.parse_public_key("ed25519:AAAA")
    assert not agentry.verify_signature(vectors["keys"]["A"]["pubkey"], b"x", "A" * 86)


def test_a_key_made_by_one_kit_works_in_the_other(tmp_path: Path) -> None:
    """Python writes a key the TypeScript kit loads and signs a receipt with; the TypeScript kit
    writes a key Python loads, with the same public key."""
    from_python = tmp_path / "python.key"
    from_typescript = tmp_path / "typescript.key"
    key = agentry.generate_key()
    agentry.save_key(from_python, key)
    script = f"""
      import {{ loadKey, saveKey, generateKey, publicKeyString, buildReceipt, signReceipt }} from './packages/sdk/src/index.ts';
      const key = loadKey({json.dumps(str(from_python))});
      const made = generateKey();
      saveKey({json.dumps(str(from_typescript))}, made);
      const me = {{ agent: 'py', pubkey: publicKeyString(key) }};
      const receipt = signReceipt(buildReceipt({{ kind: 'decision', taskClass: 'code.review', issuer: me, subject: me,
        payload: {{ decision: 'accept', 'x-text': 'ünï 😀', 'x-n': 0.1 }} }}), key);
      console.log(JSON.stringify({{ pubkey: me.pubkey, made: publicKeyString(made), receipt }}));
    """
    out = subprocess.run(["node", "--import", "tsx", "--input-type=module", "-e", script], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout)
    assert answer["pubkey"] == agentry.public_key_string(key)
    assert agentry.verify_receipt(answer["receipt"])
    assert stat.S_IMODE(os.stat(from_typescript).st_mode) == 0o600
    assert agentry.public_key_string(agentry.load_key(from_typescript)) == answer["made"]
    resigned = agentry.sign_receipt({k: v for k, v in answer["receipt"].items() if k != "signature"}, key)
    assert resigned["signature"] == answer["receipt"]["signature"]


def test_log_proofs_against_the_go_vectors() -> None:
    tlog = json.loads((VECTORS / "tlog" / "tlog-vectors.json").read_text())
    leaf = lambda i: agentry.hash_leaf(json.dumps({"leaf": i}, separators=(",", ":")).encode())  # noqa: E731

    def root(lo: int, hi: int) -> bytes:
        if hi - lo == 1:
            return leaf(lo)
        k = 1
        while k * 2 < hi - lo:
            k *= 2
        return agentry.hash_children(root(lo, lo + k), root(lo + k, hi))

    roots = {entry["size"]: base64.b64decode(entry["root"]) for entry in tlog["roots"]}
    for size, expected in list(roots.items())[:20]:
        assert root(0, size) == expected
    sizes = {case["size"] for case in tlog["inclusion"]} | {case[end] for case in tlog["consistency"] for end in ("from", "to")}
    roots.update({size: root(0, size) for size in sizes if size not in roots})
    for case in tlog["inclusion"]:
        proof = [base64.b64decode(h) for h in case["proof"]]
        assert agentry.check_inclusion(proof, case["size"], roots[case["size"]], case["index"], leaf(case["index"]))
        if proof:
            assert not agentry.check_inclusion(proof[:-1], case["size"], roots[case["size"]], case["index"], leaf(case["index"]))
    for case in tlog["consistency"]:
        proof = [base64.b64decode(h) for h in case["proof"]]
        assert agentry.check_consistency(proof, case["to"], roots[case["to"]], case["from"], roots[case["from"]])
        assert not agentry.check_consistency(proof, case["to"], roots[case["to"]], case["from"], roots[case["to"]])
    note = tlog["signedNote"]
    checkpoint = agentry.verify_checkpoint(note["text"], [note["verifierKey"]])
    assert checkpoint.size == 1000 and checkpoint.root == roots[1000]
    with pytest.raises(agentry.TlogVerificationError):
        agentry.verify_checkpoint(note["text"].replace("1000", "1001"), [note["verifierKey"]])


def test_the_async_client_is_generated_from_the_sync_one() -> None:
    done = subprocess.run([sys.executable, str(PACKAGE / "scripts" / "gen_async.py"), "--check"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr

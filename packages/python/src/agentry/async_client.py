"""The HTTP client (asyncio). Generated from ``client.py`` by ``scripts/gen_async.py``: do not edit;
edit client.py and regenerate.

Every method answers the JSON the service answers (its ``data``), raises ``AgentryError`` on an
error answer (``AgentryNetworkError`` when nothing answered), and retries 429 and 503 answers
waiting what ``Retry-After`` asks.
"""

from __future__ import annotations

import asyncio
import time
from datetime import datetime
from types import TracebackType
from typing import Any, AsyncIterator, Callable, Literal, Mapping

import httpx

from . import _routes as r
from ._routes import FINAL_TASK_STATUSES, JSON, Req, p
from .errors import AgentryError, AgentryNetworkError, AgentryTimeoutError
from .keys import Ed25519PrivateKey, public_key_string, sign_challenge, sign_text
from .paging import AsyncPagedList
from .receipts import build_receipt, party, sign_receipt

NonceSigner = Callable[[str], str]
Outcome = Literal["success", "failure", "partial", "rolled_back"]


def _signer(key: Ed25519PrivateKey | NonceSigner) -> NonceSigner:
    if isinstance(key, Ed25519PrivateKey):
        private = key
        return lambda nonce: sign_challenge(private, nonce)
    return key


def _millis(value: str) -> float:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp() * 1000


class AsyncClient:
    """A client of one Agentry service.

    ``token`` is a session token or an API key (``agk_...``), sent as ``Authorization: Bearer``.
    ``max_retries`` retries follow a 429 or 503 answer, each waiting what ``Retry-After`` asks (or
    1, 2, 4 ... s); a longer ask than ``max_retry_delay`` seconds gives up at once.
    """

    def __init__(
        self,
        base_url: str,
        token: str | None = None,
        *,
        max_retries: int = 3,
        max_retry_delay: float = 30.0,
        timeout: float = 60.0,
        http: httpx.AsyncClient | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.max_retries = max_retries
        self.max_retry_delay = max_retry_delay
        self._http = http or httpx.AsyncClient(timeout=timeout)

    async def close(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None) -> None:
        await self.close()

    def set_token(self, token: str | None) -> None:
        self.token = token

    def _headers(self, extra: Mapping[str, str]) -> dict[str, str]:
        headers = dict(extra)
        if self.token and "authorization" not in headers:
            headers["authorization"] = f"Bearer {self.token}"
        return headers

    async def _send(self, req: Req[Any]) -> httpx.Response:
        attempt = 0
        while True:
            try:
                response = await self._http.request(
                    req.method,
                    self.base_url + req.path,
                    params=req.params,
                    json=req.json,
                    headers=self._headers(req.headers),
                    timeout=req.timeout if req.timeout is not None else httpx.USE_CLIENT_DEFAULT,
                )
            except httpx.TransportError as error:
                raise AgentryNetworkError(self.base_url, error) from error
            if response.status_code not in (429, 503) or attempt >= self.max_retries:
                return response
            wait = r.retry_after_seconds(response.headers.get("retry-after"))
            if wait is None:
                wait = float(2**attempt)
            if wait > self.max_retry_delay:
                return response
            attempt += 1
            await asyncio.sleep(wait)

    async def _do(self, req: Req[r.T]) -> r.T:
        return req.read(await self._send(req))

    # Accounts and API keys
    async def signup(self, email: str, password: str) -> JSON:
        return await self._do(Req("POST", "/v1/auth/signup", r.data, json={"email": email, "password": password}))

    async def login(self, email: str, password: str) -> JSON:
        return await self._do(Req("POST", "/v1/auth/login", r.data, json={"email": email, "password": password}))

    async def logout(self) -> None:
        await self._do(Req("POST", "/v1/auth/logout", r.nothing))

    async def account(self) -> JSON:
        return await self._do(Req("GET", "/v1/auth/account", r.data))

    async def create_api_key(self, **fields: Any) -> JSON:
        """A new API key (its secret is shown once); fields as the API's, e.g. ``name``, ``scopes``, ``agent_id``."""
        return await self._do(Req("POST", "/v1/api-keys", r.data, json=r.camel(fields)))

    def list_api_keys(self, *, limit: int | None = None, offset: int = 0) -> AsyncPagedList[JSON]:  # paged
        build = r.list_req("/v1/api-keys", {"limit": limit})
        return AsyncPagedList(lambda at, carry: self._do(build(at, carry)), offset)

    async def revoke_api_key(self, key_id: str) -> None:
        await self._do(Req("DELETE", f"/v1/api-keys/{p(key_id)}", r.nothing))

    # Agents
    async def register_agent(self, agent: Mapping[str, Any]) -> dict[str, Any]:
        """Registers an owned agent (the API's camelCase fields): ``{"agent", "webhook_secret", "warnings"}``.
        The ``whsec_`` secret of a webhook agent is shown once."""
        return await self._do(Req("POST", "/v1/agents", r.registered, json=dict(agent)))

    async def register_provisional(self, agent: Mapping[str, Any]) -> dict[str, Any]:
        """Registers an agent without an account (``pubkey`` required): ``{"agent", "webhook_secret",
        "message", "claim_url", "claim_page_url", "warnings"}``."""
        return await self._do(Req("POST", "/v1/agents/provisional", r.provisional_reader(self.base_url), json=dict(agent)))

    async def get_agent(self, agent_id: str) -> JSON:
        return await self._do(Req("GET", f"/v1/agents/{p(agent_id)}", r.data))

    def list_agents(self, *, limit: int | None = None, offset: int = 0, **filters: Any) -> AsyncPagedList[JSON]:  # paged
        """Your agents, page after page."""
        build = r.list_req("/v1/agents", {"limit": limit, **r.camel(filters)})
        return AsyncPagedList(lambda at, carry: self._do(build(at, carry)), offset)

    async def update_agent(self, agent_id: str, changes: Mapping[str, Any]) -> JSON:
        return await self._do(Req("PATCH", f"/v1/agents/{p(agent_id)}", r.data, json=dict(changes)))

    async def delete_agent(self, agent_id: str) -> None:
        await self._do(Req("DELETE", f"/v1/agents/{p(agent_id)}", r.nothing))

    async def claim_challenge(self, agent_id: str) -> JSON:
        """A claim challenge (``nonce``) issued to this client's account."""
        return await self._do(Req("POST", f"/v1/agents/{p(agent_id)}/claim/challenge", r.data))

    async def claim(self, agent_id: str, signature: str) -> JSON:
        return await self._do(Req("POST", f"/v1/agents/{p(agent_id)}/claim", r.data, json={"signature": signature}))

    async def claim_with_key(self, agent_id: str, key: Ed25519PrivateKey | NonceSigner) -> JSON:
        """Claims a provisional agent for this client's account: fetches a challenge and signs it with the agent's key."""
        challenge = await (self.claim_challenge(agent_id))
        return await (self.claim(agent_id, _signer(key)(challenge["nonce"])))

    async def prove_key(self, agent_id: str, key: Ed25519PrivateKey | NonceSigner) -> JSON:
        """Proves an owned agent holds its registration key, so discovery and routing show the key's trust."""
        challenge = await self._do(Req("GET", f"/v1/agents/{p(agent_id)}/key-challenge", r.data))
        return await self._do(Req("POST", f"/v1/agents/{p(agent_id)}/key-proof", r.data, json={"signature": _signer(key)(challenge["nonce"])}))

    async def set_key(self, agent_id: str, key: Ed25519PrivateKey, *, pubkey: str | None = None, sign: NonceSigner | None = None) -> JSON:
        """Sets the agent's registration key to ``key``, signed by that key over a fresh challenge."""
        challenge = await self._do(Req("GET", f"/v1/agents/{p(agent_id)}/key-challenge", r.data))
        body = {"pubkey": pubkey or public_key_string(key), "signature": (sign or _signer(key))(challenge["nonce"])}
        return await self._do(Req("PUT", f"/v1/agents/{p(agent_id)}/key", r.data, json=body))

    async def rotate_webhook_secret(self, agent_id: str) -> JSON:
        return await self._do(Req("POST", f"/v1/agents/{p(agent_id)}/webhook-secret", r.data))

    async def heartbeat(self, agent_id: str, *, status: str | None = None, load: float | None = None, agent_signature: str | None = None) -> JSON:
        """A heartbeat; ``agent_signature`` (``agent_signature_header``) when the client holds no credential for the agent."""
        return await self._do(Req("POST", f"/v1/agents/{p(agent_id)}/heartbeat", r.data, json=r.query({"status": status, "load": load}), headers=r.signed(agent_signature)))

    async def poll_tasks(self, agent_id: str, *, wait: int = 30, limit: int = 1, agent_signature: str | None = None) -> list[JSON]:
        """Long poll: up to ``limit`` deliveries, waiting up to ``wait`` seconds (0..30) for the first."""
        req = Req("GET", f"/v1/agents/{p(agent_id)}/tasks/poll", r.data, params={"wait": wait, "limit": limit}, headers=r.signed(agent_signature), timeout=wait + 30.0)
        return list(await self._do(req))

    async def listen_webhooks(self, agent_id: str, *, wait: int = 30, limit: int = 1, agent_signature: str | None = None) -> list[JSON]:
        """A ``listen`` session's long poll for a webhook agent: each delivery's ``body`` and ``headers``
        exactly as its endpoint would get them (signed with the agent's secret)."""
        req = Req("GET", f"/v1/agents/{p(agent_id)}/webhooks/listen", r.data, params={"wait": wait, "limit": limit}, headers=r.signed(agent_signature), timeout=wait + 30.0)
        return list(await self._do(req))

    async def stop_listening(self, agent_id: str, *, agent_signature: str | None = None) -> JSON:
        return await self._do(Req("DELETE", f"/v1/agents/{p(agent_id)}/webhooks/listen", r.data, headers=r.signed(agent_signature)))

    # Tasks
    async def submit_task(
        self,
        description: str,
        *,
        input: Mapping[str, Any] | None = None,
        agent_id: str | None = None,
        capabilities: list[str] | None = None,
        title: str | None = None,
        task_class: str | None = None,
        priority: str | None = None,
        expires_in_minutes: int | None = None,
        metadata: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
        **fields: Any,
    ) -> JSON:
        """Submits a task. Without ``input`` the description is read into the agent's input schema
        (by words); without ``agent_id`` or ``capabilities`` the service routes it by discovery. An
        idempotency key is made when not given, so a retried submission creates one task."""
        body = r.camel(
            {
                "title": title,
                "description": description,
                "input": dict(input) if input is not None else None,
                "agent_id": agent_id,
                "capabilities": capabilities,
                "task_class": task_class,
                "priority": priority,
                "expires_in_minutes": expires_in_minutes,
                "metadata": dict(metadata) if metadata is not None else None,
                **fields,
            }
        )
        headers = {"idempotency-key": idempotency_key or r.new_idempotency_key()}
        return await self._do(Req("POST", "/v1/tasks", r.data, json=body, headers=headers))

    async def get_task(self, task_id: str) -> JSON:
        return await self._do(Req("GET", f"/v1/tasks/{p(task_id)}", r.data))

    def list_tasks(self, *, limit: int | None = None, offset: int = 0, **filters: Any) -> AsyncPagedList[JSON]:  # paged
        """Tasks you submitted or your agents took (``role="requester"`` or ``"agent"``, ``status``...)."""
        build = r.list_req("/v1/tasks", {"limit": limit, **r.camel(filters)})
        return AsyncPagedList(lambda at, carry: self._do(build(at, carry)), offset)

    async def cancel_task(self, task_id: str) -> JSON:
        return await self._do(Req("POST", f"/v1/tasks/{p(task_id)}/cancel", r.data))

    async def rate_task(self, task_id: str, score: int, comment: str | None = None) -> JSON:
        """Rates a completed task you submitted (score 1..5, once)."""
        return await self._do(Req("POST", f"/v1/tasks/{p(task_id)}/rating", r.data, json=r.query({"score": score, "comment": comment})))

    async def extract(self, description: str, *, agent_id: str | None = None, input_schema: Mapping[str, Any] | None = None) -> JSON:
        """Preview: the input a plain-language task would carry (``input``, ``missing``...); nothing is created."""
        body = r.camel({"description": description, "agent_id": agent_id, "input_schema": dict(input_schema) if input_schema is not None else None})
        return await self._do(Req("POST", "/v1/tasks/extract", r.data, json=body))

    async def wait_for_task(self, task_id: str, *, timeout: float = 300.0, poll_interval: float = 1.0) -> JSON:
        """Waits until the task is final (completed, failed, cancelled, expired, unmatched) and returns it;
        raises ``AgentryTimeoutError`` after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            task = await (self.get_task(task_id))
            if task["status"] in FINAL_TASK_STATUSES:
                return task
            left = deadline - time.monotonic()
            if left <= 0:
                raise AgentryTimeoutError(task_id, task["status"], timeout)
            await asyncio.sleep(min(poll_interval, left))

    async def events(self, *, last_event_id: str | None = None) -> AsyncIterator[dict[str, Any]]:
        """The account's live events (GET /v1/events): ``{"id", "event", "data"}`` for ``task.status``
        and ``reset``; other event names are skipped. Ends when the stream closes (or when you stop iterating)."""
        headers = self._headers({"accept": "text/event-stream", **({"last-event-id": last_event_id} if last_event_id else {})})
        parser = r.EventParser()
        try:
            async with self._http.stream("GET", self.base_url + "/v1/events", headers=headers, timeout=httpx.Timeout(30.0, read=None)) as response:
                if response.is_error:
                    await response.aread()
                    raise r.error_of(response)
                async for line in response.aiter_lines():
                    event = parser.feed(line)
                    if event is not None:
                        yield event
        except httpx.TransportError as error:
            raise AgentryNetworkError(self.base_url, error) from error

    async def callback(self, task_id: str, task_token: str, *, result: Any = None, error: str | Mapping[str, Any] | None = None) -> JSON:
        """Reports a task's result (or ``error``); the task token is the credential."""
        body: dict[str, Any] = {"taskToken": task_token}
        if error is not None:
            body["error"] = error if isinstance(error, str) else dict(error)
        else:
            body["result"] = result
        return await self._do(Req("POST", f"/v1/tasks/{p(task_id)}/callback", r.body, json=body))

    async def renew_task_lease(self, task_id: str, task_token: str) -> JSON:
        """Keeps a task taken by long poll another lease length (the service's POLL_LEASE_MS) from now:
        without an answer or a renewal before its ``leaseUntil``, the task goes back to the queue."""
        return await self._do(Req("POST", f"/v1/tasks/{p(task_id)}/lease", r.data, json={"taskToken": task_token}))

    async def task_state(self, task_id: str, task_token: str) -> JSON:
        """The status of a task the agent works on, read by its task token: a final one means the work can stop."""
        return await self._do(Req("GET", f"/v1/tasks/{p(task_id)}/state", r.data, headers={"x-task-token": task_token}))

    # Trust
    async def submit_receipt(self, receipt: Mapping[str, Any]) -> dict[str, Any]:
        """Submits a signed receipt: ``{"receipt": <the stored record>, "message": ...}``."""
        return await self._do(Req("POST", "/v1/trust-receipts", r.submitted_receipt, json=dict(receipt)))

    async def sign_task_outcome(
        self,
        task_id: str,
        outcome: Outcome,
        key: Ed25519PrivateKey,
        *,
        issuer_agent: str | None = None,
        artifact_hash: str | None = None,
        artifact_url: str | None = None,
    ) -> dict[str, Any]:
        """Signs and submits the requester's outcome receipt about a finished task (task-bound: it
        weighs fully in trust). ``key`` is an agent key of yours (its id as ``issuer_agent``) or a
        signing key registered with ``register_signing_key``."""
        task = await (self.get_task(task_id))
        if task["status"] not in ("completed", "failed"):
            raise ValueError(f"Task {task_id} is {task['status']}: only a completed or failed task has an outcome to sign")
        if not task.get("assignedAgent"):
            raise ValueError(f"Task {task_id} was never taken by an agent")
        if not task.get("taskClass"):
            raise ValueError(f"Task {task_id} has no task class")
        agent = await (self.get_agent(task["assignedAgent"]["id"]))
        if not agent.get("registrationPubkey"):
            raise ValueError(f"{agent['name']} has no registration key: there is no key to sign about")
        started = _millis(task.get("deliveredAt") or task["createdAt"])
        ended = _millis(task.get("completedAt") or task["updatedAt"])
        payload: dict[str, Any] = {"outcome": outcome, "latencyMs": max(0, int(ended - started))}
        if artifact_hash:
            payload["artifactHash"] = artifact_hash
        if artifact_url:
            payload["artifactUrl"] = artifact_url
        receipt = build_receipt(
            kind="outcome",
            task_class=task["taskClass"],
            correlation_id=task["id"],
            issuer=party(issuer_agent or "requester", public_key_string(key)),
            subject=party(agent["id"], agent["registrationPubkey"]),
            payload=payload,
        )
        submitted: dict[str, Any] = await (self.submit_receipt(sign_receipt(receipt, key)))
        return submitted

    async def register_signing_key(self, key: Ed25519PrivateKey) -> JSON:
        """Registers ``key`` as a key your account signs receipts with."""
        account = await (self.account())
        pubkey = public_key_string(key)
        signature = sign_text(key, f"agentry signing key {pubkey} for account {account['id']}")
        return await self._do(Req("POST", "/v1/account/signing-keys", r.data, json={"pubkey": pubkey, "signature": signature}))

    async def trust(self, pubkey: str, *, task_class: str | None = None, explain: bool = False) -> JSON:
        """Trust of a key per task class; with ``explain``, the evidence that counted and what did not, and why."""
        params = r.query({"pubkey": pubkey, "taskClass": task_class, "explain": True if explain else None})
        return await self._do(Req("GET", "/v1/trust", r.data, params=params))

    async def explain_trust(self, pubkey: str, task_class: str | None = None) -> JSON:
        return await (self.trust(pubkey, task_class=task_class, explain=True))

    def list_receipts(self, *, limit: int = 20, offset: int = 0, **filters: Any) -> AsyncPagedList[JSON]:  # paged
        """Receipts about a key or of one flow, newest first (``subject_pubkey``, ``issuer_pubkey``, ``correlation_id``...)."""
        build = r.list_req("/v1/trust-receipts", {"limit": limit, **r.camel(filters)})
        return AsyncPagedList(lambda at, carry: self._do(build(at, carry)), offset)

    async def receipt_chain(self, correlation_id: str) -> JSON:
        """The earliest verified offer, decision and outcome of one flow."""
        return await self._do(Req("GET", f"/v1/trust-receipts/chain/{p(correlation_id)}", r.data))

    async def receipt_proof(self, receipt_id: str) -> str | None:
        """A receipt's proof from the receipt log (c2sp.org/tlog-proof@v1 text; check it with
        ``verify_receipt_proof``), or None while it waits to be logged."""
        return await self._do(Req("GET", f"/v1/trust-receipts/{p(receipt_id)}/proof", r.proof_or_none))

    async def log_checkpoint(self, log: str = "receipts") -> str:
        """The log's latest signed checkpoint (check it with ``verify_checkpoint``)."""
        return await self._do(Req("GET", f"/.tlog/{p(log)}/checkpoint", r.text))

    async def log_keys(self) -> list[str]:
        """The verifier keys the service lists for its logs. Trust them only as far as you trust this answer."""
        return await self._do(Req("GET", "/.tlog/keys", r.lines))

    async def log_consistency(self, size_from: int, size_to: int, log: str = "receipts") -> list[str]:
        """The consistency proof between two sizes of a log (base64 hashes; check it with ``verify_consistency``)."""
        return await self._do(Req("GET", f"/v1/log/{p(log)}/consistency", r.consistency_proof, params={"from": size_from, "to": size_to}))

    # Discovery and social
    def discover(self, q: str | None = None, *, limit: int | None = None, offset: int = 0, **filters: Any) -> AsyncPagedList[JSON]:  # paged
        """Agents ranked for what you need (``q`` in plain language, ``capability``, ``category``...)."""
        build = r.list_req("/v1/discover", {"q": q, "limit": limit, **r.camel(filters)})
        return AsyncPagedList(lambda at, carry: self._do(build(at, carry)), offset)

    async def create_profile(self, **fields: Any) -> JSON:
        """A social profile for the credential (``username``, ``display_name``, ``bio``...)."""
        return await self._do(Req("POST", "/v1/users", r.data, json=r.camel(fields)))

    async def create_post(self, content: str) -> JSON:
        return await self._do(Req("POST", "/v1/social/posts", r.body, json={"body": content}))

    def feed(self, *, limit: int | None = None, offset: int = 0, **filters: Any) -> AsyncPagedList[JSON]:  # paged
        """The feed, later pages taken as of the first (its ``X-Feed-Before``), so new posts shift nothing."""
        build = r.list_req("/v1/social/posts", {"limit": limit, **r.camel(filters)}, items_key="posts", carry_header="x-feed-before")
        return AsyncPagedList(lambda at, carry: self._do(build(at, carry)), offset)

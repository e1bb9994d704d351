"""The service's routes as request descriptions, shared by ``Client`` and ``AsyncClient``.

Each builder answers a ``Req``: what to send and how to read the answer, so the sync and async
clients differ only in how they send.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any, Callable, Generic, Mapping, TypeVar
from urllib.parse import quote

import httpx

from .errors import AgentryError
from .paging import PageAnswer

T = TypeVar("T")
JSON = Any

FINAL_TASK_STATUSES = ("completed", "failed", "cancelled", "expired", "unmatched")


@dataclass
class Req(Generic[T]):
    method: str
    path: str
    read: Callable[[httpx.Response], T]
    params: dict[str, Any] | None = None
    json: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    timeout: float | None = None


def p(value: str) -> str:
    """A path segment."""
    return quote(value, safe="")


def error_of(response: httpx.Response) -> AgentryError:
    try:
        body = response.json()
    except ValueError:
        body = None
    return AgentryError(response.status_code, body)


def body(response: httpx.Response) -> JSON:
    if response.is_error:
        raise error_of(response)
    if response.status_code == 204 or not response.content:
        return None
    return response.json()


def data(response: httpx.Response) -> JSON:
    answer = body(response)
    return answer.get("data") if isinstance(answer, dict) else answer


def nothing(response: httpx.Response) -> None:
    body(response)


def text(response: httpx.Response) -> str:
    if response.is_error:
        raise error_of(response)
    return response.text


def retry_after_seconds(header: str | None, now: float | None = None) -> float | None:
    """Seconds or an HTTP date, as RFC 9110 allows; None when absent or unreadable."""
    if not header:
        return None
    value = header.strip()
    if value.isdigit():
        return float(value)
    try:
        moment = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, moment.timestamp() - (time.time() if now is None else now))


def query(values: Mapping[str, Any]) -> dict[str, Any]:
    """Query parameters without the unset ones; booleans as the service spells them."""
    out: dict[str, Any] = {}
    for name, value in values.items():
        if value is None:
            continue
        out[name] = ("true" if value else "false") if isinstance(value, bool) else value
    return out


def camel(values: Mapping[str, Any]) -> dict[str, Any]:
    """snake_case keyword arguments as the service's camelCase fields (unset ones left out)."""
    out: dict[str, Any] = {}
    for name, value in values.items():
        if value is None:
            continue
        head, *rest = name.split("_")
        out[head + "".join(part[:1].upper() + part[1:] for part in rest)] = value
    return out


def signed(agent_signature: str | None) -> dict[str, str]:
    return {"x-agent-signature": agent_signature} if agent_signature else {}


def page_reader(items_key: str = "data", carry_header: str | None = None) -> Callable[[httpx.Response], PageAnswer[JSON]]:
    def read(response: httpx.Response) -> PageAnswer[JSON]:
        page = body(response)
        carry: dict[str, str] = {}
        if carry_header and response.headers.get(carry_header):
            carry = {"before": response.headers[carry_header]}
        return PageAnswer(page=page, items=list(page.get(items_key) or []), pagination=dict(page.get("pagination") or {}), carry=carry)

    return read


def list_req(path: str, params: Mapping[str, Any], items_key: str = "data", carry_header: str | None = None) -> Callable[[int, dict[str, str]], Req[PageAnswer[JSON]]]:
    def build(offset: int, carry: dict[str, str]) -> Req[PageAnswer[JSON]]:
        return Req("GET", path, page_reader(items_key, carry_header), params={**query(params), **carry, "offset": offset})

    return build


def registered(response: httpx.Response) -> dict[str, Any]:
    answer = body(response)
    agent = dict(answer["data"])
    secret = agent.pop("webhookSecret", None)
    return {"agent": agent, "webhook_secret": secret, "warnings": answer.get("warnings") or []}


def provisional_reader(base_url: str) -> Callable[[httpx.Response], dict[str, Any]]:
    def read(response: httpx.Response) -> dict[str, Any]:
        answer = body(response)
        agent = dict(answer["data"])
        secret = agent.pop("webhookSecret", None)
        claim_url = str(httpx.URL(base_url + "/").join(answer["claimUrl"]))
        return {
            "agent": agent,
            "webhook_secret": secret,
            "message": answer.get("message"),
            "claim_url": claim_url,
            "claim_page_url": f"{base_url}/claim/{p(agent['id'])}",
            "warnings": answer.get("warnings") or [],
        }

    return read


def submitted_receipt(response: httpx.Response) -> dict[str, Any]:
    answer = dict(body(response))
    stored = answer.pop("data", None)
    return {"receipt": stored, **answer}


def proof_or_none(response: httpx.Response) -> str | None:
    if response.status_code == 202:
        return None
    return text(response)


def consistency_proof(response: httpx.Response) -> list[str]:
    return list(json.loads(text(response))["data"]["proof"])


def lines(response: httpx.Response) -> list[str]:
    return [line for line in text(response).split("\n") if line]


def new_idempotency_key() -> str:
    return str(uuid.uuid4())


class EventParser:
    """Reads server-sent event lines one at a time into ``{id, event, data}``. Frames without an
    event name, and event names this version does not know, are skipped: the service adds new kinds."""

    def __init__(self) -> None:
        self.fields: dict[str, str] = {}

    def feed(self, line: str) -> dict[str, Any] | None:
        line = line.rstrip("\r\n")
        if line == "":
            fields, self.fields = self.fields, {}
            event = fields.get("event")
            if event not in ("task.status", "reset"):
                return None
            try:
                payload = json.loads(fields.get("data", "null"))
            except ValueError:
                return None
            return {"id": fields.get("id", ""), "event": event, "data": payload}
        if line.startswith(":"):
            return None
        name, sep, value = line.partition(":")
        value = value[1:] if sep and value.startswith(" ") else value
        self.fields[name] = f"{self.fields['data']}\n{value}" if name == "data" and "data" in self.fields else value
        return None

"""The one exception type for answers the service refuses, and its network variant."""

from __future__ import annotations

from typing import Any


class AgentryError(Exception):
    """An error answer from the service: its HTTP status and the ``{code, message, details}`` body.

    ``body`` keeps the rest of the error body (for example ``found`` beside an extraction's details).
    """

    def __init__(self, status: int, body: Any) -> None:
        record: dict[str, Any] = body if isinstance(body, dict) else {}
        message = record.get("message")
        if not isinstance(message, str):
            message = f"the service answered HTTP {status}"
        code = record.get("code")
        if not isinstance(code, str):
            code = "INTERNAL" if status >= 500 else "HTTP_ERROR"
        details = record.get("details")
        super().__init__(message)
        self.status = status
        self.code: str = code
        self.message: str = message
        self.details: list[dict[str, Any]] | None = details if isinstance(details, list) else None
        self.body = record

    def __repr__(self) -> str:
        return f"AgentryError(status={self.status}, code={self.code!r}, message={self.message!r})"


class AgentryNetworkError(AgentryError):
    """The service could not be reached (refused, reset, DNS, timeout): nothing was answered.

    A kind of AgentryError (status 0, code ``NETWORK``), so one ``except AgentryError`` covers both.
    """

    def __init__(self, url: str, cause: BaseException) -> None:
        super().__init__(0, {"code": "NETWORK", "message": f"could not reach {url}: {cause}"})
        self.url = url
        self.__cause__ = cause


class AgentryTimeoutError(Exception):
    """``wait_for_task`` gave up: the task was not final within the timeout."""

    def __init__(self, task_id: str, status: str, timeout: float) -> None:
        super().__init__(f"task {task_id} is still {status} after {timeout} s")
        self.task_id = task_id
        self.status = status

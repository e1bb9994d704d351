"""AgentRunner keeps an agent alive: heartbeats on a timer, takes tasks by long poll (or by webhook
through its ASGI app), runs the author's handler on each task's input, and calls back with the
result or the error. It behaves as the TypeScript kit's AgentRunner.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import signal
import sys
import threading
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Awaitable, Callable, Literal, Mapping, Union

from ._routes import FINAL_TASK_STATUSES
from .async_client import AsyncClient
from .errors import AgentryError, AgentryNetworkError
from .keys import Ed25519PrivateKey, agent_signature_header, public_key_string
from .receipts import Kind, build_receipt, party, sign_receipt
from .webhooks import TaskDelivery, WebhookVerificationError, verify_webhook


def _seconds(iso: str) -> float:
    """An ISO 8601 UTC time of the service (``...Z``) as epoch seconds."""
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


Handler = Callable[[Any, TaskDelivery], Union[Any, Awaitable[Any]]]
TaskOutcome = Literal["completed", "failed", "cancelled", "abandoned"]
# What became of a callback: "settled" (the service took it, or refused it for a reason sending it again
# would not change), the service's 409 (the task no longer takes an outcome), or "unanswered" (network
# errors or 5xx to the last attempt: the service may never have had it).
CallbackAnswer = Union[Literal["settled", "unanswered"], AgentryError]
ASGIReceive = Callable[[], Awaitable[Mapping[str, Any]]]
ASGISend = Callable[[Mapping[str, Any]], Awaitable[None]]


async def _in_daemon_thread(function: Callable[..., Any], *args: Any) -> Any:
    """Runs a plain handler in a daemon thread: one that never returns must not keep the process
    from exiting once the runner has stopped (a thread pool's workers are joined at exit)."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def settle(outcome: Callable[[], None]) -> None:
        if not future.done():
            outcome()

    def work() -> None:
        try:
            result = function(*args)
        except BaseException as error:  # handed to the awaiting task, as a coroutine's would be
            failure = error
            call = lambda: settle(lambda: future.set_exception(failure))  # noqa: E731
        else:
            call = lambda: settle(lambda: future.set_result(result))  # noqa: E731
        try:
            loop.call_soon_threadsafe(call)
        except RuntimeError:
            pass  # the loop has closed: nobody waits for this result any more

    threading.Thread(target=work, name="agentry-task", daemon=True).start()
    return await future


class AgentRunnerError(Exception):
    """The runner cannot go on without a change on the author's side: the service refused the
    agent's credential, does not know the agent, or delivers its tasks another way."""

    def __init__(self, message: str, cause: AgentryError) -> None:
        super().__init__(message)
        self.status = cause.status
        self.code = cause.code
        self.__cause__ = cause


# How many tasks the runner remembers having answered: a poll that took a task again just before its
# answer arrived hands it out once more, moments later, so the latest few hundred are plenty.
_REMEMBERED_ANSWERS = 1000
# How many webhook-ids the runner remembers: the service retries a delivery under its webhook-id for
# minutes at most, so the latest ten thousand cover any retry while the runner's memory stays bounded.
_REMEMBERED_DELIVERIES = 10_000


def _log_to_stderr(error: BaseException, context: str) -> None:
    sys.stderr.write(f"agentry runner: {context}: {error}\n")


@dataclass
class _InHand:
    delivery: TaskDelivery
    ended_event: asyncio.Event = field(default_factory=asyncio.Event)
    done: asyncio.Task[None] | None = None
    reported: bool = False
    # Set when the service no longer waits for the result: cancelled, or abandoned (expired, taken back, or we stopped).
    ended: Literal["cancelled", "abandoned"] | None = None


class AgentRunner:
    """Serves one agent.

    ``handler(input, task)`` answers the task's result (any JSON value); it may be a plain function
    (run in a worker thread) or a coroutine function (cancelled when the task ends at the service or
    the runner stops). An exception fails the task with its message.

    ``key`` (the registration key) signs ``X-Agent-Signature``, needed for provisional agents; else
    the client's token must be the owner's. ``run()`` blocks until SIGINT or SIGTERM and stops
    gracefully; in an asyncio program use ``await start()`` and ``await stop()``.
    """

    def __init__(
        self,
        *,
        agent_id: str,
        handler: Handler,
        client: AsyncClient | None = None,
        base_url: str | None = None,
        token: str | None = None,
        key: Ed25519PrivateKey | None = None,
        heartbeat_interval: float = 60.0,
        poll_wait: int = 30,
        concurrency: int = 1,
        grace_period: float = 10.0,
        cancel_check_interval: float = 5.0,
        callback_attempts: int = 5,
        on_error: Callable[[BaseException, str], None] = _log_to_stderr,
        on_task: Callable[[str, TaskOutcome], None] | None = None,
    ) -> None:
        if client is None:
            if base_url is None:
                raise ValueError("give the runner a client or a base_url")
            client = AsyncClient(base_url, token)
        self.client = client
        self.agent_id = agent_id
        self.handler = handler
        self.key = key
        self.heartbeat_interval = heartbeat_interval
        self.poll_wait = poll_wait
        self.concurrency = concurrency
        self.grace_period = grace_period
        self.cancel_check_interval = cancel_check_interval
        self.callback_attempts = callback_attempts
        self.on_error = on_error
        self.on_task = on_task
        self.fatal: AgentRunnerError | None = None
        self._running = False
        self._mode: Literal["poll", "webhook"] = "poll"
        self._in_hand: dict[str, _InHand] = {}
        # Insertion-ordered (a dict's keys), so the oldest is dropped first.
        self._seen_deliveries: dict[str, None] = {}
        # Tasks the handler has finished: None once the service has the answer, else the answer to send again.
        self._answered: dict[str, Mapping[str, Any] | None] = {}
        self._heartbeat_task: asyncio.Task[None] | None = None
        self._poll_task: asyncio.Task[None] | None = None
        self._stopping: asyncio.Task[None] | None = None
        self._stopped = asyncio.Event()

    @property
    def tasks_in_hand(self) -> int:
        return len(self._in_hand)

    def _signature(self) -> str | None:
        return agent_signature_header(self.key, self.agent_id) if self.key else None

    async def start(self, *, poll: bool = True) -> None:
        """Sends the first heartbeat (signed by the key when one is given, which proves the key to the
        service), then starts taking tasks by long poll (``poll=False``: only through ``asgi_app``).
        Raises ``AgentRunnerError`` when that heartbeat is refused (401, 403, 404), naming the fix."""
        if self._running:
            return
        self._mode = "poll" if poll else "webhook"
        try:
            await self.client.heartbeat(self.agent_id, status="available", load=0, agent_signature=self._signature())
        except AgentryError as error:
            if error.status in (401, 403, 404):
                raise self._refusal(error, "heartbeat") from error
            self.on_error(error, "heartbeat")
        self._running = True
        self._stopped = asyncio.Event()
        self._heartbeat_task = asyncio.create_task(self._heartbeats())
        if poll:
            self._poll_task = asyncio.create_task(self._poll_loop())

    def stop(self) -> asyncio.Task[None]:
        """Stops taking work, lets the tasks in hand finish within the grace period, then cancels the
        rest and calls back with an error for each (``agent_shutdown``), so requesters learn at once."""
        if self._stopping is None:
            self._stopping = asyncio.ensure_future(self._shutdown())
        return self._stopping

    async def wait(self) -> None:
        """Waits until the runner has stopped; raises ``AgentRunnerError`` when it stopped because the service refused it."""
        await self._stopped.wait()
        if self.fatal:
            raise self.fatal

    async def serve(self, *, handle_signals: bool = True) -> None:
        """Starts, serves until SIGINT/SIGTERM (or a refusal), and stops gracefully."""
        await self.start()
        loop = asyncio.get_running_loop()
        installed = []
        if handle_signals:
            for sig in (signal.SIGINT, signal.SIGTERM):
                try:
                    loop.add_signal_handler(sig, self.stop)
                    installed.append(sig)
                except (NotImplementedError, RuntimeError, ValueError):
                    pass
        try:
            await self.wait()
        finally:
            for sig in installed:
                loop.remove_signal_handler(sig)
            await self.stop()

    def run(self) -> None:
        """Blocks serving the agent until SIGINT or SIGTERM, then stops gracefully."""
        asyncio.run(self._serve_and_close())

    async def _serve_and_close(self) -> None:
        try:
            await self.serve()
        finally:
            await self.client.close()

    async def _shutdown(self) -> None:
        self._running = False
        for task in (self._heartbeat_task, self._poll_task):
            if task is not None:
                task.cancel()
        for task in (self._heartbeat_task, self._poll_task):
            if task is not None:
                try:
                    await task
                except (asyncio.CancelledError, Exception):
                    pass
        pending = [task.done for task in self._in_hand.values() if task.done is not None]
        if pending:
            await asyncio.wait(pending, timeout=self.grace_period)

        async def abandon(task: _InHand) -> None:
            if task.reported:
                return
            task.reported = True
            task.ended = "abandoned"
            task.ended_event.set()
            await self._report(task.delivery, {"error": {"code": "agent_shutdown", "message": "the agent stopped before finishing the task"}})
            if self.on_task:
                self.on_task(task.delivery["taskId"], "abandoned")

        await asyncio.gather(*(abandon(task) for task in list(self._in_hand.values())))
        self._stopped.set()

    def _refusal(self, error: AgentryError, what: str) -> AgentRunnerError:
        agent = self.agent_id
        if error.status == 401:
            fix = "give the runner the agent's registration key (`key`) or a token of the agent's owner"
        elif error.status == 403:
            fix = f"the credential may not act as agent {agent}: use its owner's token or its registration key"
        elif error.status == 404:
            fix = f"check agent_id ({agent}) and the service URL ({self.client.base_url}); an agent the credential may not see answers 404"
        else:
            fix = f"make the runner's mode ({self._mode}) match the agent's deliveryMode at the service, or change the agent's deliveryMode"
        return AgentRunnerError(f"agent {agent}: the service refused the {what} ({error.status} {error.code}: {error.message}); {fix}", error)

    async def _heartbeats(self) -> None:
        while True:
            await asyncio.sleep(self.heartbeat_interval)
            load = min(1.0, len(self._in_hand) / self.concurrency)
            try:
                await self.client.heartbeat(self.agent_id, status="busy" if load >= 1 else "available", load=load, agent_signature=self._signature())
            except AgentryError as error:
                self.on_error(error, "heartbeat")

    async def _poll_loop(self) -> None:
        backoff = 1.0
        while self._running:
            if len(self._in_hand) >= self.concurrency:
                await asyncio.wait([task.done for task in self._in_hand.values() if task.done], return_when=asyncio.FIRST_COMPLETED)
                continue
            try:
                deliveries = await self.client.poll_tasks(
                    self.agent_id, wait=self.poll_wait, limit=self.concurrency - len(self._in_hand), agent_signature=self._signature()
                )
                backoff = 1.0
            except AgentryError as error:
                if not self._running:
                    return
                # A refusal (credential, unknown agent, another delivery mode) will not fix itself: stop and say what to change.
                if not isinstance(error, AgentryNetworkError) and error.status in (401, 403, 404, 409):
                    self.fatal = self._refusal(error, "poll")
                    self.stop()
                    return
                self.on_error(error, "poll")
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, 30.0)
                continue
            for delivery in deliveries:
                # A task handed out again (its renewals were lost and the lease ran out) is the same task,
                # under the same token: the handler at work on it answers it, and one that has answered it
                # does not run again (a poll took the task again just before its answer arrived).
                task_id = delivery["taskId"]
                if task_id in self._in_hand:
                    continue
                if task_id not in self._answered:
                    self.accept(delivery)
                else:
                    unanswered = self._answered[task_id]
                    if unanswered is not None:
                        self._resend(delivery, unanswered)

    def accept(self, delivery: TaskDelivery) -> None:
        """Runs a delivery's task (the poll loop and the webhook app call this)."""
        task = _InHand(delivery)
        self._in_hand[delivery["taskId"]] = task
        task.done = asyncio.create_task(self._run(task))
        task.done.add_done_callback(lambda _: self._in_hand.pop(delivery["taskId"], None))

    def _resend(self, delivery: TaskDelivery, outcome: Mapping[str, Any]) -> None:
        """A task whose answer never reached the service (every callback attempt failed), handed out
        again: the same answer goes again, without running the handler a second time."""
        task = _InHand(delivery, reported=True)
        self._in_hand[delivery["taskId"]] = task

        async def send() -> None:
            if await self._report(delivery, outcome) != "unanswered":
                self._remember(delivery["taskId"], None)

        task.done = asyncio.create_task(send())
        task.done.add_done_callback(lambda _: self._in_hand.pop(delivery["taskId"], None))

    def _remember(self, task_id: str, unanswered: Mapping[str, Any] | None) -> None:
        self._answered.pop(task_id, None)
        self._answered[task_id] = unanswered
        if len(self._answered) > _REMEMBERED_ANSWERS:
            del self._answered[next(iter(self._answered))]

    async def _call_handler(self, delivery: TaskDelivery) -> Any:
        if inspect.iscoroutinefunction(self.handler):
            return await self.handler(delivery.get("input"), delivery)
        result = await _in_daemon_thread(self.handler, delivery.get("input"), delivery)
        return await result if inspect.isawaitable(result) else result

    async def _watch(self, task: _InHand) -> None:
        while not task.ended:
            await asyncio.sleep(self.cancel_check_interval)
            await self._check_still_waited(task)

    async def _keep_lease(self, task: _InHand) -> None:
        """A task taken by long poll is leased: while the handler runs, the lease is renewed each time half
        of it has passed, so a long task stays this runner's and one whose runner died goes back to the queue."""
        lease_until, timestamp = task.delivery.get("leaseUntil"), task.delivery.get("timestamp")
        if not lease_until or not timestamp:
            return
        # Both times are the service's, so the length holds whatever this machine's clock says.
        every = max(1.0, (_seconds(lease_until) - _seconds(timestamp)) / 2)
        while not task.ended:
            await asyncio.sleep(every)
            try:
                await self.client.renew_task_lease(task.delivery["taskId"], task.delivery["taskToken"])
            except AgentryError as error:
                if error.status in (401, 409):
                    # The task ended or expired (a lease that ran out is taken back by a renewal): the state check says what to do.
                    await self._check_still_waited(task)
                    return
                self.on_error(error, f"renewing the lease of task {task.delivery['taskId']}")
            except AgentryNetworkError as error:
                self.on_error(error, f"renewing the lease of task {task.delivery['taskId']}")

    async def _run(self, task: _InHand) -> None:
        work = asyncio.create_task(self._call_handler(task.delivery))
        watcher = asyncio.create_task(self._watch(task))
        lease = asyncio.create_task(self._keep_lease(task))
        ended = asyncio.create_task(task.ended_event.wait())
        await asyncio.wait({work, ended}, return_when=asyncio.FIRST_COMPLETED)
        watcher.cancel()
        lease.cancel()
        ended.cancel()
        if not work.done():
            # The task ended at the service (or the runner gave up on it): a handler still at work is stopped.
            work.cancel()
            if not task.reported and self.on_task and task.ended:
                task.reported = True
                self.on_task(task.delivery["taskId"], task.ended)
            return
        outcome: dict[str, Any]
        try:
            result = work.result()
            outcome = {"result": result}
        except asyncio.CancelledError:
            return
        except Exception as error:
            message = str(error)[:3900] or "the handler failed"
            outcome = {"error": {"code": "handler_error", "message": message}}
        if task.reported:
            return
        task.reported = True
        answer = None if task.ended else await self._report(task.delivery, outcome)
        self._remember(task.delivery["taskId"], outcome if answer == "unanswered" else None)
        if isinstance(answer, AgentryError):
            await self._check_still_waited(task)
            if task.ended != "cancelled":
                self.on_error(answer, f"callback for task {task.delivery['taskId']}")
            task.ended = task.ended or "abandoned"
        if self.on_task:
            self.on_task(task.delivery["taskId"], task.ended or ("completed" if "result" in outcome else "failed"))

    async def _check_still_waited(self, task: _InHand) -> None:
        if task.ended:
            return
        try:
            state = await self.client.task_state(task.delivery["taskId"], task.delivery["taskToken"])
            if state["status"] not in FINAL_TASK_STATUSES:
                return
            task.ended = "cancelled" if state["status"] == "cancelled" else "abandoned"
        except AgentryError as error:
            # The token no longer counts: the task expired, or was taken back from this agent.
            if error.status != 401:
                self.on_error(error, f"checking task {task.delivery['taskId']}")
                return
            task.ended = "abandoned"
        task.ended_event.set()

    async def _report(self, delivery: TaskDelivery, outcome: Mapping[str, Any]) -> CallbackAnswer:
        """Calls back, retrying network errors and 5xx with backoff; the service's refusals are final.
        Answers the 409 when the task no longer takes an outcome (finished, cancelled, expired)."""
        attempt = 1
        while True:
            try:
                if "error" in outcome:
                    await self.client.callback(delivery["taskId"], delivery["taskToken"], error=outcome["error"])
                else:
                    await self.client.callback(delivery["taskId"], delivery["taskToken"], result=outcome.get("result"))
                return "settled"
            except AgentryError as error:
                if error.status == 409:
                    return error
                retryable = isinstance(error, AgentryNetworkError) or error.status >= 500
                if not retryable or attempt >= self.callback_attempts:
                    self.on_error(error, f"callback for task {delivery['taskId']}")
                    return "unanswered" if retryable else "settled"
                await asyncio.sleep(min(0.5 * 2 ** (attempt - 1), 10.0))
                attempt += 1

    # Receipts
    def me(self) -> dict[str, str]:
        """This agent as a receipt party: its id and the public half of its key."""
        if not self.key:
            raise ValueError("signing receipts needs the agent key")
        return party(self.agent_id, public_key_string(self.key))

    def sign_receipt(self, *, kind: Kind, task_class: str, subject: Mapping[str, str], payload: Mapping[str, Any], **options: Any) -> dict[str, Any]:
        """A receipt about a counterparty, issued and signed by this agent."""
        if not self.key:
            raise ValueError("signing receipts needs the agent key")
        receipt = build_receipt(kind=kind, task_class=task_class, issuer=self.me(), subject=subject, payload=payload, **options)
        return sign_receipt(receipt, self.key)

    async def submit_receipt(self, *, kind: Kind, task_class: str, subject: Mapping[str, str], payload: Mapping[str, Any], **options: Any) -> dict[str, Any]:
        return await self.client.submit_receipt(self.sign_receipt(kind=kind, task_class=task_class, subject=subject, payload=payload, **options))

    # Webhook agents
    def asgi_app(self, secret: str, *, max_bytes: int = 1024 * 1024, tolerance_seconds: int = 300) -> Callable[[Mapping[str, Any], ASGIReceive, ASGISend], Awaitable[None]]:
        """An ASGI app that takes the agent's webhook deliveries (Standard Webhooks, signed with
        ``secret``) and runs them as the poll loop does. Mount it in Starlette or FastAPI
        (``app.mount("/agentry", runner.asgi_app(secret))``) or serve it alone; its lifespan events,
        when the server sends them, start the runner without polling and stop it."""

        async def respond(send: ASGISend, status: int, payload: bytes = b"", extra: list[tuple[bytes, bytes]] | None = None) -> None:
            headers = [(b"content-type", b"application/json")] if payload else []
            await send({"type": "http.response.start", "status": status, "headers": headers + (extra or [])})
            await send({"type": "http.response.body", "body": payload})

        async def app(scope: Mapping[str, Any], receive: ASGIReceive, send: ASGISend) -> None:
            if scope["type"] == "lifespan":
                while True:
                    message = await receive()
                    if message["type"] == "lifespan.startup":
                        try:
                            await self.start(poll=False)
                        except AgentRunnerError as error:
                            await send({"type": "lifespan.startup.failed", "message": str(error)})
                            return
                        await send({"type": "lifespan.startup.complete"})
                    elif message["type"] == "lifespan.shutdown":
                        await self.stop()
                        await send({"type": "lifespan.shutdown.complete"})
                        return
            if scope["type"] != "http":
                return
            if scope.get("method") != "POST":
                await respond(send, 405, b'{"error":"deliveries are POSTed"}')
                return
            chunks: list[bytes] = []
            size = 0
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    return
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > max_bytes:
                    await respond(send, 413, b'{"error":"body too large"}')
                    return
                chunks.append(chunk)
                if not message.get("more_body"):
                    break
            headers = list(scope.get("headers") or [])
            try:
                delivery = verify_webhook(headers, b"".join(chunks), secret, tolerance_seconds=tolerance_seconds)
            except WebhookVerificationError as error:
                await respond(send, 401, json.dumps({"error": str(error)}).encode("utf-8"))
                return
            if not self._running or len(self._in_hand) >= self.concurrency:
                # Not 2xx: the service retries, or moves the task to another agent.
                await respond(send, 503, extra=[(b"retry-after", b"5")])
                return
            webhook_id = next((value.decode("latin-1") for name, value in headers if name.lower() == b"webhook-id"), "")
            # A retried delivery (same webhook-id) of a task already taken is acknowledged, not run twice.
            if webhook_id not in self._seen_deliveries and delivery["taskId"] not in self._in_hand:
                self._seen_deliveries[webhook_id] = None
                if len(self._seen_deliveries) > _REMEMBERED_DELIVERIES:
                    del self._seen_deliveries[next(iter(self._seen_deliveries))]
                self.accept(delivery)
            await respond(send, 204)

        return app

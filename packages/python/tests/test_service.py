"""The client, the runner and the ASGI app against the real service the session started."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any, Callable, TypeVar

import pytest

import agentry

T = TypeVar("T")


def wait_until(what: str, read: Callable[[], T], done: Callable[[T], bool], timeout: float = 60.0) -> T:
    deadline = time.monotonic() + timeout
    while True:
        value = read()
        if done(value):
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: still {value!r} after {timeout} s")
        time.sleep(0.1)


def poll_agent(owner: agentry.Client, **fields: Any) -> dict[str, Any]:
    body = {
        "name": f"Py agent {os.getpid()} {time.time_ns()}",
        "description": "echoes what it is given",
        "deliveryMode": "poll",
        "protocols": ["rest"],
        "categories": ["productivity"],
        **fields,
    }
    agent: dict[str, Any] = owner.register_agent(body)["agent"]
    return agent


def test_errors_carry_status_code_message_and_details(service: str, owner: agentry.Client) -> None:
    with agentry.Client(service) as anonymous:
        with pytest.raises(agentry.AgentryError) as refused:
            anonymous.list_agents().first()
        assert (refused.value.status, refused.value.code) == (401, "UNAUTHORIZED")
    with pytest.raises(agentry.AgentryError) as missing:
        owner.get_agent("no-such-agent")
    assert (missing.value.status, missing.value.code) == (404, "NOT_FOUND") and missing.value.message
    with pytest.raises(agentry.AgentryError) as invalid:
        owner.register_agent({"name": "", "description": "x"})
    assert invalid.value.status == 400 and invalid.value.details
    with agentry.Client("http://127.0.0.1:9") as down:
        with pytest.raises(agentry.AgentryNetworkError):
            down.get_agent("x")


def test_register_list_pages_and_submit(owner: agentry.Client) -> None:
    made = [poll_agent(owner)["id"] for _ in range(3)]
    listing = owner.list_agents(limit=2)
    assert len(listing.first()["data"]) == 2 and listing.first()["pagination"]["hasMore"]
    seen = [agent["id"] for agent in owner.list_agents(limit=2)]
    assert sorted(seen) == sorted(made)
    first = owner.submit_task("once", agent_id=made[0], input={"a": 1}, idempotency_key="py-idem-1")
    again = owner.submit_task("once", agent_id=made[0], input={"a": 1}, idempotency_key="py-idem-1")
    assert first["id"] == again["id"]
    cancelled = owner.cancel_task(first["id"])
    assert cancelled["status"] == "cancelled"
    assert owner.wait_for_task(first["id"], timeout=10)["status"] == "cancelled"
    assert [task["id"] for task in owner.list_tasks(limit=1, role="requester")] == [first["id"]]


def test_claim_a_provisional_agent_with_its_key(service: str, owner: agentry.Client) -> None:
    key = agentry.generate_key()
    with agentry.Client(service) as anonymous:
        answer = anonymous.register_provisional(
            {"name": f"Claimable {time.time_ns()}", "description": "later", "pubkey": agentry.public_key_string(key), "deliveryMode": "poll"}
        )
    agent = answer["agent"]
    assert agent["status"] == "provisional"
    assert answer["claim_url"] == f"{service}/v1/agents/{agent['id']}/claim/challenge"
    assert answer["claim_page_url"] == f"{service}/claim/{agent['id']}"
    with pytest.raises(agentry.AgentryError):
        owner.claim_with_key(agent["id"], agentry.generate_key())
    owner.claim_with_key(agent["id"], key)
    claimed = owner.get_agent(agent["id"])
    assert claimed["ownerId"] == owner.account()["id"]
    other = agentry.generate_key()
    owner.set_key(agent["id"], other)
    assert owner.get_agent(agent["id"])["registrationPubkey"] == agentry.public_key_string(other)


def test_runner_serves_a_provisional_agent_and_a_task_submitted_by_words(service: str, owner: agentry.Client) -> None:
    key = agentry.generate_key()
    outcomes: list[tuple[str, str]] = []

    def echo(input: Any, task: agentry.TaskDelivery) -> Any:
        if input.get("text") == "boom":
            raise RuntimeError("the handler broke")
        return {"echoed": input}

    async def scenario() -> None:
        async with agentry.AsyncClient(service) as anonymous:
            registered = await anonymous.register_provisional(
                {
                    "name": f"Py echo {time.time_ns()}",
                    "description": "echoes text",
                    "pubkey": agentry.public_key_string(key),
                    "deliveryMode": "poll",
                    "inputSchema": {"text": {"type": "string", "required": True}},
                }
            )
            agent = registered["agent"]
            runner = agentry.AgentRunner(
                client=anonymous, agent_id=agent["id"], key=key, handler=echo, poll_wait=5, on_task=lambda task, outcome: outcomes.append((task, outcome))
            )
            await runner.start()
            try:
                async with agentry.AsyncClient(service, owner.token) as requester:
                    preview = await requester.extract("please echo: good morning", agent_id=agent["id"])
                    assert preview["missing"] == [] and isinstance(preview["input"]["text"], str)
                    by_words = await requester.submit_task("please echo: good morning", agent_id=agent["id"])
                    done = await requester.wait_for_task(by_words["id"], timeout=60)
                    assert done["status"] == "completed", done
                    assert done["result"] == {"echoed": done["input"]} and done["input"]["text"]
                    failing = await requester.submit_task("fail", agent_id=agent["id"], input={"text": "boom"})
                    failed = await requester.wait_for_task(failing["id"], timeout=60)
                    assert failed["status"] == "failed" and "the handler broke" in str(failed["error"])
                    rated = await requester.rate_task(by_words["id"], 5, "quick")
                    assert rated["rating"]["score"] == 5
                    assert (await requester.get_agent(agent["id"]))["keyVerified"] is True
                    ids = [task["id"] async for task in requester.list_tasks(limit=1, role="requester")]
                    assert by_words["id"] in ids and failing["id"] in ids
            finally:
                await runner.stop()
        assert (by_words["id"], "completed") in outcomes and (failing["id"], "failed") in outcomes

    asyncio.run(scenario())


def test_runner_renews_the_lease_of_a_polled_task_while_its_handler_works(service: str, owner: agentry.Client) -> None:
    renewals: list[str] = []
    enough = asyncio.Event()

    class CountingClient(agentry.AsyncClient):
        async def renew_task_lease(self, task_id: str, task_token: str) -> Any:
            renewed = await super().renew_task_lease(task_id, task_token)
            renewals.append(renewed["leaseUntil"])
            if len(renewals) >= 3:
                enough.set()
            return renewed

    async def scenario() -> None:
        release = asyncio.Event()

        async def slow(input: Any, task: agentry.TaskDelivery) -> Any:
            await release.wait()
            return {"slow": True}

        async with CountingClient(service, owner.token) as client:
            agent = await client.register_agent(
                {"name": f"Py slow {time.time_ns()}", "description": "slow", "deliveryMode": "poll", "protocols": ["rest"], "categories": ["productivity"]}
            )
            agent = agent["agent"]
            runner = agentry.AgentRunner(client=client, agent_id=agent["id"], handler=slow, poll_wait=5)
            await runner.start()
            try:
                task = await client.submit_task("take your time", agent_id=agent["id"])
                # A renewal each half lease (1 s): by the third, the first lease (2 s) is long over.
                await asyncio.wait_for(enough.wait(), timeout=30)
                assert (await client.get_task(task["id"]))["status"] == "in_progress"
                assert renewals == sorted(renewals)
                release.set()
                done = await client.wait_for_task(task["id"], timeout=60)
                assert done["status"] == "completed" and done["result"] == {"slow": True}
            finally:
                release.set()
                await runner.stop()

    asyncio.run(scenario())


def test_runner_runs_a_task_handed_out_again_while_its_handler_works_once(service: str, owner: agentry.Client) -> None:
    hand_outs: dict[str, int] = {}

    # Every renewal is lost on its way (its node killed): the lease runs out and the task goes back to the queue.
    class LosingClient(agentry.AsyncClient):
        async def renew_task_lease(self, task_id: str, task_token: str) -> Any:
            raise agentry.AgentryNetworkError(f"{service}/v1/tasks/{task_id}/lease", ConnectionResetError("connection reset"))

        async def poll_tasks(self, agent_id: str, **options: Any) -> list[Any]:
            deliveries = await super().poll_tasks(agent_id, **options)
            for delivery in deliveries:
                hand_outs[delivery["taskId"]] = hand_outs.get(delivery["taskId"], 0) + 1
            return deliveries

    async def scenario() -> None:
        release = asyncio.Event()
        runs = 0
        outcomes: list[tuple[str, str]] = []

        async def slow(input: Any, task: agentry.TaskDelivery) -> Any:
            nonlocal runs
            runs += 1
            await release.wait()
            return {"once": True}

        async with LosingClient(service, owner.token) as client:
            agent = await client.register_agent(
                {"name": f"Py unrenewed {time.time_ns()}", "description": "loses its renewals", "deliveryMode": "poll", "protocols": ["rest"], "categories": ["productivity"]}
            )
            agent = agent["agent"]
            # Room for a second task, so the runner polls while the first is in hand.
            runner = agentry.AgentRunner(
                client=client,
                agent_id=agent["id"],
                handler=slow,
                poll_wait=5,
                concurrency=2,
                on_error=lambda error, context: None,
                on_task=lambda task_id, outcome: outcomes.append((task_id, outcome)),
            )
            await runner.start()
            try:
                task = await client.submit_task("run me once", agent_id=agent["id"])
                # A third hand-out comes from a poll the runner sent after it had the second in hand.
                deadline = time.monotonic() + 30
                while hand_outs.get(task["id"], 0) < 3 and runs <= 1:
                    assert time.monotonic() < deadline, f"handed out {hand_outs.get(task['id'], 0)} times, run {runs} times"
                    await asyncio.sleep(0.05)
                assert runs == 1
                release.set()
                done = await client.wait_for_task(task["id"], timeout=60)
                assert done["status"] == "completed" and done["result"] == {"once": True}
                deadline = time.monotonic() + 10
                while not outcomes:
                    assert time.monotonic() < deadline, "the runner never reported the task"
                    await asyncio.sleep(0.05)
                assert outcomes == [(task["id"], "completed")] and runs == 1
            finally:
                release.set()
                await runner.stop()

    asyncio.run(scenario())


def test_runner_does_not_run_again_a_task_handed_out_again_just_before_its_answer_arrived(service: str, owner: agentry.Client) -> None:
    hand_outs: dict[str, int] = {}
    outcomes: list[tuple[str, str]] = []
    release = asyncio.Event()
    held_answer_given = False
    # What the runner held when it polled next, after it had been given the held answer.
    in_hand_at_next_poll: list[int] = []
    runners: list[agentry.AgentRunner] = []

    # Renewals lost, so the lease runs out and a poll takes the task again while the handler works; that
    # poll's answer is slow on its way: it reaches the runner only after the runner has answered the task.
    class LateAnswerClient(agentry.AsyncClient):
        async def renew_task_lease(self, task_id: str, task_token: str) -> Any:
            raise agentry.AgentryNetworkError(f"{service}/v1/tasks/{task_id}/lease", ConnectionResetError("connection reset"))

        async def poll_tasks(self, agent_id: str, **options: Any) -> list[Any]:
            nonlocal held_answer_given
            if held_answer_given and not in_hand_at_next_poll:
                in_hand_at_next_poll.append(runners[0].tasks_in_hand)
            deliveries = await super().poll_tasks(agent_id, **options)
            for delivery in deliveries:
                hand_outs[delivery["taskId"]] = hand_outs.get(delivery["taskId"], 0) + 1
            if not held_answer_given and any(hand_outs[delivery["taskId"]] > 1 for delivery in deliveries):
                release.set()
                deadline = time.monotonic() + 30
                while not outcomes or runners[0].tasks_in_hand > 0:
                    assert time.monotonic() < deadline, "the runner never answered the task"
                    await asyncio.sleep(0.05)
                held_answer_given = True
            return deliveries

    async def scenario() -> None:
        runs = 0

        async def slow(input: Any, task: agentry.TaskDelivery) -> Any:
            nonlocal runs
            runs += 1
            await release.wait()
            return {"once": True}

        async with LateAnswerClient(service, owner.token) as client:
            agent = await client.register_agent(
                {"name": f"Py answered {time.time_ns()}", "description": "answers as its task is handed out again", "deliveryMode": "poll", "protocols": ["rest"], "categories": ["productivity"]}
            )
            agent = agent["agent"]
            # Room for a second task, so the runner polls while the first is in hand.
            runner = agentry.AgentRunner(
                client=client,
                agent_id=agent["id"],
                handler=slow,
                poll_wait=5,
                concurrency=2,
                on_error=lambda error, context: None,
                on_task=lambda task_id, outcome: outcomes.append((task_id, outcome)),
            )
            runners.append(runner)
            await runner.start()
            try:
                task = await client.submit_task("answer me once", agent_id=agent["id"])
                deadline = time.monotonic() + 30
                while not in_hand_at_next_poll:
                    assert time.monotonic() < deadline, f"handed out {hand_outs.get(task['id'], 0)} times, run {runs} times"
                    await asyncio.sleep(0.05)
                assert hand_outs[task["id"]] == 2
                assert in_hand_at_next_poll == [0] and runs == 1
                assert outcomes == [(task["id"], "completed")]
                done = await client.get_task(task["id"])
                assert done["status"] == "completed" and done["result"] == {"once": True}
            finally:
                release.set()
                await runner.stop()

    asyncio.run(scenario())


def test_runner_stops_on_sigterm_and_fails_the_task_in_hand(service: str, owner: agentry.Client, tmp_path: Path) -> None:
    key_path = tmp_path / "agent.key"
    key = agentry.generate_key()
    agentry.save_key(key_path, key)
    agent = poll_agent(owner, pubkey=agentry.public_key_string(key))
    owner.prove_key(agent["id"], key)
    script = tmp_path / "agent.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import sys, time, agentry
            def slow(input, task):
                print("working", flush=True)
                time.sleep(120)
            runner = agentry.AgentRunner(base_url={service!r}, agent_id={agent['id']!r}, key=agentry.load_key({str(key_path)!r}),
                                         handler=slow, poll_wait=5, grace_period=1)
            print("started", flush=True)
            runner.run()
            print("stopped", flush=True)
            """
        )
    )
    child = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "started"
        task = owner.submit_task("slow", agent_id=agent["id"], input={})
        assert child.stdout.readline().strip() == "working"
        child.send_signal(signal.SIGTERM)
        assert child.wait(60) == 0
        assert child.stdout.read().strip() == "stopped"
    finally:
        if child.poll() is None:
            child.kill()
    failed = owner.wait_for_task(task["id"], timeout=30)
    assert failed["status"] == "failed" and "agent_shutdown" in str(failed["error"])


def test_a_webhook_the_service_signed_verifies_and_the_asgi_app_serves_it(service: str, owner: agentry.Client) -> None:
    registered = owner.register_agent(
        {
            "name": f"Py hook {time.time_ns()}",
            "description": "webhook echo",
            "deliveryMode": "webhook",
            "protocols": ["webhook"],
            "categories": ["productivity"],
            "endpoint": "http://127.0.0.1:9/hook",
        }
    )
    agent, secret = registered["agent"], registered["webhook_secret"]
    assert secret and secret.startswith("whsec_")

    async def scenario() -> None:
        async with agentry.AsyncClient(service, owner.token) as client:
            # A first poll opens the listen session (it outlives each poll by a grace period), so the
            # task submitted next comes to the session rather than to the endpoint.
            assert await client.listen_webhooks(agent["id"], wait=0) == []
            task = await client.submit_task("hook me", agent_id=agent["id"], input={"text": "hi"})
            delivery = (await client.listen_webhooks(agent["id"], wait=25))[0]
            verified = agentry.verify_webhook(delivery["headers"], delivery["body"], secret)
            assert verified["taskId"] == task["id"] and verified["input"] == {"text": "hi"}
            with pytest.raises(agentry.WebhookVerificationError):
                agentry.verify_webhook(delivery["headers"], delivery["body"].replace("hi", "ho"), secret)

            runner = agentry.AgentRunner(client=client, agent_id=agent["id"], handler=lambda input, task: {"seen": input["text"]})
            app = runner.asgi_app(secret)
            await runner.start(poll=False)
            sent: list[dict[str, Any]] = []

            async def receive() -> dict[str, Any]:
                return {"type": "http.request", "body": delivery["body"].encode(), "more_body": False}

            async def send(message: Any) -> None:
                sent.append(dict(message))

            headers = [(name.encode(), value.encode()) for name, value in delivery["headers"].items()]
            await app({"type": "http", "method": "POST", "path": "/", "headers": headers}, receive, send)
            assert sent[0]["status"] == 204
            sent.clear()
            await app({"type": "http", "method": "POST", "path": "/", "headers": headers[:1]}, receive, send)
            assert sent[0]["status"] == 401
            done = await client.wait_for_task(task["id"], timeout=30)
            assert done["status"] == "completed" and done["result"] == {"seen": "hi"}
            await runner.stop()
            await client.stop_listening(agent["id"])

    asyncio.run(scenario())


def test_receipts_trust_and_a_verified_log_proof(service: str, owner: agentry.Client) -> None:
    key = agentry.generate_key()
    issuer = agentry.party("py-issuer", agentry.public_key_string(key))
    subject = agentry.party("other", agentry.public_key_string(agentry.generate_key()))
    keys = owner.log_keys()
    older = owner.log_checkpoint()

    def submit() -> dict[str, Any]:
        receipt = agentry.sign_receipt(
            agentry.build_receipt(kind="outcome", task_class="code.review", issuer=issuer, subject=subject, payload={"outcome": "success", "latencyMs": 5, "x-note": "ünï"}),
            key,
        )
        stored: dict[str, Any] = owner.submit_receipt(receipt)["receipt"]
        return {"sent": receipt, "stored": stored}

    first = submit()
    proof = wait_until("the receipt to be logged", lambda: owner.receipt_proof(first["stored"]["receiptId"]), lambda text: text is not None)
    assert proof is not None
    verified = agentry.verify_receipt_proof(proof, keys, receipt=first["sent"])
    assert verified.receipt["receiptId"] == first["sent"]["receiptId"]
    assert agentry.verify_receipt(verified.receipt)
    with pytest.raises(agentry.TlogVerificationError):
        agentry.verify_receipt_proof(proof, keys, receipt={**first["sent"], "taskClass": "other"})

    second = submit()
    wait_until("the second receipt to be logged", lambda: owner.receipt_proof(second["stored"]["receiptId"]), lambda text: text is not None)
    newer = owner.log_checkpoint()
    old_size = agentry.verify_checkpoint(older, keys).size
    new_size = agentry.verify_checkpoint(newer, keys).size
    assert new_size >= old_size + 2
    consistency = owner.log_consistency(old_size, new_size)
    checked_old, checked_new = agentry.verify_consistency(older, newer, consistency, keys)
    assert (checked_old.size, checked_new.size) == (old_size, new_size)
    if old_size > 0:
        with pytest.raises(agentry.TlogVerificationError):
            agentry.verify_consistency(older, newer, consistency[:-1] if consistency else ["A" * 43 + "="], keys)

    listed = [entry["receiptId"] for entry in owner.list_receipts(subject_pubkey=subject["pubkey"], limit=1)]
    assert sorted(listed) == sorted([first["sent"]["receiptId"], second["sent"]["receiptId"]])
    chain = owner.receipt_chain(first["sent"]["correlationId"])
    assert first["sent"]["receiptId"] in str(chain)
    assert owner.trust(subject["pubkey"]) is not None
    explained = owner.explain_trust(subject["pubkey"], "code.review")
    assert isinstance(explained, dict)


def test_discovery_and_social(owner: agentry.Client) -> None:
    agent = poll_agent(owner, name=f"Py translator {time.time_ns()}", description="translates French text into English")
    found = [match for match in owner.discover("translate french to english", limit=5)]
    assert any((match.get("agent") or match).get("id") == agent["id"] for match in found), found
    owner.create_profile(username=f"py{time.time_ns() % 10**9}", display_name="Py Person")
    post = owner.create_post("hello from the Python kit")
    assert "hello from the Python kit" in str(post)
    assert any("hello from the Python kit" in str(item) for item in owner.feed(limit=5))

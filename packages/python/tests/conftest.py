"""The test session: builds the wheel, installs it into a fresh virtual environment (its
dependencies from the machine's wheels) and imports ``agentry`` from there, never from src/; and
starts the real service (``node dist/main.js`` from the repository root) on a free loopback port
with a database of its own."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any, Iterator

import pytest

PACKAGE = Path(__file__).resolve().parent.parent
REPO = PACKAGE.parent.parent
VECTORS = REPO / "test" / "fixtures" / "vectors"
_work = Path(tempfile.mkdtemp(prefix="agentry-py-"))


def _run(*command: str | Path, cwd: Path | None = None) -> str:
    done = subprocess.run([str(part) for part in command], cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, command))} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


def _install_wheel() -> Path:
    """Builds the wheel and installs it into a new virtual environment; answers its site-packages."""
    dist = _work / "dist"
    build = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--retries", "0", "-w", dist, PACKAGE]
    if importlib.util.find_spec("hatchling") is not None:
        build.insert(4, "--no-build-isolation")
    _run(*build)
    wheel = next(dist.glob("agentry_sdk-*.whl"))
    venv = _work / "venv"
    _run(sys.executable, "-m", "venv", venv)
    python = venv / "bin" / "python"
    # The public index may be out of reach: no retries, so pip turns to the machine's wheels at once.
    _run(python, "-m", "pip", "install", "--quiet", "--retries", "0", wheel)
    return Path(_run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").strip())


def pytest_configure(config: pytest.Config) -> None:
    site = _install_wheel()
    sys.path.insert(0, str(site))
    for name in [name for name in sys.modules if name == "agentry" or name.startswith("agentry.")]:
        del sys.modules[name]
    import agentry

    assert Path(agentry.__file__).is_relative_to(site), f"agentry imported from {agentry.__file__}, not the installed wheel"


def pytest_unconfigure(config: pytest.Config) -> None:
    shutil.rmtree(_work, ignore_errors=True)


@pytest.fixture(scope="session")
def vectors() -> dict[str, Any]:
    return dict(json.loads((VECTORS / "sdk-interop.json").read_text()))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="session")
def service() -> Iterator[str]:
    """The base URL of a fresh service (SQLite in a temporary folder)."""
    main = REPO / "dist" / "main.js"
    if not main.exists():
        pytest.exit(f"{main} is missing: run `npm run build` in {REPO} first", returncode=2)
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    data = _work / "service"
    data.mkdir()
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:{data / 'agentry.db'}",
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "PUBLIC_URL": url,
        "LOG_LEVEL": "warn",
        "RATE_LIMIT_MAX": "100000",
        "CREDENTIAL_RATE_LIMIT_MAX": "100000",
        "PROVISIONAL_RATE_LIMIT_MAX": "100000",
        # The tests' webhook agents listen on loopback.
        "ALLOW_PRIVATE_ENDPOINTS": "true",
        "RECEIPT_LOG_INTERVAL_MS": "100",
        # A short poll lease, so a runner renewing it is seen within a test's time.
        "POLL_LEASE_MS": "2000",
    }
    log = open(data / "service.log", "wb")
    child = subprocess.Popen(["node", str(main)], cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while True:
            if child.poll() is not None:
                raise RuntimeError(f"the service exited ({child.returncode}):\n{(data / 'service.log').read_text()}")
            try:
                with urllib.request.urlopen(f"{url}/health", timeout=2) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"the service did not answer /health within 60 s:\n{(data / 'service.log').read_text()}")
            time.sleep(0.1)
        yield url
    finally:
        child.terminate()
        try:
            child.wait(15)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
        log.close()


_accounts = 0


@pytest.fixture
def owner(service: str) -> Iterator[Any]:
    """A sync client signed in as a fresh account."""
    import agentry

    global _accounts
    _accounts += 1
    client = agentry.Client(service)
    session = client.signup(f"py-{os.getpid()}-{_accounts}-{time.time_ns()}@example.test", "correct horse battery")
    client.set_token(session["token"])
    yield client
    client.close()

"""Writes src/agentry/async_client.py from src/agentry/client.py: the same routes, sent with
httpx.AsyncClient. Run it after changing client.py; a test fails while the two differ."""

from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent / "src" / "agentry"


def generate(source: str) -> str:
    # The identity helpers of the sync client have no use here.
    helpers = "def _await(value: Any) -> Any:\n    return value\n\n\ndef _sleep(seconds: float) -> None:\n    time.sleep(seconds)\n\n\n"
    if helpers not in source:
        raise SystemExit("client.py no longer has the _await and _sleep helpers this script expects")
    source = source.replace(helpers, "")
    out = []
    for line in source.split("\n"):
        if line.startswith('"""The HTTP client (sync).'):
            line = '"""The HTTP client (asyncio). Generated from ``client.py`` by ``scripts/gen_async.py``: do not edit;'
        elif line.startswith("``scripts/gen_async.py``: edit this one and regenerate."):
            line = "edit client.py and regenerate."
        elif re.match(r"    def (?!__init__|_headers|set_token)", line) and "# paged" not in line:
            line = line.replace("    def ", "    async def ", 1)
        if "lambda" not in line:
            line = line.replace("self._do(", "await self._do(")
        line = line.replace("_await(", "await (")
        line = re.sub(r"(?<!def )_sleep\(", "await asyncio.sleep(", line)
        line = line.replace("self._http.request(", "await self._http.request(")
        line = line.replace("with self._http.stream(", "async with self._http.stream(")
        line = line.replace("response.read()", "await response.aread()")
        line = line.replace("for line in response.iter_lines()", "async for line in response.aiter_lines()")
        line = line.replace("self._http.close()", "await self._http.aclose()")
        line = line.replace("        self.close()", "        await self.close()")
        line = line.replace("req.read(self._send(req))", "req.read(await self._send(req))")
        line = line.replace("Iterator[dict[str, Any]]", "AsyncIterator[dict[str, Any]]")
        line = line.replace("httpx.Client", "httpx.AsyncClient")
        line = line.replace("class Client:", "class AsyncClient:")
        line = line.replace("-> Client:", "-> AsyncClient:")
        line = line.replace("def __enter__", "def __aenter__").replace("def __exit__", "def __aexit__")
        line = line.replace("PagedList", "AsyncPagedList")
        line = line.replace("from typing import Any, Callable, Iterator,", "from typing import Any, AsyncIterator, Callable,")
        line = line.replace("import time", "import asyncio\nimport time")
        out.append(line)
    return "\n".join(out)


if __name__ == "__main__":
    target = HERE / "async_client.py"
    text = generate((HERE / "client.py").read_text())
    if "--check" in sys.argv:
        sys.exit(0 if target.read_text() == text else "async_client.py differs from client.py: run python scripts/gen_async.py")
    target.write_text(text)

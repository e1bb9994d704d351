"""Lists that page through themselves: iterate for every item of every page, or take ``first()``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Awaitable, Callable, Generator, Generic, Iterator, TypeVar

T = TypeVar("T")


@dataclass
class PageAnswer(Generic[T]):
    """A fetched page: the whole answer, its items, its pagination, and what later pages must send."""

    page: dict[str, Any]
    items: list[T]
    pagination: dict[str, Any]
    carry: dict[str, str] = field(default_factory=dict)


class PagedList(Generic[T]):
    """A list call. ``first()`` is the first page as the service answered it; iterating yields every
    item of every page, fetching the next page when one is used up. The first page is fetched once."""

    def __init__(self, fetch: Callable[[int, dict[str, str]], PageAnswer[T]], start: int = 0) -> None:
        self._fetch = fetch
        self._start = start
        self._first: PageAnswer[T] | None = None

    def _begin(self) -> PageAnswer[T]:
        if self._first is None:
            self._first = self._fetch(self._start, {})
        return self._first

    def first(self) -> dict[str, Any]:
        """The first page's answer (``data``, ``pagination``, ...)."""
        return self._begin().page

    def __iter__(self) -> Iterator[T]:
        answer = self._begin()
        carry = dict(answer.carry)
        while True:
            yield from answer.items
            # An empty page that claims more would otherwise ask for the same offset forever.
            if not answer.pagination.get("hasMore") or not answer.items:
                return
            answer = self._fetch(int(answer.pagination.get("offset", 0)) + len(answer.items), carry)
            carry.update(answer.carry)


class AsyncPagedList(Generic[T]):
    """The async ``PagedList``: ``await lst`` (or ``await lst.first()``) is the first page; ``async for`` every item."""

    def __init__(self, fetch: Callable[[int, dict[str, str]], Awaitable[PageAnswer[T]]], start: int = 0) -> None:
        self._fetch = fetch
        self._start = start
        self._first: PageAnswer[T] | None = None

    async def _begin(self) -> PageAnswer[T]:
        if self._first is None:
            self._first = await self._fetch(self._start, {})
        return self._first

    async def first(self) -> dict[str, Any]:
        return (await self._begin()).page

    def __await__(self) -> Generator[Any, None, dict[str, Any]]:
        return self.first().__await__()

    async def __aiter__(self) -> AsyncIterator[T]:
        answer = await self._begin()
        carry = dict(answer.carry)
        while True:
            for item in answer.items:
                yield item
            if not answer.pagination.get("hasMore") or not answer.items:
                return
            answer = await self._fetch(int(answer.pagination.get("offset", 0)) + len(answer.items), carry)
            carry.update(answer.carry)

/** Lists that page through themselves. Browser-safe. */

/** What every list answer says about where its page stands. */
export interface Paginated {
  pagination: { limit: number; offset: number; hasMore: boolean };
}

/** A page as fetched: the answer, its items, and what later pages must send to see the list as the first page did. */
export interface PageAnswer<T, Page> {
  page: Page;
  items: readonly T[];
  pagination: Paginated['pagination'];
  carry?: Record<string, string>;
}

/**
 * A list call: awaited, it is the first page, as list methods always answered; iterated with
 * `for await`, it yields every item of every page, fetching the next page when one is used up.
 * The first page is fetched once, when first awaited or iterated, and shared by both.
 */
export class PagedList<T, Page> implements PromiseLike<Page>, AsyncIterable<T> {
  /** With `then`, `catch` and `finally`, what makes the list usable wherever a `Promise` of its first page is expected. */
  readonly [Symbol.toStringTag] = 'PagedList';
  private started: Promise<PageAnswer<T, Page>> | null = null;

  /**
   * `fetchPage(offset, carry)` answers the page starting at `offset`; `carry` is what the pages
   * before it asked later pages to send (e.g. the feed's `before`).
   */
  constructor(
    private readonly fetchPage: (offset: number, carry: Record<string, string>) => Promise<PageAnswer<T, Page>>,
    private readonly startOffset: number,
  ) {}

  private start(): Promise<PageAnswer<T, Page>> {
    this.started ??= this.fetchPage(this.startOffset, {});
    return this.started;
  }

  then<A = Page, B = never>(
    onFulfilled?: ((page: Page) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.start()
      .then(({ page }) => page)
      .then(onFulfilled, onRejected);
  }

  catch<B = never>(onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<Page | B> {
    return this.then(undefined, onRejected);
  }

  finally(onFinally?: (() => void) | null): Promise<Page> {
    return this.then().finally(onFinally);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    let answer = await this.start();
    let carry = answer.carry ?? {};
    for (;;) {
      yield* answer.items;
      // An empty page that claims more would otherwise ask for the same offset forever.
      if (!answer.pagination.hasMore || answer.items.length === 0) return;
      answer = await this.fetchPage(answer.pagination.offset + answer.items.length, carry);
      carry = { ...carry, ...answer.carry };
    }
  }
}

/** The most pages of `tools/list` followed, and the most tools kept, before a listing is refused. */
const MAX_LIST_PAGES = 100;
const MAX_LISTED_TOOLS = 10_000;

/** Why a listing stops at `cursor` (its next page), or undefined to go on; remembers the cursor. */
export function listRefusal(server: string, seen: Set<string>, cursor: string, tools: number): string | undefined {
  if (seen.has(cursor)) return `MCP server '${server}' answered tools/list with a nextCursor it had already given (after ${seen.size + 1} pages, ${tools} tools): its listing loops; fix the server's paging`;
  seen.add(cursor);
  if (seen.size >= MAX_LIST_PAGES) return `MCP server '${server}' answered more than ${MAX_LIST_PAGES} pages of tools/list (${tools} tools so far, and a nextCursor still): the most followed; fix the server's paging or import from a server that lists fewer`;
  return undefined;
}

/**
 * Why a listing of `tools` tools in `pages` pages is refused for its size, or undefined: checked after every page,
 * the last included (review S, S8: a single page of 12,000 tools was never counted, and drafted whole).
 */
export function listSizeRefusal(server: string, pages: number, tools: number): string | undefined {
  if (tools <= MAX_LISTED_TOOLS) return undefined;
  return `MCP server '${server}' listed more than ${MAX_LISTED_TOOLS} tools (${tools} in ${pages} page${pages === 1 ? '' : 's'}): the most kept; import from a server that lists fewer`;
}

/** `work`, or a rejection as soon as `signal` aborts (the work itself goes on for whoever else waits for it). */
export function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => (signal.removeEventListener('abort', onAbort), resolve(value)),
      (error: unknown) => (signal.removeEventListener('abort', onAbort), reject(error)),
    );
  });
}

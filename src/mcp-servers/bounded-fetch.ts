/** What an HTTP MCP server's answer may hold: one JSON-RPC message, or one event of its event stream. */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/**
 * `fetch` for the SDK's Streamable HTTP client transport, its answers bounded: a JSON answer to `maxBytes` in all, an
 * event stream to `maxBytes` per event (bytes since the last blank line). The SDK reads a JSON answer whole and parses
 * an event stream without a limit, so a server streaming one endless event grew the gateway's memory without end,
 * even after the call's receipt said it timed out. Past the bound the answer fails, and so does the call.
 */
export function boundedFetch(maxBytes = MAX_ANSWER_BYTES): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (!response.body) return response;
    const perEvent = (response.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream');
    let counted = 0;
    let lineLength = 0;
    const bounded = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          let over = false;
          if (!perEvent) over = (counted += chunk.byteLength) > maxBytes;
          else {
            for (const byte of chunk) {
              // checked at each byte: the blank line ending an event within this chunk must not hide one past the bound
              if (++counted > maxBytes) {
                over = true;
                break;
              }
              if (byte === 0x0a) {
                // a blank line ends an event
                if (lineLength === 0) counted = 0;
                lineLength = 0;
              } else if (byte !== 0x0d) lineLength++;
            }
          }
          if (over) controller.error(new Error(`an answer from the MCP server is larger than ${maxBytes} bytes${perEvent ? ' in one event' : ''}`));
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(bounded, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/**
 * Reads the id of every complete SSE block, those without data too, such as the `id: N` a live `GET /v1/events` stream
 * sends first.
 *
 * The SSE standard has such a block set the last event id (a browser's EventSource sends it on reconnecting), but
 * eventsource-parser dispatches only blocks with data and says nothing of the rest: a client that took its
 * `Last-Event-ID` from dispatched events alone, and had seen none, resumed "after now" and lost what happened while it
 * reconnected (review userZ8, H1). Fed the same text as the parser, after it, this calls `onId` with the id of each
 * block once its blank line arrived (a block cut off mid-way moves nothing), in stream order, so the last call names
 * the last block read, with data or without.
 */
export function blockIds(onId: (id: number) => void): (text: string) => void {
  let partial = '';
  let id: string | undefined;
  return (text) => {
    const lines = (partial + text).split('\n');
    partial = lines.pop()!;
    for (const raw of lines) {
      const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      if (line === '') {
        if (id !== undefined && /^\d{1,15}$/.test(id)) onId(Number(id));
        id = undefined;
      } else if (line.startsWith('id:')) id = line.slice(line.startsWith('id: ') ? 4 : 3);
    }
    // only an id line is read here: a long line (an event's data) is not kept whole as it arrives
    if (partial.length > 64) partial = 'ignored:';
  };
}

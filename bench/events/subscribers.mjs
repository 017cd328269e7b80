// (plain JavaScript: a worker thread does not get tsx's loader on Node 20)
// A worker thread holding some of the benchmark's SSE subscribers, so that parsing 200 streams does not queue behind
// the load generator in one event loop: it records, per receipt, when each subscriber received its receipt.stored.
import { parentPort, workerData } from 'node:worker_threads';
import { createParser } from 'eventsource-parser';

const { url, count } = workerData;
/** @type {Array<{received: Map<string, number>, ids: number[], controller: AbortController}>} */
const subscribers = [];

async function subscribe() {
  const subscriber = { received: new Map(), ids: [], controller: new AbortController() };
  const response = await fetch(`${url}/v1/events?types=receipt.stored`, { headers: { accept: 'text/event-stream' }, signal: subscriber.controller.signal });
  const parser = createParser({
    onEvent: (message) => {
      if (message.event !== 'receipt.stored') return;
      const now = Date.now();
      const event = JSON.parse(message.data);
      subscriber.ids.push(event.id);
      // from when the event was appended (its receipt was stored just before) to now: one machine, one clock
      subscriber.received.set(event.data.receipt, now - Date.parse(event.at));
    },
  });
  void (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body) parser.feed(decoder.decode(chunk, { stream: true }));
    } catch {
      // closed
    }
  })();
  return subscriber;
}

for (let index = 0; index < count; index += 1) subscribers.push(await subscribe());
parentPort.postMessage({ ready: true });
parentPort.on('message', (message) => {
  let lost = 0;
  let outOfOrder = 0;
  const latencies = [];
  for (const subscriber of subscribers) {
    for (const id of message.receipts) {
      const latency = subscriber.received.get(id);
      if (latency === undefined) lost += 1;
      else latencies.push(latency);
    }
    for (let index = 1; index < subscriber.ids.length; index += 1) if (subscriber.ids[index] <= subscriber.ids[index - 1]) outOfOrder += 1;
    subscriber.controller.abort();
  }
  parentPort.postMessage({ lost, outOfOrder, latencies, complete: subscribers.every((subscriber) => message.receipts.every((id) => subscriber.received.has(id))) });
});

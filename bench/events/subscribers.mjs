// (plain JavaScript, run as a child process of bench/events/run.ts: a process of its own, so that parsing 200 streams
// neither queues behind the load generator nor shares its event loop)
// Holds `count` SSE subscribers on GET /v1/events through node:http (its C parser undoes the chunking), splits each
// stream into frames and records, per receipt, when each subscriber received its receipt.stored. The stream is parsed
// as a browser's EventSource would need it: frames end at a blank line, `id:`, `event:` and `data:` lines.
import { Agent, get } from 'node:http';

const [url, countText] = process.argv.slice(2);
const count = Number(countText);
const agent = new Agent({ keepAlive: true, maxSockets: Infinity });

/** One subscriber: its receipt.stored events (receipt id → latency ms) and the ids in the order they came. */
function subscribe() {
  const subscriber = { received: new Map(), ids: [], request: undefined, malformed: 0 };
  return new Promise((resolve, reject) => {
    subscriber.request = get(`${url}/v1/events?types=receipt.stored`, { agent, headers: { accept: 'text/event-stream' } }, (response) => {
      if (response.statusCode !== 200) {
        reject(new Error(`GET /v1/events answered ${response.statusCode}`));
        return;
      }
      response.setEncoding('utf8');
      let pending = '';
      response.on('data', (chunk) => {
        const now = Date.now();
        pending += chunk;
        let end;
        while ((end = pending.indexOf('\n\n')) !== -1) {
          const frame = pending.slice(0, end);
          pending = pending.slice(end + 2);
          if (!frame.includes('\nevent: receipt.stored\n')) continue;
          const data = frame.slice(frame.indexOf('\ndata: ') + 7);
          let event;
          try {
            event = JSON.parse(data);
          } catch {
            subscriber.malformed += 1;
            continue;
          }
          subscriber.ids.push(event.id);
          // from when the event was appended (its receipt was stored just before) to now: one machine, one clock
          subscriber.received.set(event.data.receipt, now - Date.parse(event.at));
        }
      });
      response.on('error', () => undefined);
      resolve(subscriber);
    });
    subscriber.request.on('error', reject);
  });
}

const subscribers = [];
for (let index = 0; index < count; index += 1) subscribers.push(await subscribe());
process.send({ ready: true });
process.on('message', (message) => {
  let lost = 0;
  let outOfOrder = 0;
  let malformed = 0;
  const latencies = [];
  for (const subscriber of subscribers) {
    for (const id of message.receipts) {
      const latency = subscriber.received.get(id);
      if (latency === undefined) lost += 1;
      else latencies.push(latency);
    }
    for (let index = 1; index < subscriber.ids.length; index += 1) if (subscriber.ids[index] <= subscriber.ids[index - 1]) outOfOrder += 1;
    malformed += subscriber.malformed;
    subscriber.request.destroy();
  }
  process.send({ lost, outOfOrder, malformed, latencies }, () => process.exit(0));
});

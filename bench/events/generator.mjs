// (plain JavaScript, run as a child process of bench/events/run.ts, so that nothing else shares its event loop)
// An open-loop load generator: call number i is sent at start + i/rate whatever the answers do, over keep-alive
// connections. It reports the rate it achieved, how late it sent (its own lag, not the server's) and every receipt id.
import { Agent, request } from 'undici';

const [url, rateText, secondsText] = process.argv.slice(2);
const rate = Number(rateText);
const total = Math.round(rate * Number(secondsText));
const dispatcher = new Agent({ connections: 256, pipelining: 1 });
const body = '{"tool":"nop","params":{}}';

async function call() {
  const response = await request(`${url}/v1/call`, { method: 'POST', dispatcher, headers: { 'content-type': 'application/json' }, body });
  const answer = await response.body.json();
  if (response.statusCode !== 200 || !answer.ok) throw new Error(`call failed: ${response.statusCode} ${JSON.stringify(answer)}`);
  return answer.id;
}

const calls = [];
const lateness = [];
const start = performance.now();
for (let index = 0; index < total; index += 1) {
  const due = start + (index * 1000) / rate;
  const wait = due - performance.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  lateness.push(performance.now() - due);
  calls.push(call());
}
const sentSeconds = (performance.now() - start) / 1000;
const receipts = await Promise.all(calls);
const answeredSeconds = (performance.now() - start) / 1000;
lateness.sort((a, b) => a - b);
await dispatcher.close();
process.send({
  receipts,
  // the interval between the first and the last send holds total - 1 gaps
  sent_rate: Number(((total - 1) / sentSeconds).toFixed(1)),
  answered_rate: Number((total / answeredSeconds).toFixed(1)),
  send_lateness_p99_ms: Number(lateness[Math.ceil(0.99 * lateness.length) - 1].toFixed(2)),
}, () => process.exit(0));

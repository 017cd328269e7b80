// What the tests of a call that could hold a real `hldp serve`'s event loop share (test/http/*-held-gateway, the
// params validator's): a shell tool whose params schema is the whole point, and a call sent with a /healthz beside it.
import { request as httpRequest } from 'node:http';
import { makeToolYaml } from './git.js';

/** A `TOOL.hdlp` of a shell tool (`run`, argv `true`) with this params schema, one YAML line each, unindented. */
export function schemaTool(name: string, intent: string, schemaLines: string[]): string {
  return makeToolYaml(name, {
    intent,
    method: 'run',
    executor: 'shell',
    params_schema: ['', ...schemaLines.map((line) => `  ${line}`)].join('\n'),
    shell: "\n  argv: ['true']",
  });
}

/** What `callWithProbe` got: the call's answer, and the status of the /healthz asked once its body was sent. */
export interface ProbedCall {
  call: { status: number; json: Record<string, unknown> };
  healthz: number;
}

/**
 * POSTs `body` to `url`/v1/call and, once it is written to the socket, asks /healthz: both must be answered (a gateway
 * whose event loop the call holds answers neither within the test's bound).
 */
export async function callWithProbe(url: string, body: string): Promise<ProbedCall> {
  let probe: Promise<number> | undefined;
  const call = await new Promise<ProbedCall['call']>((resolve, reject) => {
    const sent = httpRequest(`${url}/v1/call`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, json: JSON.parse(text) as Record<string, unknown> }));
    });
    sent.on('error', reject);
    sent.end(body, () => {
      probe = fetch(`${url}/healthz`).then((answer) => answer.status);
    });
  });
  return { call, healthz: await probe! };
}

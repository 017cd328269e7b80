import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import pino from 'pino';
import { expect } from 'vitest';
import { startServer, type RunningServer } from '../../src/gateway/http/index.js';
import { mountMcp } from '../../src/mcp-front/index.js';
import { COMPONENT_SCHEMAS, openApiDocument } from '../../src/openapi/index.js';
import { makeTestConfig } from './gateway.js';
import { makeTempDir, makeToolYaml, writeFiles } from './git.js';

/** A real gateway server on 127.0.0.1 port 0 over `repo`, state in a temporary folder. */
export async function startTestServer(repo: string, env: NodeJS.ProcessEnv = {}): Promise<RunningServer & { workspace: string; cleanup: () => Promise<void> }> {
  const { config, workspace, cleanup } = await makeTestConfig(repo, { HLDP_PORT: '0', ...env });
  const server = await startServer(config, { logger: pino({ level: 'silent' }), version: 'test', mountMcp });
  return {
    ...server,
    workspace,
    cleanup: async () => {
      await server.close();
      await cleanup();
    },
  };
}

/** A real gateway server over a temporary repository holding one tool, `echo-it` (a shell `echo ok`); cleanup removes both. */
export async function startEchoItServer(): Promise<Awaited<ReturnType<typeof startTestServer>>> {
  const temp = await makeTempDir();
  const repo = join(temp.path, 'repo');
  await writeFiles(repo, { 'tools/echo-it/TOOL.hdlp': makeToolYaml('echo-it', { executor: 'shell', method: 'run', shell: '{ argv: [echo, ok] }' }) });
  const server = await startTestServer(repo);
  return {
    ...server,
    cleanup: async () => {
      await server.cleanup();
      await temp.cleanup();
    },
  };
}

/** A JSON request to the server; returns status, headers and parsed body (text when not JSON). */
export async function request(server: { url: string }, method: string, path: string, options: { body?: unknown; raw?: string; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${server.url}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json: json as any, text };
}

// the formats the product checks (date-time of receipts) are checked here too, not ignored with a warning
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema({ $id: 'openapi', components: { schemas: COMPONENT_SCHEMAS } });
const documented = openApiDocument('test') as { paths: Record<string, Record<string, { responses: Record<string, any> }>> };

/** Asserts that a response's status is documented for the route and its body fits the documented schema. */
export function expectDocumented(route: string, method: string, response: { status: number; json: unknown }): void {
  const operation = documented.paths[route]?.[method.toLowerCase()];
  expect(operation, `${method} ${route} is in the OpenAPI document`).toBeDefined();
  const answer = operation!.responses[String(response.status)];
  expect(answer, `status ${response.status} of ${method} ${route} is documented`).toBeDefined();
  const schema = answer.content?.['application/json']?.schema;
  if (!schema) return;
  const validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components', '"openapi#/components')));
  const valid = validate(response.json);
  expect(valid, `${method} ${route} ${response.status} body fits its schema: ${ajv.errorsText(validate.errors)}`).toBe(true);
}

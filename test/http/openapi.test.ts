import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { createApp, GatewayMetrics, RescanScheduler } from '../../src/gateway/http/index.js';
import { openApiDocument } from '../../src/openapi/index.js';
import { Gateway } from '../../src/gateway/service/index.js';
import { makeTempDir } from '../helpers/git.js';

let gateway: Gateway;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  const temp = await makeTempDir();
  gateway = await Gateway.open({ config: loadConfig({ env: { HLDP_CACHE_DIR: `${temp.path}/cache`, HLDP_DATA_DIR: `${temp.path}/data` } }) });
  cleanup = async () => {
    await gateway.close();
    await temp.cleanup();
  };
});
afterAll(() => cleanup());

/** Every `METHOD /path` the app routes, read from express's own router stack. */
function routesOf(stack: any[]): string[] {
  const routes: string[] = [];
  for (const layer of stack) {
    if (layer.route) {
      for (const method of Object.keys(layer.route.methods)) routes.push(`${method.toUpperCase()} ${String(layer.route.path).replace(/:(\w+)/g, '{$1}')}`);
    } else if (layer.handle?.stack) routes.push(...routesOf(layer.handle.stack));
  }
  return routes;
}

describe('GET /v1/openapi.json', () => {
  it('documents exactly the routes the server has', () => {
    const app = createApp({ gateway, logger: pino({ level: 'silent' }), metrics: new GatewayMetrics(), scheduler: new RescanScheduler(gateway, pino({ level: 'silent' })), version: 'test' });
    const served = routesOf((app as any).router.stack).sort();
    const document = openApiDocument('test') as { paths: Record<string, Record<string, unknown>> };
    // /mcp is mounted by startServer (checked against a running server in api.test.ts)
    const documented = Object.entries(document.paths)
      .filter(([path]) => path !== '/mcp')
      .flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();
    expect(served).toEqual(documented);
  });

  it('is OpenAPI 3.1 with every $ref resolving to a component', () => {
    const document = openApiDocument('1.2.3') as { openapi: string; components: { schemas: Record<string, unknown> } };
    expect(document.openapi).toBe('3.1.0');
    const refs = [...JSON.stringify(document).matchAll(/"\$ref":"#\/components\/schemas\/(\w+)"/g)].map((match) => match[1]!);
    expect(refs.length).toBeGreaterThan(10);
    for (const ref of refs) expect(document.components.schemas, ref).toHaveProperty(ref);
  });
});

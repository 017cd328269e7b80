import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SOURCE = fileURLToPath(new URL('../src/', import.meta.url));

/** Every import and re-export specifier in a top-level source folder. */
function importsOf(folder: string): Array<{ file: string; specifier: string }> {
  const found: Array<{ file: string; specifier: string }> = [];
  for (const file of readdirSync(join(SOURCE, folder), { recursive: true }) as string[]) {
    if (!file.endsWith('.ts')) continue;
    const text = readFileSync(join(SOURCE, folder, file), 'utf8');
    const pattern = /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)/g;
    for (const match of text.matchAll(pattern)) found.push({ file: `${folder}/${file}`, specifier: (match[1] ?? match[2])! });
  }
  return found;
}

/** The top-level folder a relative import from `file` reaches, if it leaves the file's own folder. */
function targetFolder(file: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const parts = file.split('/').slice(0, -1);
  for (const segment of specifier.split('/')) {
    if (segment === '..') parts.pop();
    else if (segment !== '.') parts.push(segment);
  }
  return parts[0] === file.split('/')[0] ? undefined : parts[0];
}

// STYLE.md: everything may use core; scanner → index ← matcher; executors depend on core (and the sandbox they start processes in); one composition root (the gateway), which the command line starts
const ALLOWED: Record<string, string[]> = {
  core: [],
  scanner: ['core'],
  matcher: ['core'],
  executors: ['core', 'sandbox'],
  store: ['core'],
  'http-edge': ['core'],
  gatekeeper: ['core', 'executors', 'http-edge', 'sandbox'],
  export: ['core', 'matcher'],
  sessions: ['core', 'export', 'matcher'],
  // the configuration: the YAML file, the environment and flags, resolved into what each folder is started with
  config: ['core', 'scanner', 'matcher', 'executors', 'sandbox', 'sessions', 'policy', 'mcp-servers'],
  // what the HTTP API checks of a request before a route serves it: its principal, query string and body
  'request-checks': ['core', 'scanner', 'openapi', 'store', 'policy', 'http-edge'],
  // the push webhook's route, which the gateway mounts: it asks the gateway's rescans through an interface of its own
  webhooks: ['core', 'scanner', 'http-edge'],
  // approvals and rejected calls as people and agents read and decide them, and the console's back-end: over the
  // gateway's service as an interface of its own (OversightGateway), since the gateway wires it
  oversight: ['core', 'store', 'export', 'policy', 'openapi', 'http-edge', 'events', 'sessions', 'console', 'matcher', 'request-checks'],
  gateway: ['core', 'config', 'scanner', 'matcher', 'executors', 'gatekeeper', 'store', 'http-edge', 'export', 'sandbox', 'sessions', 'events', 'console', 'policy', 'mcp-servers', 'openapi', 'request-checks', 'oversight', 'webhooks'],
  // the MCP front is built on the gateway's service; the command line wires it (hldp mcp, and /mcp in hldp serve)
  'mcp-front': ['core', 'config', 'export', 'sessions', 'events', 'policy', 'http-edge', 'gateway'],
  cli: ['core', 'config', 'scanner', 'matcher', 'gatekeeper', 'store', 'export', 'sandbox', 'events', 'policy', 'gateway', 'mcp-front'],
  sandbox: ['core'],
  events: ['core', 'store'],
  // the policies' `regex` conditions run on the matcher's linear pattern engine, under its params work budget
  policy: ['core', 'store', 'matcher'],
  // the console is an HTTP surface: it shares the edge's checks (who is at the other end of a connection)
  console: ['core', 'events', 'http-edge'],
  'mcp-servers': ['core', 'executors', 'sandbox'],
  // the document's schemas state core's rules (a match's limit) rather than copy them
  openapi: ['core'],
};

describe('the source tree', () => {
  it('has exactly the folders the dependency rule knows', () => {
    const folders = readdirSync(SOURCE, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
    expect(folders.sort()).toEqual(Object.keys(ALLOWED).sort());
  });

  describe.each(Object.entries(ALLOWED))('when the folder is %s', (folder, allowed) => {
    const imports = importsOf(folder);

    it('imports other folders only as the dependency rule allows', () => {
      const edges = imports.map(({ file, specifier }) => ({ file, specifier, target: targetFolder(file, specifier) })).filter((edge) => edge.target);
      expect(edges.filter((edge) => !allowed.includes(edge.target!)).map((edge) => `${edge.file} -> ${edge.specifier}`)).toEqual([]);
    });

    it('reaches another folder only through its index.ts', () => {
      const edges = imports.filter(({ file, specifier }) => targetFolder(file, specifier));
      expect(edges.filter(({ specifier }) => !/\/[a-z-]+\/index\.js$/.test(specifier)).map(({ file, specifier }) => `${file} -> ${specifier}`)).toEqual([]);
    });

    it('ends every relative import in .js', () => {
      expect(imports.filter(({ specifier }) => specifier.startsWith('.') && !specifier.endsWith('.js'))).toEqual([]);
    });
  });

  it('lets no folder reach itself through the folders it may use', () => {
    // a folder the composition root wires (oversight) sees the gateway through an interface of its own: an entry
    // naming 'gateway' there would let each import the other, which the per-folder checks above would both allow
    const cycles: string[] = [];
    const walk = (folder: string, path: string[]): void => {
      for (const next of ALLOWED[folder] ?? []) {
        if (next === path[0]) cycles.push([...path, next].join(' -> '));
        else if (!path.includes(next)) walk(next, [...path, next]);
      }
    };
    for (const folder of Object.keys(ALLOWED)) walk(folder, [folder]);
    expect(cycles).toEqual([]);
  });

  it('keeps I/O out of core', () => {
    const io = importsOf('core').filter(({ specifier }) => /^(node:)?(fs|child_process|net|http|https|dgram|worker_threads)(\/|$)/.test(specifier) || !specifier.startsWith('.'));
    expect(io).toEqual([]);
  });
});

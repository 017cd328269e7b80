import { ExecutionTargets } from '../gateway/service/index.js';
import { createLogger } from './create-logger.js';
import type { Flags } from './command.js';
import { draftTools } from './mcp-drafts.js';
import { configFromFlags } from './open-registry.js';
import { refreshOver, type Refreshed } from './refresh-definition.js';
import { writeDrafts } from './write-drafts.js';

/** What `hldp import mcp` did. */
export type ImportReport =
  | { ok: true; server: string; written: Array<{ name: string; remote: string; path: string; /** with --force over a definition that existed */ refreshed?: Refreshed }>; skipped: Array<{ name: string; remote: string; path: string }> }
  | { ok: false; message: string; /** 2 when the config is what to fix (no such server), else 1 */ exitCode?: 2 };

// tools/list of a server that has to start first: its own start-up time, and then some
const LIST_TIMEOUT_MS = 60_000;

/** Lists `server`'s tools and writes one draft `TOOL.hdlp` per tool under `out`, never over an existing file unless `force`, which refreshes only the server's fields of one. */
export async function importMcpTools(options: { flags: Flags; server: string; out: string; only: string[]; force: boolean }): Promise<ImportReport> {
  const config = configFromFlags(options.flags, 'optional');
  const servers = Object.keys(config.mcpServers);
  const leftOut = config.secretsLeftOut?.find((part) => part.key.startsWith(`mcp_servers.${options.server}.`));
  // a server whose secret is not in this shell is named as serve would name it: the variable to export
  if (leftOut) return { ok: false, exitCode: 2, message: leftOut.reason };
  if (!config.mcpServers[options.server]) {
    // the config is what to fix: exit 2, as for every other config problem (review R, R14)
    return { ok: false, exitCode: 2, message: `no MCP server named '${options.server}' in the gateway config${servers.length ? ` (configured: ${servers.join(', ')})` : '; add mcp_servers: {<name>: {command, args} | {url}} to the file given with --config or HLDP_CONFIG'}` };
  }
  // the server starts exactly as the gateway would start it: a stdio one inside the same sandbox, under its config's sandbox block
  // (what it cannot enforce on this host is logged on stderr, as `serve` logs it)
  const targets = new ExecutionTargets({ ...config, mcpServers: { [options.server]: config.mcpServers[options.server]! } }, createLogger(config.logLevel));
  try {
    const listed = await targets.mcpServers.listTools(options.server, AbortSignal.timeout(LIST_TIMEOUT_MS));
    if (!listed.ok) return { ok: false, message: listed.message };
    const unknown = options.only.filter((name) => !listed.tools.some((tool) => tool.name === name));
    if (unknown.length) return { ok: false, message: `MCP server '${options.server}' lists no tool ${unknown.map((name) => `'${name}'`).join(', ')}; it lists: ${listed.tools.map((tool) => tool.name).join(', ')}` };
    const tools = options.only.length ? listed.tools.filter((tool) => options.only.includes(tool.name)) : listed.tools;
    const drafts = draftTools(options.server, tools, new Date().toISOString().slice(0, 10));
    const refreshed = new Map<string, Refreshed>();
    if (options.force) {
      for (const draft of drafts) {
        const outcome = await refreshOver(options.out, draft.name, draft.text);
        if (!outcome.ok) return outcome;
        draft.text = outcome.text;
        if (outcome.refreshed) refreshed.set(draft.name, outcome.refreshed);
      }
    }
    const done = await writeDrafts(options.out, drafts, options.force);
    if (!done.ok) return done;
    const written = done.written.map((entry) => ({ ...entry, ...(refreshed.has(entry.name) ? { refreshed: refreshed.get(entry.name)! } : {}) }));
    return { ok: true, server: options.server, written, skipped: done.skipped };
  } finally {
    await targets.close();
  }
}

import { isAbsolute, relative } from 'node:path';
import type { McpCallOutcome } from '../executors/index.js';
import type { Sandbox } from '../sandbox/index.js';
import { failureText } from './network-note.js';
import type { McpServerConfig } from './server-config.js';

// what Node (EACCES: permission denied, open '…'), Python (PermissionError: [Errno 13] Permission denied: '…') and
// the C library say when the user a process runs as may not open, make or change a file
const PERMISSION_FAILURE = /\bEACCES\b|\bEPERM\b|permission denied|operation not permitted/i;
// the path a failure names: Node's "…, open '/srv/shared/c.txt'", Python's "…: '/srv/shared/c.txt'"
const QUOTED_PATH = /'(\/[^'\n]*)'|"(\/[^"\n]*)"/;

/**
 * One line for a failed call's receipt when a root gateway runs the server as `sandbox.run_as` (nobody by default) and
 * its failure reads as a file that user may not touch: the raw error says "EACCES: permission denied", the folder is
 * root's as a fresh `mkdir` made it, and the operator reads the server's bug or the sandbox's (review userZ4, F13).
 * Names the user, the path where the error gives one, and the declared `write` folder it lies under. Undefined
 * otherwise; the raw error is never changed.
 */
export function permissionNote(name: string, config: McpServerConfig, sandbox: Sandbox | undefined, outcome: McpCallOutcome): string | undefined {
  const runAs = sandbox?.status.runAs;
  if (config.transport !== 'stdio' || runAs === undefined || runAs.uid === 0) return undefined;
  const text = failureText(outcome);
  if (!PERMISSION_FAILURE.test(text)) return undefined;
  const quoted = QUOTED_PATH.exec(text);
  const path = quoted?.[1] ?? quoted?.[2];
  const under = path === undefined ? undefined : (config.sandbox?.filesystem?.write ?? []).find((folder) => isAbsolute(folder) && isWithin(folder, path));
  const user = runAs.name ?? String(runAs.uid);
  const where = path === undefined ? 'a file' : `'${path}'${under === undefined ? '' : `, under its declared mcp_servers.${name}.sandbox.filesystem.write '${under}'`}`;
  return (
    `MCP server '${name}' runs as uid ${runAs.uid}, gid ${runAs.gid}${runAs.name ? ` (${runAs.name})` : ''} (sandbox.run_as), who was refused ${where}: ` +
    `a folder it writes must be writable by that user (install -d -o ${user} ${under ?? 'FOLDER'}, or chown -R ${user} it), or set sandbox.run_as to a user who may`
  );
}

function isWithin(folder: string, path: string): boolean {
  const inside = relative(folder, path);
  return inside === '' || (!inside.startsWith('..') && !isAbsolute(inside));
}

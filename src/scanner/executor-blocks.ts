import type { SchemaProblem } from './shape-checker.js';

// each executor's own block: the only one of these a tool of that executor reads
const BLOCK_OF_EXECUTOR: Readonly<Record<string, string>> = {
  shell: 'shell',
  gatekeeper: 'gatekeeper',
  'hldp-api': 'http',
  'hlpd-api': 'http',
  'git-forgejo': 'forgejo',
  mcp: 'mcp',
};

const EXECUTOR_OF_BLOCK: Readonly<Record<string, string>> = {
  shell: 'shell',
  gatekeeper: 'gatekeeper',
  http: 'hldp-api',
  forgejo: 'git-forgejo',
  mcp: 'mcp',
};

/**
 * Another executor's block on a tool (`http:` on a shell tool, say), at its key: the executor never reads it, so an
 * author who switched executor, or copied a definition, would believe a block is in force that is ignored.
 */
export function strayExecutorBlocks(value: Record<string, unknown>): SchemaProblem[] {
  const executor = value.executor;
  if (typeof executor !== 'string' || !Object.hasOwn(BLOCK_OF_EXECUTOR, executor)) return [];
  const own = BLOCK_OF_EXECUTOR[executor];
  return Object.keys(value)
    .filter((block) => block !== own && Object.hasOwn(EXECUTOR_OF_BLOCK, block))
    .map((block) => ({
      path: [block],
      atKey: true,
      message: `'${block}' is for executor ${EXECUTOR_OF_BLOCK[block]}; this tool's executor is ${executor}: remove it`,
    }));
}

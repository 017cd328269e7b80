import { readFileSync } from 'node:fs';
import { JSON_OPTION, REPOSITORY_OPTIONS, REPOSITORY_USAGE, type Command } from '../command.js';
import { UsageError } from '../usage-error.js';
import { parseTimeout, TIMEOUT_OPTION } from '../timeout-option.js';

/** `hldp call`: run a registered tool and print its receipt (the raw output on stdout). */
export const callCommand: Command = {
  name: 'call',
  usage: `TOOL [--params JSON|@FILE|-] [--timeout MS] ${REPOSITORY_USAGE} [--json]`,
  summary: 'run a registered tool; prints the receipt (exit 0 when it says ok, 3 when it waits for confirmation)',
  options: { ...REPOSITORY_OPTIONS, ...JSON_OPTION, ...TIMEOUT_OPTION, params: { type: 'string', short: 'p' } },
  maxPositionals: 1,
  async run(flags, positionals, io) {
    const tool = positionals[0];
    if (!tool) throw new UsageError(`call needs a tool name, e.g. hldp call shell-exec --params '{"cmd":"echo hello"}'`);
    const params = readParams(flags.params, tool);
    const deadline = parseTimeout(flags.timeout);
    const { cliCaller, withGateway } = await import('../with-gateway.js');
    const { runInterruptible } = await import('../interrupt.js');
    return withGateway(flags, io, async (gateway) => {
      const { printOutcome } = await import('../format-outcome.js');
      const { warnIfStale } = await import('../stale-index.js');
      const { stale } = gateway.registry.index;
      warnIfStale(gateway.registry.index, io);
      // only the secrets of the tool's own target are needed: a missing one is named, not any other (review userW, W6)
      const { missingTargetSecret, ConfigError } = await import('../../config/index.js');
      const lookup = gateway.registry.matcher.lookup(tool, {});
      const missing = lookup.found ? missingTargetSecret(lookup.tool, gateway.config) : undefined;
      if (missing) throw new ConfigError(missing.key, missing.reason);
      // Ctrl-C or SIGTERM cancels the call: its CANCELLED receipt is stored and printed before the CLI exits
      return runInterruptible(async (signal) => printOutcome(await gateway.call(tool, params, { ...deadline, caller: cliCaller(gateway), signal }), io, Boolean(flags.json), stale));
    }, 'optional');
  },
};

/** `--params` as inline JSON, `@file`, or `-` for stdin; must be a JSON object. */
function readParams(value: string | boolean | undefined, tool: string): Record<string, unknown> {
  if (value === undefined || typeof value === 'boolean') return {};
  // a file or stdin a Windows editor wrote starts with a byte order mark, which JSON refuses and definitions are read past (review userZ10, U10-16)
  const text = (value === '-' ? readFileSync(0, 'utf8') : value.startsWith('@') ? readParamsFile(value.slice(1)) : value).replace(/^\uFEFF/, '');
  let params: unknown;
  try {
    params = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--params is not valid JSON (${(error as Error).message}); pass a JSON object of '${tool}''s params, as '{"name": "value"}' (its INVALID_PARAMS answer names the params it expects)`);
  }
  if (typeof params !== 'object' || params === null || Array.isArray(params)) throw new UsageError('--params must be a JSON object');
  return params as Record<string, unknown>;
}

// the option and the file named, not a bare `ENOENT: ... open 'x'` (review userU, F9)
function readParamsFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`--params @${file}: cannot read '${file}' (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); give a file holding the params' JSON object, or the JSON itself`);
  }
}

import type { Receipt } from '../../core/index.js';
import type { ReceiptStore } from '../../store/index.js';
import { JSON_OPTION, REPOSITORY_OPTIONS, REPOSITORY_USAGE, writeJson, writeLines, type Command, type CommandIo, type Flags } from '../command.js';
import { terminalSafe } from '../terminal-safe.js';
import { UsageError } from '../usage-error.js';

// a prefix this long is what people copy from a summary line; shorter ones match too much to be an id
const SHORTEST_PREFIX = 8;
const AMBIGUOUS_SHOWN = 10;

/** `hldp receipts`: stored receipts, newest first; with an id (or its first 8+ characters), one receipt in full; `verify` walks the hash chain. */
export const receiptsCommand: Command = {
  name: 'receipts',
  usage: `[ID|PREFIX | verify] [--failed|--ok|--rejected] [--tool T] [--since ISO] [--limit N] [--offset N] ${REPOSITORY_USAGE} [--json]`,
  summary: 'read stored receipts, newest first (one in full with its id or its first 8+ characters); --rejected: calls refused before they ran; verify checks their hash chain',
  options: {
    ...JSON_OPTION,
    ...REPOSITORY_OPTIONS,
    failed: { type: 'boolean' },
    ok: { type: 'boolean' },
    rejected: { type: 'boolean' },
    tool: { type: 'string' },
    since: { type: 'string' },
    limit: { type: 'string', short: 'n' },
    offset: { type: 'string' },
  },
  optionHelp: { tool: "T: only this tool's receipts (an alias, or the name in another letter case, is looked up in the registry --config or --repo names when it finds none)", repo: 'R: the registry whose aliases --tool may name', limit: 'N: at most N receipts, newest first (default 20, at most 1000)', config: 'FILE: the gateway config, for its store (data_dir, receipts_db or store.url)' },
  maxPositionals: 1,
  async run(flags, positionals, io) {
    if ([flags.failed, flags.ok, flags.rejected].filter(Boolean).length > 1) throw new UsageError('--failed, --ok and --rejected exclude each other');
    const limit = integerFlag('--limit', flags.limit, 20, 1, 1000);
    const offset = integerFlag('--offset', flags.offset, 0, 0, Number.MAX_SAFE_INTEGER);
    if (typeof flags.since === 'string' && Number.isNaN(Date.parse(flags.since))) throw new UsageError('--since must be an ISO date or time, e.g. 2026-11-29T10:00:00Z');
    const { configFromFlags } = await import('../open-registry.js');
    const { openConfiguredStore } = await import('../../gateway/service/index.js');
    const { readStore } = await import('../read-store.js');
    // a store that does not exist is said and read as an empty one, never created (review userZ, Z4)
    const { config, name: database, missing } = readStore(configFromFlags(flags, 'optional'), io);
    const store = await openConfiguredStore(config);
    try {
      if (positionals[0] === 'verify') {
        const { printChainReport } = await import('../print-chain-report.js');
        return printChainReport(await store.receipts.verify(), io, flags.json === true, missing ? undefined : database);
      }
      const id = positionals[0];
      if (flags.rejected) {
        if (id) throw new UsageError('--rejected lists; it takes no id');
        // a call refused after its name resolved is kept under the tool's name, as its receipts are: --tool ALIAS found
        // none, where GET /v1/rejections?tool= and the console find them (review userZ11, U11-13's CLI)
        const { page, named } = await underKeptName(flags, io, 'rejected calls', (tool) => store.rejections.list({ limit: limit + 1, offset, ...(tool !== undefined ? { tool } : {}), ...(typeof flags.since === 'string' ? { since: flags.since } : {}) }));
        const rejections = page.slice(0, limit);
        if (flags.json) writeJson(io, { rejections, limit, offset, next_offset: page.length > limit ? offset + limit : null });
        // the tool name is whatever an agent sent, the reason may quote it: neither may steer the operator's terminal
        else writeLines(io.stdout, rejections.map((entry) => terminalSafe(`${entry.at}  rejected  ${entry.tool}  ${entry.code}  by ${entry.caller ?? '-'}  ${firstLine(entry.reason)}`)));
        if (rejections.length === 0 && !missing) io.stderr.write(terminalSafe(`no rejected calls${filtersSaid(flags, offset)} in ${database}${elsewhere(flags, named, 'rejected calls')}`) + '\n');
        return 0;
      }
      if (id) return await showOne(store.receipts, id, io, Boolean(flags.json), database);
      const { summaryLine } = await import('../format-outcome.js');
      // one more than asked says whether another page follows, as GET /v1/receipts does
      const list = (tool: string | undefined) => store.receipts.list({
        limit: limit + 1,
        offset,
        ...(flags.failed ? { status: 'failed' as const } : flags.ok ? { status: 'ok' as const } : {}),
        ...(tool !== undefined ? { tool } : {}),
        ...(typeof flags.since === 'string' ? { since: flags.since } : {}),
      });
      const { page, named } = await underKeptName(flags, io, 'receipts', list);
      const receipts = page.slice(0, limit);
      if (flags.json) writeJson(io, { receipts, limit, offset, next_offset: page.length > limit ? offset + limit : null });
      // a failure's error is the tool's own stderr: shown terminal-safe
      else writeLines(io.stdout, receipts.map((receipt) => terminalSafe(`${receipt.started_at}  ${summaryLine(receipt)}${errorHead(receipt)}`)));
      // "nothing failed" and "another, empty store" must not look alike: say where it looked, and with which filters
      if (receipts.length === 0 && !missing) io.stderr.write(terminalSafe(`no receipts${filtersSaid(flags, offset)} in ${database}${elsewhere(flags, named, 'receipts')}`) + '\n');
      return 0;
    } finally {
      await store.close();
    }
  },
};

/**
 * The page `list` gives for `--tool` as given, or, when that is empty and the registry this command reads resolves
 * the name to another tool's (an alias, another letter case, any spelling a call folds), the page of that tool, said on
 * stderr. Receipts and rejections are both kept under the name a call resolved to (review userZ10, U10-20; userZ11,
 * U11-13). The registry is read only when the name as given finds none: one the gateway does not serve (the starter
 * tools, without --repo) may give the name to another tool.
 */
async function underKeptName<Row>(flags: Flags, io: CommandIo, what: string, list: (tool: string | undefined) => Promise<Row[]>): Promise<{ page: Row[]; named: { tool?: string; source: string } | undefined }> {
  const given = typeof flags.tool === 'string' ? flags.tool : undefined;
  const page = await list(given);
  const named = page.length === 0 && given !== undefined ? await toolCalled(flags, given) : undefined;
  if (named?.tool === undefined) return { page, named };
  io.stderr.write(terminalSafe(`'${given}' names tool '${named.tool}' in ${named.source}: its ${what}, kept under that name`) + '\n');
  return { page: await list(named.tool), named };
}

/** What an empty page adds when `--tool` names no tool of the registry read: where to look instead. */
function elsewhere(flags: Flags, named: { tool?: string; source: string } | undefined, what: string): string {
  return named !== undefined && named.tool === undefined ? `; ${what} are kept under a tool's name, and '${String(flags.tool)}' names no tool of ${named.source}: name the tool, or pass the gateway's --config or --repo` : '';
}

/**
 * The tool a call of `name` runs in the registry this command reads (`--config`, `--repo`, else as hldp call reads
 * one), when that is another name: an alias, or the name in another letter case; `tool` undefined when it names none
 * there. Undefined when the registry cannot be read.
 */
async function toolCalled(flags: Flags, name: string): Promise<{ tool?: string; source: string } | undefined> {
  try {
    const { scanFromFlags } = await import('../open-registry.js');
    const { createToolResolver, keptName } = await import('../../matcher/index.js');
    const { findTool } = await import('../../core/index.js');
    const index = await scanFromFlags(flags);
    // the name the store keeps such a call under, as GET /v1/receipts?tool= and /v1/rejections?tool= resolve it
    const tool = keptName(createToolResolver(index), name);
    if (tool !== name) return { tool, source: index.source };
    return findTool(index, name) ? undefined : { source: index.source };
  } catch {
    return undefined;
  }
}

/** One receipt in full, by its id or an unambiguous prefix of it; an ambiguous prefix lists the receipts it matches. */
async function showOne(receipts: ReceiptStore, id: string, io: CommandIo, json: boolean, database: string): Promise<number> {
  const { receiptDetail, summaryLine } = await import('../format-outcome.js');
  let receipt = await receipts.get(id);
  if (!receipt && id.length >= SHORTEST_PREFIX) {
    const matches = await receipts.findByPrefix(id, AMBIGUOUS_SHOWN + 1);
    if (matches.length > 1) {
      const message = `'${id}' starts ${matches.length > AMBIGUOUS_SHOWN ? `more than ${AMBIGUOUS_SHOWN}` : matches.length} receipts; give more of the id`;
      // --json answers on stdout whatever the outcome: a script piping it to jq got empty input (review R, R21)
      if (json) writeJson(io, { code: 'AMBIGUOUS_RECEIPT_PREFIX', error: message, matches: matches.slice(0, AMBIGUOUS_SHOWN).map((match) => match.id) });
      io.stderr.write(`${message}:\n`);
      writeLines(io.stderr, matches.slice(0, AMBIGUOUS_SHOWN).map((match) => terminalSafe(`  ${match.id}  ${match.started_at}  ${summaryLine(match)}`)));
      return 1;
    }
    receipt = matches[0];
  }
  if (!receipt) {
    const hint = id.length < SHORTEST_PREFIX ? `; give the whole id or at least its first ${SHORTEST_PREFIX} characters` : '';
    if (json) writeJson(io, { code: 'RECEIPT_NOT_FOUND', error: `no receipt '${id}' in ${database}${hint}` });
    io.stderr.write(`no receipt '${id}' in ${database}${hint}\n`);
    return 1;
  }
  if (json) writeJson(io, receipt);
  // a receipt opened in full is printed terminal-safe, its lines and tabs kept (review R, R18); --json as stored
  else io.stdout.write(`${receiptDetail(receipt)}\n`);
  return 0;
}

// the first line of a failure's error, so a list says why without opening each receipt
function errorHead(receipt: Receipt): string {
  if (receipt.ok || !receipt.error) return '';
  const line = receipt.error.split('\n').find((text) => text.trim() !== '') ?? '';
  return line === '' ? '' : `  — ${line.length > 100 ? `${line.slice(0, 100)}…` : line}`;
}

/** The filters a list was read with, for the line that says it found nothing: ` (failed, tool=x, since …)`. */
function filtersSaid(flags: Record<string, string | boolean | undefined>, offset: number): string {
  const said = [flags.failed ? 'failed' : flags.ok ? 'ok' : '', typeof flags.tool === 'string' ? `tool=${flags.tool}` : '', typeof flags.since === 'string' ? `since ${flags.since}` : '', offset > 0 ? `from offset ${offset}` : ''].filter(Boolean);
  return said.length === 0 ? '' : ` (${said.join(', ')})`;
}

function integerFlag(name: string, value: string | boolean | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (typeof value !== 'string' || !/^\d+$/.test(value) || !Number.isSafeInteger(number) || number < min || number > max) throw new UsageError(`${name} must be an integer from ${min} to ${max}`);
  return number;
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

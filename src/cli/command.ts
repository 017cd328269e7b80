import type { ParseArgsConfig } from 'node:util';
import { terminalSafe } from './terminal-safe.js';

/** Where a command writes: stdout for results (one JSON document with --json), stderr for everything else. */
export interface CommandIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** Parsed flags: strings and booleans by name. */
export type Flags = Record<string, string | boolean | undefined>;

/** One `hldp` subcommand. */
export interface Command {
  name: string;
  /** `hldp <name> <usage>` */
  usage: string;
  summary: string;
  options: NonNullable<ParseArgsConfig['options']>;
  /** what an option means where it means something other than the shared text of `option-help.ts` */
  optionHelp?: Record<string, string>;
  /** how many positionals at most (Infinity for a list) */
  maxPositionals: number;
  /** resolves to the exit status: 0 did what was asked, 1 did not (e.g. a failed call), 2 could not start */
  run(flags: Flags, positionals: string[], io: CommandIo): Promise<number>;
}

/** Flags every command that reads a repository takes. */
export const REPOSITORY_OPTIONS = {
  repo: { type: 'string', short: 'r' },
  ref: { type: 'string' },
  token: { type: 'string' },
  config: { type: 'string', short: 'c' },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

/** How a usage line shows `REPOSITORY_OPTIONS`. */
export const REPOSITORY_USAGE = '[--repo R] [--ref REF] [--token T] [--config FILE]';

/** `--json`. */
export const JSON_OPTION = { json: { type: 'boolean' } } as const satisfies NonNullable<ParseArgsConfig['options']>;

/** Writes one JSON document and a newline. */
export function writeJson(io: CommandIo, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/**
 * Writes lines of text for a person: each line (an entry holding line feeds is several) through `terminalSafe`, so
 * that what a definition, an agent or a tool wrote into them (a `display`, an `intent`, a diagnostic quoting a
 * `TOOL.hdlp`, a request's text) cannot steer the terminal, reorder or hide what is read. What must stay exact goes
 * to the stream itself (`hldp call`'s output, a receipt opened in full) or through `writeJson`.
 */
export function writeLines(stream: NodeJS.WritableStream, lines: string[]): void {
  if (lines.length) stream.write(`${lines.flatMap((line) => line.split('\n')).map(terminalSafe).join('\n')}\n`);
}

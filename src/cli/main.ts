import { parseArgs } from 'node:util';
import type { Command, CommandIo } from './command.js';
import { COMMANDS } from './commands/index.js';
import { UsageError } from './usage-error.js';

const PROCESS_IO: CommandIo = { stdout: process.stdout, stderr: process.stderr };

/** Runs `hldp <command> ...` and resolves to the exit status. */
export async function main(argv: string[], io: CommandIo = PROCESS_IO): Promise<number> {
  const [name, ...rest] = argv;
  // no command at all is a usage error (exit 2, README), the overview on stderr; asked for, it is the answer
  if (name === undefined) {
    io.stderr.write(overview());
    return 2;
  }
  if (name === 'help' && rest.length > 0) return main([...rest.slice(0, 1), '--help', ...rest.slice(1)], io);
  if (name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(overview());
    return 0;
  }
  if (name === '--version' || name === '-V') {
    io.stdout.write(`${await version()}\n`);
    return 0;
  }
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (!command) {
    const names = COMMANDS.map((candidate) => candidate.name);
    const { nearWord } = await import('../core/index.js');
    const near = nearWord(name, names);
    io.stderr.write(`hldp: unknown command '${name}'${near ? ` (did you mean ${near}?)` : ''}; commands: ${names.join(', ')}\n`);
    return 2;
  }
  try {
    const { values, positionals } = parseArgs({
      args: rest,
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: command.maxPositionals > 0,
      strict: true,
    });
    if (values.help) {
      const { commandHelp } = await import('./option-help.js');
      io.stdout.write(commandHelp(command));
      return 0;
    }
    if (positionals.length > command.maxPositionals) throw new UsageError(`too many arguments: ${positionals.slice(command.maxPositionals).join(' ')}`);
    return await command.run(values, positionals, io);
  } catch (error) {
    return await reportFailure(command, error, io);
  }
}

// errors a user can fix: printed as one line, never as a stack (checked by name so that --help loads no module)
const USER_ERRORS = new Set(['ScanError', 'ConfigError', 'UsageError', 'StoreError']);

async function reportFailure(command: Command, error: unknown, io: CommandIo): Promise<number> {
  if (error instanceof Error && USER_ERRORS.has(error.name)) {
    const { terminalSafe } = await import('./terminal-safe.js');
    // the message may quote a remote (a git server's ERR line, an HTTP answer): the terminal is the operator's
    io.stderr.write(`hldp ${command.name}: ${error.message.split('\n').map(terminalSafe).join('\n')}\n`);
    return 2;
  }
  const code = (error as { code?: string }).code;
  if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
    const message = code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? await unknownOption(command, (error as Error).message) : (error as Error).message;
    io.stderr.write(`hldp ${command.name}: ${message}\nusage: hldp ${command.name} ${command.usage}\n`);
    return 2;
  }
  throw error;
}

// `--timout` was refused without a word of `--timeout` (review userU): the option meant, when one is near
async function unknownOption(command: Command, message: string): Promise<string> {
  const typed = /^Unknown option '(--[^'=]+)/.exec(message)?.[1];
  if (typed === undefined) return message;
  const { nearWord } = await import('../core/index.js');
  const near = nearWord(typed, [...Object.keys(command.options), 'help'].map((option) => `--${option}`));
  return near ? `unknown option '${typed}'; did you mean ${near}?` : message;
}

function overview(): string {
  const width = Math.max(...COMMANDS.map((command) => command.name.length));
  return [
    'hldp: a git-native registry and execution gateway for the tools of LLM agents',
    '',
    'usage: hldp <command> [options]',
    '',
    ...COMMANDS.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`),
    '',
    'R (--repo) is a folder holding tools/, a local git repository, or an http(s) git URL; default: the embedded native-repo/.',
    'Run hldp <command> --help (or hldp help <command>) for its options.',
    '',
  ].join('\n');
}

async function version(): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  const manifest = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}

import { constants } from 'node:os';

// the first name of each number: SIGABRT before SIGIOT, SIGIO before SIGPOLL
const SIGNAL_NAMES = new Map<number, string>();
for (const [name, number] of Object.entries(constants.signals)) if (!SIGNAL_NAMES.has(number)) SIGNAL_NAMES.set(number, name);

/**
 * The tool's end from a launcher's status: bubblewrap and a shell report a death by signal N as status 128+N,
 * so such a status is read as that signal (a program that exits with it on purpose is read the same way).
 */
export function decodeStatus(exitCode: number | null, signal: string | null): { exitCode: number | null; signal: string | null } {
  if (exitCode === null || exitCode <= 128) return { exitCode, signal };
  const name = SIGNAL_NAMES.get(exitCode - 128);
  return name === undefined ? { exitCode, signal } : { exitCode: null, signal: name };
}

import { readdirSync, readFileSync } from 'node:fs';

/** Whether a process is still alive: not gone, and not a zombie waiting to be reaped. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // the state follows the parenthesised command name in /proc/<pid>/stat
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Pids of live processes whose command line contains `marker`. */
export function processesMatching(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const commandLine = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (commandLine.includes(marker) && isAlive(Number(entry))) found.push(Number(entry));
    } catch {
      // gone while we looked
    }
  }
  return found;
}

/** Pids of live processes whose whole command line is `commandLine` (arguments joined by spaces). */
export function processesRunning(commandLine: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const own = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').trimEnd();
      if (own === commandLine && isAlive(Number(entry))) found.push(Number(entry));
    } catch {
      // gone while we looked
    }
  }
  return found;
}

/** A `sleep` of about an hour whose argument is unique to this call, so its processes can be found by `marker`. */
export function uniqueSleep(): { command: string; marker: string } {
  const marker = `${3000 + Math.floor(Math.random() * 600)}.${String(process.pid % 1000).padStart(3, '0')}${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`;
  return { command: `sleep ${marker}`, marker: `sleep ${marker}` };
}

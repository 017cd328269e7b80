import { closeSync } from 'node:fs';
import type { LaunchPlan } from './sandbox.js';

/** One of the gateway's descriptors for a launcher, and the number the launcher gets it at. */
export interface PassedDescriptor {
  at: number;
  fd: number;
}

/** A spawn's `stdio`: `head` (the standard streams and the launcher's own pipes), then each passed descriptor at its number, holes ignored. */
export function stdioWith<T>(head: readonly T[], passed: readonly PassedDescriptor[] = []): Array<T | 'ignore' | number> {
  const stdio: Array<T | 'ignore' | number> = [...head];
  for (const { at, fd } of [...passed].sort((a, b) => a.at - b.at)) {
    if (at < stdio.length) throw new Error(`descriptor ${at} of a launcher is taken already`);
    while (stdio.length < at) stdio.push('ignore');
    stdio.push(fd);
  }
  return stdio;
}

/** A runner's `stdio` for a plan: `head`, then what the plan passes the launcher. */
export function planStdio<T>(plan: LaunchPlan, head: readonly T[]): Array<T | 'ignore' | number> {
  return stdioWith(head, plan.passed?.fds);
}

/** Closes the gateway's copies of what a plan passes its launcher, once (a closed number is soon another file's). */
export function closePassed(plan: LaunchPlan): void {
  const passed = plan.passed;
  if (passed === undefined) return;
  const { fds } = passed;
  passed.fds = [];
  for (const { fd } of fds) closeSync(fd);
}

import { mkdir, readdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** A pids cgroup of one run: its processes file, the forks it refused, and its removal. */
export interface RunCgroup {
  /** write a pid here to put that process (and what it forks) in the cgroup */
  procs: string;
  /** sets its maximum of processes (a launcher started ahead of its run gets its run's maximum when taken) */
  limit(maximum: number): void;
  /** how many forks the limit refused */
  refusals(): number;
  /** removes the cgroup once its processes are gone */
  release(): Promise<void>;
}

/** Where this process may make pids cgroups, one per run. */
export interface PidsCgroups {
  /** the folder holding this process's run cgroups */
  parent: string;
  create(maximum: number): RunCgroup;
  /** the same off the event loop: making a cgroup (v1) can wait for an RCU grace period, milliseconds under load */
  createInBackground(maximum: number): Promise<RunCgroup>;
}

/** A pids controller this process can use, or why there is none. */
export type PidsCgroupProbe = { ok: true; cgroups: PidsCgroups } | { ok: false; reason: string };

interface Hierarchy {
  mountPoint: string;
  mountRoot: string;
  version: 1 | 2;
}

async function findHierarchy(): Promise<Hierarchy | undefined> {
  const mounts = await readFile('/proc/self/mountinfo', 'utf8').catch(() => '');
  let unified: Hierarchy | undefined;
  for (const line of mounts.split('\n')) {
    const [left, right] = line.split(' - ');
    if (!left || !right) continue;
    const fields = left.split(' ');
    const [type, , options] = right.split(' ');
    if (type === 'cgroup' && options?.split(',').includes('pids')) return { mountPoint: fields[4]!, mountRoot: fields[3]!, version: 1 };
    if (type === 'cgroup2') unified ??= { mountPoint: fields[4]!, mountRoot: fields[3]!, version: 2 };
  }
  if (!unified) return undefined;
  const controllers = await readFile(join(unified.mountPoint, 'cgroup.controllers'), 'utf8').catch(() => '');
  return controllers.split(/\s+/).includes('pids') ? unified : undefined;
}

async function ownFolder(hierarchy: Hierarchy): Promise<string | undefined> {
  const lines = (await readFile('/proc/self/cgroup', 'utf8').catch(() => '')).split('\n');
  const line = lines.find((text) => (hierarchy.version === 2 ? text.startsWith('0::') : text.split(':')[1]?.split(',').includes('pids')));
  const path = line?.split(':').slice(2).join(':');
  if (path === undefined) return undefined;
  return join(hierarchy.mountPoint, relative(hierarchy.mountRoot, path));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

// cgroups left by a gateway that died without cleaning up: empty by now (their PID namespaces died with it)
async function sweep(folder: string): Promise<void> {
  for (const name of await readdir(folder).catch(() => [] as string[])) {
    const pid = /^brush-holder-(\d+)$/.exec(name)?.[1];
    if (pid === undefined || Number(pid) === process.pid || isAlive(Number(pid))) continue;
    const stale = join(folder, name);
    for (const run of await readdir(stale).catch(() => [] as string[])) if (run.startsWith('run-')) await rmdir(join(stale, run)).catch(() => undefined);
    await rmdir(stale).catch(() => undefined);
  }
}

function readEvents(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

async function removeWhenEmpty(folder: string): Promise<void> {
  // a process leaves its cgroup only once it is reaped; the run's last ones may still be on the way out
  for (let attempt = 0; attempt < 50; attempt += 1) {
    try {
      await rmdir(folder);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EBUSY') return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

// runs are numbered per process, not per probe: two sandboxes of one process (two gateways, a gateway and its
// embedded gatekeeper) share the parent folder, and a number each would make the same run-N twice (EEXIST)
let runCounter = 0;

/** Finds a pids controller (cgroup v2, or v1's pids hierarchy) where this process may make a cgroup per run, and proves it by making one. */
export async function probePidsCgroups(): Promise<PidsCgroupProbe> {
  const hierarchy = await findHierarchy();
  if (!hierarchy) return { ok: false, reason: 'no pids cgroup controller is mounted' };
  const own = await ownFolder(hierarchy);
  if (!own) return { ok: false, reason: `this process's cgroup in ${hierarchy.mountPoint} is unknown` };
  await sweep(own);
  const parent = join(own, `brush-holder-${process.pid}`);
  try {
    await mkdir(parent, { recursive: true });
    // v2 hands a controller to children only through each parent's subtree_control
    if (hierarchy.version === 2) await writeFile(join(parent, 'cgroup.subtree_control'), '+pids');
    const runCgroup = (folder: string): RunCgroup => ({
      procs: join(folder, 'cgroup.procs'),
      limit: (value) => writeFileSync(join(folder, 'pids.max'), String(value)),
      refusals: () => Number(/^max (\d+)/m.exec(readEvents(join(folder, 'pids.events')))?.[1] ?? 0),
      release: () => removeWhenEmpty(folder),
    });
    const cgroups: PidsCgroups = {
      parent,
      // synchronous: two tiny writes to cgroupfs, where thread-pool jobs would wait behind others under load
      create(maximum) {
        runCounter += 1;
        const folder = join(parent, `run-${runCounter}`);
        mkdirSync(folder);
        const cgroup = runCgroup(folder);
        cgroup.limit(maximum);
        return cgroup;
      },
      async createInBackground(maximum) {
        runCounter += 1;
        const folder = join(parent, `run-${runCounter}`);
        await mkdir(folder);
        await writeFile(join(folder, 'pids.max'), String(maximum));
        return runCgroup(folder);
      },
    };
    await cgroups.create(1).release();
    process.once('exit', () => {
      try {
        // runs released in the background may not have been removed yet; their processes are gone
        for (const run of readdirSync(parent)) if (run.startsWith('run-')) rmdirSync(join(parent, run));
        rmdirSync(parent);
      } catch {
        // a run still being torn down: the next gateway's sweep removes it
      }
    });
    return { ok: true, cgroups };
  } catch (error) {
    await rmdir(parent).catch(() => undefined);
    return { ok: false, reason: `cannot make a pids cgroup under ${own}: ${(error as Error).message}` };
  }
}

import { readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { isInside } from './path-inside.js';

// The home guard (home-rules.ts) judges paths, and a home has more than one path where the host mounts it twice: a
// bind of /home on a data disk, of a home into a service's folder (review V, V5: a definition declaring
// /var/lib/homes-view/u/.ssh read the user's key and wrote in the dot-folder while validate said 0 errors). A bind
// shows the same directory, so the same (st_dev, st_ino): the homes are found again by identity, through the mount
// table and by stat. What another file system shows of the same files (NFS, 9p, WSL's /mnt/c/Users/NAME, a copy)
// shares no identity with a home, and is not recognised.

/** A path where the host shows (part of) a home under another name: `view` is what `shows` is. */
export interface HomeView {
  view: string;
  /** the home, or a folder inside it */
  shows: string;
}

interface Mount {
  device: string;
  /** the folder of its file system this mount shows */
  root: string;
  point: string;
}

// mountinfo writes a space, tab, newline and backslash in a path as \040, \011, \012, \134
const unescape = (path: string): string => path.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));

/** The mounts of /proc/self/mountinfo's text, in its order (a later mount at one point is on top). */
export function parseMountinfo(text: string): Mount[] {
  const mounts: Mount[] = [];
  for (const line of text.split('\n')) {
    const fields = line.split(' ');
    if (fields.length < 5 || !/^\d+:\d+$/.test(fields[2]!)) continue;
    mounts.push({ device: fields[2]!, root: unescape(fields[3]!), point: unescape(fields[4]!) });
  }
  return mounts;
}

function readMounts(): Mount[] {
  try {
    return parseMountinfo(readFileSync('/proc/self/mountinfo', 'utf8'));
  } catch {
    // no /proc (not Linux, or not mounted): the homes are still found by identity along each path (viewedAs)
    return [];
  }
}

const identity = (path: string): string | undefined => {
  try {
    const stat = statSync(path);
    return `${stat.dev}:${stat.ino}`;
  } catch {
    return undefined;
  }
};

// the mount a path is on: the innermost mount point holding it, the last mounted there
function mountOf(path: string, mounts: readonly Mount[]): Mount | undefined {
  let found: Mount | undefined;
  for (const mount of mounts) if (isInside(path, mount.point) && (found === undefined || mount.point.length >= found.point.length)) found = mount;
  return found;
}

/**
 * Every other place the mount table shows each of `homes` (real paths) or a folder inside one, each confirmed by
 * stat: the view's (st_dev, st_ino) is the home's or its folder's. A mount of the same device whose root holds the
 * home's folder on it shows the home; one whose root is inside it shows that part of it.
 */
export function homeViews(homes: readonly string[], mounts: readonly Mount[] = readMounts()): HomeView[] {
  const views: HomeView[] = [];
  for (const home of homes) {
    const own = mountOf(home, mounts);
    if (own === undefined || identity(home) === undefined) continue;
    const onDevice = join(own.root, relative(own.point, home));
    for (const mount of mounts) {
      if (mount.device !== own.device) continue;
      const candidate = isInside(onDevice, mount.root)
        ? { view: join(mount.point, relative(mount.root, onDevice)), shows: home }
        : isInside(mount.root, onDevice)
          ? { view: mount.point, shows: join(home, relative(onDevice, mount.root)) }
          : undefined;
      if (candidate === undefined || candidate.view === candidate.shows || homes.includes(candidate.view)) continue;
      // a mount hidden under a later one, or a root since renamed, shows something else: stat tells
      const seen = identity(candidate.view);
      if (seen !== undefined && seen === identity(candidate.shows) && !views.some((view) => view.view === candidate.view)) views.push(candidate);
    }
  }
  return views;
}

/**
 * The names a real path has in the homes' own spelling: through a view it is inside (or holds: declaring a folder
 * holding a view gives what the view shows), and through any folder on its way that is a home by identity (found
 * so without the mount table). Each with the view that gave it.
 */
export function viewedAs(real: string, homes: readonly string[], views: readonly HomeView[]): Array<{ path: string; view: string; shows: string }> {
  const found: Array<{ path: string; view: string; shows: string }> = [];
  for (const { view, shows } of views) {
    if (isInside(real, view)) found.push({ path: join(shows, relative(view, real)), view, shows });
    else if (isInside(view, real)) found.push({ path: shows, view, shows });
  }
  const homeIds = new Map(homes.map((home) => [identity(home), home] as const).filter(([id]) => id !== undefined));
  for (let folder = real; ; folder = dirname(folder)) {
    const home = homeIds.get(identity(folder));
    if (home !== undefined && folder !== home && !homes.includes(folder)) found.push({ path: join(home, relative(folder, real)), view: folder, shows: home });
    if (folder === dirname(folder)) break;
  }
  return found;
}

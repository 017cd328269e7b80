import { viewedAs, type HomeView } from './home-views.js';
import { isInside } from './workspace-rules.js';

// What a definition may reach in the host's home folders (homeFolders(): every one of them, not only the gateway
// user's), one rule for a launch (bubblewrap-arguments.ts' hostConflict) and for `hldp validate`
// (declared-path-refusal.ts), which judges through it.

/** Where the operator lets definitions reach, as the ceiling gives it (real paths), and whether it is the operator's own. */
export interface HomeGrants {
  /** the operator's own declaration (an MCP server's config): not held to the ceiling's roots, as it is not to the ceiling */
  operator?: boolean;
  roots?: readonly string[];
}

// a rule judged on `real` and on each name it has in a home's own spelling (home-views.ts: a bind mount of /home or of
// a home is the same folder under another path, review V, V5); the operator's roots that cover `real` cover those too
function throughViews(real: string, homes: readonly string[], grants: HomeGrants, views: readonly HomeView[], rule: (path: string, grants: HomeGrants) => string | undefined): string | undefined {
  const direct = rule(real, grants);
  if (direct !== undefined) return direct;
  const covered = (grants.roots ?? []).some((root) => isInside(real, root));
  for (const seen of viewedAs(real, homes, views)) {
    const refusal = rule(seen.path, covered ? { ...grants, roots: [...(grants.roots ?? []), seen.path] } : grants);
    if (refusal !== undefined) return `${refusal} (${seen.view} is ${seen.shows} under another path: the same folder, mounted twice)`;
  }
  return undefined;
}

const isDotEntry = (real: string, home: string): boolean => isInside(real, home) && real !== home && real.slice(home.length + 1).startsWith('.');

/**
 * Why a definition may not read `real` (review P, P14): a home folder, or a path holding one, or one of its
 * dot-entries (`~/.ssh`, `~/.aws`, `~/.config/gcloud`, `~/.npmrc`: the user's keys, credentials and programs' settings)
 * — a definition pushed to the tools repository would otherwise hand them to its output and, with the network, out —
 * unless the operator lists it in `sandbox.ceiling.readable_roots` (`grants.roots`). Its other folders (a project
 * under ~/src) may be read.
 */
export function homeReadRefusal(real: string, homes: readonly string[], grants: HomeGrants, views: readonly HomeView[] = []): string | undefined {
  return throughViews(real, homes, grants, views, (path, given) => readRefusal(path, homes, given));
}

function readRefusal(real: string, homes: readonly string[], grants: HomeGrants): string | undefined {
  if (grants.operator || (grants.roots ?? []).some((root) => isInside(real, root))) return undefined;
  const allow = 'a definition may read it only where the operator lists it in sandbox.ceiling.readable_roots';
  for (const home of homes) {
    if (isInside(home, real)) return `which is or holds the home folder ${home} (its keys and credentials): ${allow}`;
    if (isDotEntry(real, home)) return `a dot-entry of the home folder ${home} (its keys', credentials' and programs' settings): ${allow}`;
  }
  return undefined;
}

/**
 * Why a definition may not write `real`, a path outside the workspace, or undefined: a home folder or a path holding
 * one, or a dot-entry of one (~/.bashrc, ~/.ssh/authorized_keys, ~/.config/systemd/user: what its user's shell and
 * programs run next, outside any sandbox), whatever the ceiling says; and anything else in a home unless the operator
 * lists it in `sandbox.ceiling.writable_roots` (`grants.roots`) — a user's shell settings put folders of the home on
 * their PATH that the gateway cannot see (Debian's ~/.profile puts ~/bin first when it exists, a Go setup ~/go/bin),
 * and a tool that wrote `~/bin/ls` ran it at the user's next login (review U, U3).
 */
export function homeWriteRefusal(real: string, homes: readonly string[], grants: HomeGrants, views: readonly HomeView[] = []): string | undefined {
  return throughViews(real, homes, grants, views, (path, given) => writeRefusal(path, homes, given));
}

function writeRefusal(real: string, homes: readonly string[], grants: HomeGrants): string | undefined {
  for (const home of homes) {
    if (isInside(home, real)) return `which is or holds the home folder ${home}: no tool may change it`;
    if (isDotEntry(real, home)) return `a dot-entry of the home folder ${home} (its shells', keys' and programs' settings): no tool may change it`;
  }
  if (grants.operator || (grants.roots ?? []).some((root) => isInside(real, root))) return undefined;
  const home = homes.find((folder) => isInside(real, folder));
  if (home === undefined) return undefined;
  return `inside the home folder ${home}, whose user's shell runs programs from folders of it (~/bin, ~/go/bin: Debian's ~/.profile puts ~/bin first on the PATH) outside any sandbox: a definition may write in a home only inside the workspace or where the operator lists it in sandbox.ceiling.writable_roots`;
}

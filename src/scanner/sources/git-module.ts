/** isomorphic-git's API object. */
export type Git = typeof import('isomorphic-git').default;

let loading: Promise<Git> | undefined;

/** isomorphic-git, loaded on first use: a folder scan (and `hldp validate`) never pays its ~100 ms load. */
export function loadGit(): Promise<Git> {
  loading ??= import('isomorphic-git').then((module) => module.default);
  return loading;
}

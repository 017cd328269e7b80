import { loadOnce } from '../../core/index.js';

/** isomorphic-git's API object. */
export type Git = typeof import('isomorphic-git').default;

/** isomorphic-git, loaded on first use: a folder scan (and `hldp validate`) never pays its ~100 ms load. */
export const loadGit: () => Promise<Git> = loadOnce(() => import('isomorphic-git').then((module) => module.default));

import type { RefAdvertisement } from './upload-pack.js';

/** The branch the remote's HEAD names (the `symref=HEAD:refs/heads/<branch>` capability), or the one branch it has. */
export function defaultBranch(advertisement: RefAdvertisement): string | undefined {
  for (const capability of advertisement.capabilities) {
    const match = /^symref=HEAD:refs\/heads\/(.+)$/.exec(capability);
    if (match) return match[1];
  }
  const branches = [...advertisement.refs.keys()].filter((ref) => ref.startsWith('refs/heads/'));
  return branches.length === 1 ? branches[0]!.slice('refs/heads/'.length) : undefined;
}

/** A branch name as `git check-ref-format --branch` accepts it, narrowed to printable ASCII. */
export function isBranchName(name: string): boolean {
  return (
    /^[A-Za-z0-9._/+@-]+$/.test(name) && name.length <= 255 && !name.startsWith('-') && !name.startsWith('/') && !name.endsWith('/') && !name.endsWith('.') &&
    !name.split('/').some((part) => part === '' || part.startsWith('.') || part.endsWith('.lock')) && !name.includes('..') && !name.includes('@{') && name !== '@' && name !== 'HEAD'
  );
}

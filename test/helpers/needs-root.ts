import { describe, it } from 'vitest';

/** Whether this process runs as root, as CI's does (.ci/run is run so). */
export const runsAsRoot = process.getuid?.() === 0;

/**
 * `describe` for tests that need root (to act as another user through setpriv, to chown). Not as root, the tests
 * fail under CI (which runs as root) and elsewhere are skipped, with a name that says plainly that they did not run.
 */
export function describeAsRoot(name: string, body: () => void): void {
  if (runsAsRoot) {
    describe(name, body);
    return;
  }
  if (process.env.CI) {
    describe(name, () => {
      it('needs root, which CI runs as', () => {
        throw new Error(`root is required under CI: this process runs as uid ${process.getuid?.()} (.ci/run is run as root)`);
      });
    });
    return;
  }
  describe.skip(`${name} — DID NOT RUN: needs root (uid ${process.getuid?.()})`, body);
}

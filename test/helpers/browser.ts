import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { describe, it } from 'vitest';

/** Debian's chromium, which .ci/run installs with apt. */
export const CHROMIUM = '/usr/bin/chromium';

/** The flags this machine needs: no sandbox as root, and no background networking (the network is closed). */
export const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/**
 * `describe` for tests that need a real browser. Without chromium the tests fail under CI (whose .ci/run installs
 * it) and elsewhere are skipped, with a name that says plainly that they did not run.
 */
export function describeWithChromium(name: string, body: () => void): void {
  if (existsSync(CHROMIUM)) {
    describe(name, body);
    return;
  }
  if (process.env.CI) {
    describe(name, () => {
      it('needs chromium, which CI must provide', () => {
        throw new Error(`chromium is required under CI: ${CHROMIUM} is missing (apt-get install chromium)`);
      });
    });
    return;
  }
  describe.skip(`${name} — DID NOT RUN: no chromium at ${CHROMIUM} (apt-get install chromium)`, body);
}

/**
 * A real Debian chromium driven by playwright-core, with a fresh user data folder; `close` removes it. `args` are more
 * flags, e.g. `--host-resolver-rules=MAP gateway.test 127.0.0.1` to reach a local server under a name that is not loopback;
 * `javaScriptEnabled: false` for a person whose browser runs no scripts.
 */
export async function launchChromium(options: { viewport?: { width: number; height: number }; args?: string[]; javaScriptEnabled?: boolean } = {}): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const profile = await mkdtemp(join(tmpdir(), 'hldp-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [...CHROMIUM_FLAGS, ...(options.args ?? [])],
    viewport: options.viewport ?? { width: 1280, height: 900 },
    timeout: 60_000,
    javaScriptEnabled: options.javaScriptEnabled ?? true,
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

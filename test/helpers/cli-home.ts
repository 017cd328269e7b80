import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { makeTempDir } from './git.js';

/** A CLI test's own folder, and the environment every `hldp` command it runs shares: cache, data and workspace in it. */
export interface CliHome {
  /** the test's temporary folder, which is also the workspace */
  readonly path: string;
  /** HLDP_CACHE_DIR and HLDP_DATA_DIR below `path`, HLDP_WORKSPACE at it */
  readonly env: NodeJS.ProcessEnv;
}

/** Gives each test of the file calling it a fresh `CliHome`, removed after the test. */
export function useCliHome(): CliHome {
  let temp: { path: string; cleanup: () => Promise<void> } | undefined;
  let env: NodeJS.ProcessEnv = {};
  beforeEach(async () => {
    temp = await makeTempDir();
    env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path };
  });
  afterEach(() => temp?.cleanup());
  return {
    get path() {
      if (temp === undefined) throw new Error('useCliHome: the folder exists only while a test runs (in beforeEach, it, afterEach)');
      return temp.path;
    },
    get env() {
      return env;
    },
  };
}

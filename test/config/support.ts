import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { makeTempDir } from '../helpers/git.js';

/** A fresh folder per test; the returned function writes its `brush-holder.yaml` with that text and gives its path. */
export function configFiles(): (text: string) => Promise<string> {
  let temp: { path: string; cleanup: () => Promise<void> };
  beforeEach(async () => {
    temp = await makeTempDir();
  });
  afterEach(() => temp.cleanup());
  return async (text) => {
    const file = join(temp.path, 'brush-holder.yaml');
    await writeFile(file, text);
    return file;
  };
}

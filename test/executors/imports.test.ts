import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SOURCE = fileURLToPath(new URL('../../src/', import.meta.url));

function importsOf(folder: string): Array<{ file: string; specifier: string }> {
  const found: Array<{ file: string; specifier: string }> = [];
  for (const file of readdirSync(join(SOURCE, folder), { recursive: true }) as string[]) {
    if (!file.endsWith('.ts')) continue;
    const text = readFileSync(join(SOURCE, folder, file), 'utf8');
    for (const match of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s+'([^']+)'/g)) found.push({ file: `${folder}/${file}`, specifier: match[1]! });
  }
  return found;
}

// Relative imports must stay inside the folder or go through another folder's index.ts.
function foreignFolders(folder: string): string[] {
  return importsOf(folder)
    .filter(({ specifier }) => specifier.startsWith('../'))
    .map(({ file, specifier }) => `${file} -> ${specifier}`);
}

describe('imports of the executors, gatekeeper and store', () => {
  describe.each([
    ['executors', ['../core/index.js']],
    ['store', ['../core/index.js']],
    ['gatekeeper', ['../core/index.js', '../executors/index.js']],
  ])('when the folder is %s', (folder, allowed) => {
    it('returns only the allowed folders’ index.ts among its imports of other folders', () => {
      expect(importsOf(folder).length).toBeGreaterThan(5);
      const foreign = foreignFolders(folder).filter((edge) => !allowed.some((index) => edge.endsWith(`-> ${index}`)));
      expect(foreign).toEqual([]);
    });

    it('returns relative imports that all end in .js', () => {
      const bare = importsOf(folder).filter(({ specifier }) => specifier.startsWith('.') && !specifier.endsWith('.js'));
      expect(bare).toEqual([]);
    });
  });
});

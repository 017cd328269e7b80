import { describe, expect, it } from 'vitest';
import { VERSION_FOLDERS, versionFolders } from '../../src/scanner/index-cache.js';

// review Z10-4: the scan cache's version hashed scanner/*.ts and core/*.ts but not scanner/sources/, where the symlink,
// submodule and stray-policy refusals and the name-claim history live: a fix there alone kept serving a cache written
// before it. Every folder under the hashed ones is hashed now; this list names them, so that a new folder is a choice.
describe('the scan cache\'s version', () => {
  it('hashes every folder whose code decides a scan, sources/ included', () => {
    expect(VERSION_FOLDERS).toEqual(['scanner', 'core']);
    expect(versionFolders()).toEqual(['core', 'scanner', 'scanner/sources']);
  });
});

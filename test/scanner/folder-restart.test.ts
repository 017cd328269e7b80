import { mkdir, readFile, rename, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeToolYaml, writeFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { testFolder } from '../helpers/test-folder.js';

// Issue #18: a repository given as a plain folder was read whole at each start (every definition opened and hashed to
// find its commit), even with every definition in the scan cache. What a snapshot saw (each file's stat and oid, each
// kind's listing) is now kept beside the scans, so a restarted `hldp` opens only the files whose stat changed; the
// index it serves must be what a fresh scan gives whatever changed meanwhile: edits of the same size with their times
// put back, renames, deletions, a definition swapped for a link out of the folder or for a folder, a file over the limit.

const folder = testFolder('hldp-folder-restart-');

// In the main thread of a real `hldp` process: counts the definitions opened (each one read) into a file at exit, and
// runs the clock HLDP_TEST_CLOCK_AHEAD_MS ahead (files last changed that long before a scan are not racily clean).
const PRELOAD = `
const { isMainThread } = require('node:worker_threads');
if (isMainThread) {
  const ahead = Number(process.env.HLDP_TEST_CLOCK_AHEAD_MS || 0);
  const now = Date.now;
  Date.now = () => now() + ahead;
  const promises = require('node:fs/promises');
  const open = promises.open;
  let opened = 0;
  promises.open = function (path, ...rest) {
    if (/(\\.hdlp|SKILL\\.md)$/.test(String(path))) opened += 1;
    return open.call(this, path, ...rest);
  };
  require('node:module').syncBuiltinESMExports();
  process.on('exit', () => require('node:fs').writeFileSync(process.env.HLDP_TEST_OPENED_FILE, String(opened)));
}
`;

const TOOLS = Array.from({ length: 30 }, (_, at) => `tool-${String(at).padStart(2, '0')}`);

describe('hldp scan of a plain folder, restarted', () => {
  describe('when its definitions are in the scan cache', () => {
    it('opens only the files whose stat changed, and prints what a fresh scan prints', async () => {
      const root = join(folder.path, 'repo');
      const outside = join(folder.path, 'outside');
      const files: Record<string, string> = {
        'toolsets/ops/TOOLSET.hdlp': `name: ops\ndescription: work with ops\ntools: [tool-01, tool-07]\nauthor: TEST-001\nwhy: tests need ops\n`,
        'skills/notes/SKILL.md': '---\nname: notes\ndescription: takes notes\n---\nTake notes.\n',
        'policies/writes.hdlp': ['name: writes', 'author: TEST-001', 'why: every write needs a person', 'approval:', '  - tools: [tool-01]', '    decision: approve', '    reason: a write needs a person'].join('\n'),
      };
      for (const name of TOOLS) files[`tools/${name}/TOOL.hdlp`] = makeToolYaml(name, { intent: `reads ${name} aaaa` });
      await writeFiles(root, files);
      await writeFiles(outside, { 'secret.hdlp': makeToolYaml('tool-09', { intent: 'reads secrets' }), 'tools/tool-15/TOOL.hdlp': makeToolYaml('tool-15', { intent: 'from outside' }) });
      const preload = join(folder.path, 'preload.cjs');
      await writeFile(preload, PRELOAD);
      let minutes = 0;
      // definitions over 4 KiB are refused unread
      const limit = { HLDP_MAX_DEFINITION_BYTES: '4096' };
      const scan = async (cacheDir: string, env: NodeJS.ProcessEnv = limit): Promise<{ stdout: string; opened: number }> => {
        const openedFile = join(folder.path, `opened-${(minutes += 1)}`);
        const result = await runCli(['scan', '--repo', root, '--json'], {
          env: { ...folder.cliEnv(), HLDP_CACHE_DIR: cacheDir, NODE_OPTIONS: `--require ${preload}`, HLDP_TEST_OPENED_FILE: openedFile, HLDP_TEST_CLOCK_AHEAD_MS: String(minutes * 60_000), ...env },
        });
        expect(result.code, result.stderr).toBe(0);
        return { stdout: result.stdout.replace(/"scanned_at": "[^"]+"/, ''), opened: Number(await readFile(openedFile, 'utf8')) };
      };
      const cacheDir = join(folder.path, 'cache');

      const first = await scan(cacheDir);
      expect(first.opened).toBe(TOOLS.length + 3);
      // nothing changed: nothing opened (on main, every file again)
      const again = await scan(cacheDir);
      expect(again.opened).toBe(0);
      expect(again.stdout).toBe(first.stdout);

      // a rewrite of the same size, its modification time put back: only its change time tells
      const edited = join(root, 'tools/tool-03/TOOL.hdlp');
      const { mtime } = await stat(edited);
      await writeFile(edited, makeToolYaml('tool-03', { display: '工具 TOOL-03', intent: 'reads tool-03 aaaa' }));
      await utimes(edited, mtime, mtime);
      await writeFiles(root, { 'tools/tool-05': null, 'tools/tool-98/TOOL.hdlp': makeToolYaml('tool-98'), 'tools/tool-09/TOOL.hdlp': null, 'tools/tool-11/TOOL.hdlp': null, 'tools/tool-15': null });
      await rename(join(root, 'tools/tool-07'), join(root, 'tools/tool-77'));
      // a definition swapped for a link out of the folder, another for a folder, a tool folder for a link out of it
      await symlink(join(outside, 'secret.hdlp'), join(root, 'tools/tool-09/TOOL.hdlp'));
      await mkdir(join(root, 'tools/tool-11/TOOL.hdlp'));
      await symlink(join(outside, 'tools/tool-15'), join(root, 'tools/tool-15'));
      // over the size limit
      await writeFile(join(root, 'tools/tool-13/TOOL.hdlp'), makeToolYaml('tool-13', { description: 'x'.repeat(5000) }));
      const changed = await scan(cacheDir);
      // tool-03, tool-98, tool-77 and tool-13 (too large: opened to be sized); the link and the folder are not opened
      expect(changed.opened).toBe(4);
      const expected = (await scan(join(folder.path, 'fresh'))).stdout;
      expect(changed.stdout).toBe(expected);
      expect(changed.stdout).toContain('工具 TOOL-03');
      expect(changed.stdout).not.toContain('reads secrets');
      expect(changed.stdout).not.toContain('from outside');

      // a file over the limit is sized again at each start; nothing else is opened
      const still = await scan(cacheDir);
      expect(still.opened).toBe(1);
      expect(still.stdout).toBe(expected);
      // a record kept under another size limit is not used: every file is read again, and judged by this limit
      const otherLimit = await scan(cacheDir, {});
      expect(otherLimit.opened).toBeGreaterThan(TOOLS.length - 3);
      expect(otherLimit.stdout).toBe((await scan(join(folder.path, 'fresh-default'), {})).stdout);
    });
  });
});

import { join } from 'node:path';
import { commitFiles, initRepository, makeToolYaml } from './git.js';

/** The raw stderr of the `fail` tool: a leading blank line, CRLF, markup, trailing spaces, non-ASCII: what a page must show byte for byte. */
export const FAIL_STDERR = '\nerror: <b>disk</b> & "full"\r\n  at /var/lib/x  \n失败 ✗\n';

/**
 * A local git repository with the tools the event and console tests call: `fail` (exits 2 with `FAIL_STDERR`),
 * `say` (prints its `text` param: attacker-controlled output), `note` (needs confirmation) and `ok`.
 */
export async function makeConsoleRepository(root: string): Promise<string> {
  const repo = await initRepository(join(root, 'repo'));
  // printf's format escapes make the exact bytes, none of them parsed by a shell
  const stderr = FAIL_STDERR.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/%/g, '%%');
  await commitFiles(repo, {
    'tools/fail/TOOL.hdlp': makeToolYaml('fail', {
      executor: 'shell', method: 'run', intent: 'always fails, for the tests',
      shell: `{ script: ${JSON.stringify(`printf 'partial output\\n'; printf '${stderr}' >&2; exit 2`)} }`,
      why: 'the console shows a failure exactly as the tool wrote it', author: 'ICE-GL-ZY001',
    }),
    'tools/say/TOOL.hdlp': makeToolYaml('say', {
      executor: 'shell', method: 'run', intent: 'prints the text it is given',
      params_schema: '{ text: { type: string, required: true } }', shell: '{ argv: [printf, "%s", "{text}"] }',
    }),
    'tools/note/TOOL.hdlp': makeToolYaml('note', {
      executor: 'shell', method: 'run', intent: 'writes a note after a person confirms it',
      params_schema: '{ text: { type: string, required: true } }', shell: '{ argv: [printf, "noted: %s", "{text}"] }',
      constraints: '{ require_confirm: true }',
    }),
    'tools/ok/TOOL.hdlp': makeToolYaml('ok', { executor: 'shell', method: 'run', shell: '{ argv: [echo, fine] }' }),
  });
  return repo;
}

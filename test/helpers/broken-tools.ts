import { commitFiles, initRepository, makeTempDir, makeToolYaml } from './git.js';

/**
 * A real git repository with one served tool (`shell-exec`) and two tools whose `TOOL.hdlp` is broken: `send-email`
 * (a YAML syntax error: nothing of it can be read) and `weather-forecast` (an executor no gateway has). Review userZ, Z8.
 */
export async function brokenToolsRepository(): Promise<{ path: string; cleanup: () => Promise<void> }> {
  const temp = await makeTempDir();
  await initRepository(temp.path);
  await commitFiles(temp.path, {
    'tools/shell-exec/TOOL.hdlp': makeToolYaml('shell-exec', { executor: 'shell', method: 'run', shell: '{ argv: [echo, ok] }', intent: 'run a shell command on the server and return its output' }),
    'tools/send-email/TOOL.hdlp': 'name: send-email\nintent: [mail a message to someone\n',
    'tools/weather-forecast/TOOL.hdlp': makeToolYaml('weather-forecast', { executor: 'nowhere' }),
  });
  return temp;
}

/** A request the broken `send-email` would fit and no served tool does. */
export const EMAIL_REQUEST = 'send an email to the team';

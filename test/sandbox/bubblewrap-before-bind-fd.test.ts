import { chmod, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { request } from '../helpers/http-server.js';
import { describeWithBubblewrap } from './support/bubblewrap.js';
import { refusingBubblewrap } from './support/refusing-bubblewrap.js';
import { shGatewayEachTest } from './support/sh-gateway.js';

// The sandbox binds what a tool could swap by descriptor (`--bind-fd`, `--ro-bind-fd`), which bubblewrap knows from
// 0.8 on; Ubuntu 22.04 ships 0.6. A bubblewrap that refuses the option, as an older one does, is reproduced by a
// `bwrap` early on PATH that says what 0.6 says and runs the real one otherwise: the gateway must bind by path there.
const gateway = shGatewayEachTest('hldp-old-bwrap-');

describeWithBubblewrap('a bubblewrap older than 0.8, which binds by path only', () => {
  it('runs every call in the sandbox all the same, its binds by path', async () => {
    await chmod(gateway.folder, 0o755);
    const workspace = join(gateway.folder, 'ws');
    await mkdir(workspace);
    // what bubblewrap 0.6 says of an option it does not know
    const path = await refusingBubblewrap(join(gateway.folder, 'bin'), '--bind-fd|--ro-bind-fd', 'bwrap: Unknown option $arg');
    const service = await gateway.serve({ HLDP_WORKSPACE: workspace, HLDP_SANDBOX: 'required', HLDP_SANDBOX_RUN_AS: 'root', PATH: path, HLDP_HOST_PATH: path });
    // twice: the second is a launcher that waited
    for (let call = 0; call < 2; call += 1) {
      const receipt = (await request(service, 'POST', '/v1/call', { body: { tool: 'sh', params: { cmd: `echo ${call} >> out; cat /proc/self/mountinfo | grep -c ' ${workspace} '` } } })).json;
      expect(receipt).toMatchObject({ ok: true, output: '1\n' });
    }
    expect(await readFile(join(workspace, 'out'), 'utf8')).toBe('0\n1\n');
  });
});

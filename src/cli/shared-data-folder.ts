import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The file in a data folder listing the repositories gateways served with it, one a line. */
const SERVED_FILE = 'served-repositories';

/**
 * Records `repository` as served with the data folder `dataDir`, and returns the other repositories served with it
 * before. Gateways of one user that name no data folder share the default one, and with it their receipts, approvals
 * and sessions (review N, N8): the operator is told, rather than each gateway's records moved out of reach of
 * `hldp receipts`, `hldp approvals` and the gateways already running with them. Never throws: a folder it cannot read
 * or write only goes unrecorded.
 */
export function otherRepositoriesServed(dataDir: string, repository: string): string[] {
  const file = join(dataDir, SERVED_FILE);
  let served: string[] = [];
  try {
    served = readFileSync(file, 'utf8').split('\n').filter((line) => line !== '');
  } catch {
    // none recorded yet
  }
  try {
    if (!served.includes(repository)) {
      mkdirSync(dataDir, { recursive: true });
      appendFileSync(file, `${repository}\n`);
    }
  } catch {
    // a read-only data folder: the store says so itself
  }
  return served.filter((other) => other !== repository);
}

import { startGitHttpFront } from './git-http-front.js';
import type { TestFolder } from './test-folder.js';

/** A front before a git server that, while flooding, floods the answers to git's POSTs (a fetch's answer). */
export interface FloodingFront {
  /** the repository's URL through the front */
  url: string;
  /** floods the answers from now on (true) or passes them on as they are (false) */
  flood(on: boolean): void;
  /** how many answers were flooded so far */
  floodedAnswers(): number;
}

/**
 * A front (closed with `folder`'s test) before the real `git http-backend` at `repositoryUrl`, passing every answer on
 * as it is but a POST's while flooding (`flooding` at first), which it passes on as `flooded` makes it.
 */
export async function startFloodingFront(folder: TestFolder, repositoryUrl: string, flooding: boolean, flooded: (body: Buffer) => Buffer): Promise<FloodingFront> {
  let on = flooding;
  let count = 0;
  const front = folder.closeAfter(
    await startGitHttpFront(repositoryUrl, {
      rewrite: (answer, seen) => {
        if (!on || seen.method !== 'POST') return answer;
        count++;
        return { ...answer, body: flooded(answer.body) };
      },
    }),
  );
  return { url: front.url, flood: (value) => (on = value), floodedAnswers: () => count };
}

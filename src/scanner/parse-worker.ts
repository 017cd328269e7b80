// A worker thread that parses batches of TOOL.hdlp files for a large scan (see parse-pool.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { entryKind, failedEntry, parseEntry, type ScanEntry } from './build-index.js';
import { asciiJson, summaryOf } from './entry-summary.js';
import type { FileBatch, SummaryBatch } from './parse-pool.js';
import type { DefinitionFile } from './parse-tool-definition.js';
import { guardParse, type ParseOptions } from './yaml-mapping.js';

const { options = {}, summaries = false } = (workerData ?? {}) as { options?: ParseOptions; summaries?: boolean };

parentPort?.on('message', (batch: Array<{ id: number; file: DefinitionFile }> | FileBatch) => {
  if (!summaries) {
    parentPort!.postMessage((batch as Array<{ id: number; file: DefinitionFile }>).map(({ id, file }) => ({ id, entry: parseEntry(file, options) })));
    return;
  }
  const { files, bytes } = batch as FileBatch;
  let at = 0;
  const made = files.map(({ id, length, ...rest }) => {
    const file = { ...rest, content: new Uint8Array(bytes, at, length) };
    at += length;
    // a line that cannot be made (a RangeError past V8's longest string) costs its file, not the batch and then the scan
    const { entry, text } = guardParse(file, 'the definition', () => line(parseEntry(file, options)), (diagnostic) => line(failedEntry(entryKind(file), file.folder, file.oid, diagnostic)));
    return { id, summary: summaryOf(entry), text };
  });
  // the batch's lines as one string (ASCII): the main thread makes their buffer, so that no memory of this thread's
  // malloc arena waits for the main thread's collector (a buffer made here and freed there kept ~10 MB of this thread's
  // arena after it ended, at 100,000 tools)
  const message: SummaryBatch = { results: made.map(({ id, summary, text }) => ({ id, summary, length: text.length })), lines: made.map(({ text }) => text).join('') };
  parentPort!.postMessage(message);
});

function line(entry: ScanEntry): { entry: ScanEntry; text: string } {
  return { entry, text: asciiJson(entry) };
}

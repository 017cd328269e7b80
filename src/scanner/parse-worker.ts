// A worker thread that parses batches of TOOL.hdlp files for a large scan (see parse-pool.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { parseEntry } from './build-index.js';
import type { DefinitionFile } from './parse-tool-definition.js';
import type { ParseOptions } from './yaml-mapping.js';

const { options = {} } = (workerData ?? {}) as { options?: ParseOptions };

parentPort?.on('message', (batch: Array<{ id: number; file: DefinitionFile }>) => {
  parentPort!.postMessage(batch.map(({ id, file }) => ({ id, entry: parseEntry(file, options) })));
});

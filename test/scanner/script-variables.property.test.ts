import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkUndeclaredScriptVariables } from '../../src/scanner/script-variable-check.js';
import { findScriptVariables, type ReferenceContext } from '../../src/scanner/script-variables.js';
import { runs } from '../helpers/property-runs.js';

// a piece of a generated script, and the references it holds with where `sh` reads them (review userY, Y3)
interface Piece {
  text: string;
  references: Array<{ name: string; offset: number; context: ReferenceContext; defaulted?: boolean }>;
}

const DECLARED = ['path', 'max-count', 'mode'];
const suffix = fc.constantFrom('PATH', 'MAX_COUNT', 'MODE', 'PATHS', 'path', 'MAX', 'COUNT', 'MODES', 'X', 'LIMIT');
const filler = fc.constantFrom('echo', 'ls -la', 'printf "%s\\n"', 'true', 'x=1', ': ok', 'cat', 'awk \'{print $1}\'', '"$1"', '$$', '$#', '${#}', 'a#b');

const FORMS = [(name: string) => `$${name}`, (name: string) => `"$${name}"`, (name: string) => `\${${name}}`, (name: string) => `"\${${name}:-none}"`, (name: string) => `$(printf %s "$${name}")`, (name: string) => `$((${name} + 1))`, (name: string) => `\`echo $${name}\``];

const expandedPiece: fc.Arbitrary<Piece> = fc.tuple(suffix, fc.integer({ min: 0, max: FORMS.length - 1 })).map(([end, form]) => {
  const name = `HLDP_PARAM_${end}`;
  const text = FORMS[form]!(name);
  // `${X:-none}` reads X with a default: an optional switch (review userZ2, U9)
  return { text, references: [{ name, offset: text.indexOf(name), context: 'expanded', ...(text.includes(':-') ? { defaulted: true } : {}) }] };
});
const literalPiece: fc.Arbitrary<Piece> = suffix.map((end) => ({ text: `'$HLDP_PARAM_${end}'`, references: [{ name: `HLDP_PARAM_${end}`, offset: 2, context: 'literal' }] }));
const commentPiece: fc.Arbitrary<Piece> = suffix.map((end) => ({ text: `# uses $HLDP_PARAM_${end} 'quoted\n`, references: [] }));
const heredocPiece: fc.Arbitrary<Piece> = fc.tuple(suffix, fc.boolean()).map(([end, quoted]) => {
  const head = `cat <<${quoted ? "'EOF'" : 'EOF'}\nvalue: it's "$HLDP_PARAM_`;
  return { text: `${head}${end}"\nEOF\n`, references: [{ name: `HLDP_PARAM_${end}`, offset: head.length - 'HLDP_PARAM_'.length, context: quoted ? 'literal' : 'heredoc' }] };
});
const plainPiece: fc.Arbitrary<Piece> = filler.map((text) => ({ text, references: [] }));
const piece = fc.oneof(expandedPiece, literalPiece, commentPiece, heredocPiece, plainPiece, plainPiece);
const separator = fc.constantFrom(' ', '; ', '\n', ' | ', ' && ');

// pieces joined so that each starts a word: a comment piece starts at a word, a here-document's body at a line
const script = fc.array(fc.tuple(piece, separator), { maxLength: 12 }).map((parts) => {
  let text = '';
  const references: Piece['references'] = [];
  for (const [part, between] of parts) {
    if (text !== '' && !text.endsWith('\n')) text += between === '\n' || part.text.includes('\n') ? '\n' : between;
    for (const found of part.references) references.push({ ...found, offset: text.length + found.offset });
    text += part.text;
  }
  return { text, references };
});

describe('findScriptVariables', () => {
  it('finds every HLDP_PARAM_ reference outside comments, at its offset, with whether sh expands it there', () => {
    fc.assert(
      fc.property(script, ({ text, references }) => {
        const found = findScriptVariables(text);
        expect(found.clean).toBe(true);
        expect(found.references.map(({ name, index, context, defaulted }) => ({ name, offset: index, context, ...(defaulted ? { defaulted } : {}) }))).toEqual(references);
      }),
      { numRuns: runs(500) },
    );
  });

  it('never throws and stays within the text, whatever the script holds', () => {
    const text = fc.array(fc.constantFrom('$', '{', '}', '(', ')', "'", '"', '`', '\\', '#', '<<', 'EOF', '\n', ' ', 'HLDP_PARAM_X', '<<-', '\t', '$((', 'a'), { maxLength: 40 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(text, (script) => {
        for (const found of findScriptVariables(script).references) {
          expect(script.slice(found.index, found.index + found.name.length)).toBe(found.name);
        }
      }),
      { numRuns: runs(2000) },
    );
  });
});

describe('checkUndeclaredScriptVariables', () => {
  const schema = { type: 'object', properties: Object.fromEntries(DECLARED.map((name) => [name, { type: 'string' }])) };
  const declaredVariables = new Set(['HLDP_PARAM_PATH', 'HLDP_PARAM_MAX_COUNT', 'HLDP_PARAM_MODE']);

  it('is one problem a variable: an error where sh expands it somewhere, else a warning; nothing for declared ones', () => {
    fc.assert(
      fc.property(script, ({ text, references }) => {
        const problems = checkUndeclaredScriptVariables({ shell: { script: text } }, schema);
        // each undeclared name once, at its first plain use sh expands, else its first use with a default, else its first use
        const rank = (found: (typeof references)[number]): number => (found.context === 'literal' ? 0 : found.defaulted ? 1 : 2);
        const chosen = new Map<string, (typeof references)[number]>();
        for (const found of references.filter((found) => !declaredVariables.has(found.name))) {
          const seen = chosen.get(found.name);
          if (seen === undefined || rank(found) > rank(seen)) chosen.set(found.name, found);
        }
        const expected = [...chosen.values()].sort((one, other) => one.offset - other.offset).slice(0, 10);
        // a use with a default is an error only as a typo of a declared name (its value would be lost)
        const severity = (found: (typeof references)[number], message: string | undefined): string => (rank(found) === 2 || (rank(found) === 1 && message?.includes('did you mean')) ? 'error' : 'warning');
        expect(problems.map((problem) => [problem.within.text, problem.severity])).toEqual(expected.map((found, index) => [found.name, severity(found, problems[index]?.message)]));
        for (const [index, problem] of problems.entries()) {
          const at = expected[index]!;
          expect(text.split(at.name).length - 1).toBeGreaterThan(problem.within.occurrence);
          expect(text.split(at.name, problem.within.occurrence + 1).join(at.name).length).toBe(at.offset);
          const near = { HLDP_PARAM_PATHS: 'PATH', HLDP_PARAM_path: 'PATH', HLDP_PARAM_MODES: 'MODE' }[problem.within.text];
          if (near) expect(problem.message).toContain(`did you mean $HLDP_PARAM_${near}`);
        }
      }),
      { numRuns: runs(500) },
    );
  });

  describe('when a script is hostile', () => {
    it('reports 70,000 uses of one name as one problem, and nesting past its depth as a warning', () => {
      const many = checkUndeclaredScriptVariables({ shell: { script: 'echo $HLDP_PARAM_X\n'.repeat(70_000) } }, schema);
      expect(many).toMatchObject([{ severity: 'error', within: { text: 'HLDP_PARAM_X', occurrence: 0 }, message: expect.stringContaining('(here and 69999 more times)') }]);
      const deep = checkUndeclaredScriptVariables({ shell: { script: `${'"$('.repeat(100_000)}$HLDP_PARAM_X` } }, schema);
      expect(deep.every((problem) => problem.severity === 'warning')).toBe(true);
      expect(findScriptVariables('"`'.repeat(100_000)).clean).toBe(false);
    });
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { aliasPosition } from '../../src/scanner/alias-positions.js';
import { makeToolYaml } from '../helpers/git.js';
import { runs } from '../helpers/property-runs.js';

// Review R, R14: an alias conflict is reported at the alias itself, found again in its file's text. Wherever and
// however the list is written (flow or block, quoted or plain, with comments), the position is where that alias is
// written; an alias the file does not hold has none.

const alias = fc.stringMatching(/^[a-z][a-z0-9-]{0,11}$/);
const written = (name: string, style: number): string => (style === 0 ? name : style === 1 ? `'${name}'` : `"${name}"`);

describe('aliasPosition', () => {
  it('finds each alias where it is written, in a flow or a block list', () => {
    fc.assert(
      fc.property(fc.uniqueArray(alias, { minLength: 1, maxLength: 6 }), fc.array(fc.nat(2), { minLength: 6, maxLength: 6 }), fc.boolean(), fc.boolean(), (aliases, styles, block, commented) => {
        const items = aliases.map((name, at) => written(name, styles[at]!));
        const list = block ? `${commented ? '  # the other names' : ''}\n${items.map((item) => `  - ${item}${commented ? ' # one' : ''}`).join('\n')}` : `[${items.join(', ')}]${commented ? ' # names' : ''}`;
        const text = makeToolYaml('demo', { aliases: list });
        const lines = text.split('\n');
        for (const [at, name] of aliases.entries()) {
          const position = aliasPosition(text, name);
          expect(position, text).toBeDefined();
          expect(lines[position!.line - 1]!.slice(position!.column - 1).startsWith(items[at]!), text).toBe(true);
        }
        expect(aliasPosition(text, 'not-there-at-all-xyz')).toBeUndefined();
      }),
      { numRuns: runs(200) },
    );
  });

  it('has none in a text that is not YAML or holds no list of aliases', () => {
    expect(aliasPosition('aliases: [a, b', 'a')).toBeUndefined();
    expect(aliasPosition('aliases: shell', 'shell')).toBeUndefined();
    expect(aliasPosition('name: demo\n', 'demo')).toBeUndefined();
  });
});

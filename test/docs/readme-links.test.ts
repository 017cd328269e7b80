// Review userZ10, U10-19: the README became a short manual whose sections link their details under docs/. Every link
// of the README and of those files must lead somewhere: a file that exists, and a #anchor that one of its headings
// makes (GitHub's rule: lower case, punctuation dropped, spaces to hyphens, a repeated heading suffixed -1, -2, …).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The markdown outside fenced code blocks (a `# comment` in a sh block is no heading, a `[x](y)` in one no link). */
function prose(text: string): string[] {
  let fence = false;
  return text.split('\n').filter((line) => {
    if (/^\s*```/.test(line)) { fence = !fence; return false; }
    return !fence;
  });
}

/** The anchors a file's headings make, as GitHub makes them. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const line of prose(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').toLowerCase().replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '').replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

/** Every inline link's target in a file's prose, with its line, leaving out code spans. */
function links(text: string): { target: string; line: number }[] {
  const found: { target: string; line: number }[] = [];
  let fence = false;
  text.split('\n').forEach((line, index) => {
    if (/^\s*```/.test(line)) { fence = !fence; return; }
    if (fence) return;
    for (const match of line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) found.push({ target: match[1] ?? '', line: index + 1 });
  });
  return found;
}

const FILES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

describe('the README and docs/: every link leads somewhere (review userZ10, U10-19)', () => {
  it('computes anchors as GitHub does', () => {
    const made = anchors('# brush-holder\n## TOOL.hdlp\n### For tool authors: `hldp validate` as a pre-commit hook\n## Several instances, one PostgreSQL\n## Notes\n## Notes\n```sh\n# not a heading\n```\n');
    expect([...made]).toEqual(['brush-holder', 'toolhdlp', 'for-tool-authors-hldp-validate-as-a-pre-commit-hook', 'several-instances-one-postgresql', 'notes', 'notes-1']);
  });

  it.each(FILES)('%s', (file) => {
    const text = readFileSync(join(ROOT, file), 'utf8');
    const broken: string[] = [];
    for (const { target, line } of links(text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
      const [path, anchor] = target.split('#', 2) as [string, string | undefined];
      const to = path === '' ? join(ROOT, file) : join(ROOT, dirname(file), decodeURIComponent(path));
      if (relative(ROOT, to).startsWith('..') || !existsSync(to)) { broken.push(`${file}:${line}: ${target}: no such file`); continue; }
      if (anchor === undefined) continue;
      if (!statSync(to).isFile() || !to.endsWith('.md')) { broken.push(`${file}:${line}: ${target}: an anchor into a file that is not markdown`); continue; }
      if (!anchors(readFileSync(to, 'utf8')).has(decodeURIComponent(anchor))) broken.push(`${file}:${line}: ${target}: no heading makes #${anchor}`);
    }
    expect(broken).toEqual([]);
  });
});

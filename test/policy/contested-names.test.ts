import { describe, expect, it } from 'vitest';
import type { PolicyDefinition, ToolIndex } from '../../src/core/index.js';
import { accessRights, PolicySet, Principals } from '../../src/policy/index.js';
import { makeToolDefinition } from '../matcher/helpers.js';

// Review Z, Z1: `rm-file` is a tool's name and an alias `file-delete` declares and was refused (ALIAS_CONFLICT). A list
// naming it could mean either tool: one that restricts covers both, one that allows covers neither.

const RM_FILE = makeToolDefinition({ name: 'rm-file' });
const FILE_DELETE = makeToolDefinition({ name: 'file-delete', aliases: [] });

const POLICY: PolicyDefinition = {
  name: 'guard',
  access: [{ tools: ['rm-file'], roles: ['trusted'], at: { line: 2, column: 3 } }],
  approval: [
    { tools: ['RM-FILE'], decision: 'approve', at: { line: 4, column: 3 } },
    { tools: ['rm-file'], decision: 'allow', at: { line: 5, column: 3 } },
  ],
  author: 't',
  why: 't',
  source: { path: 'policies/guard.hdlp', oid: 'p' },
};

const INDEX: ToolIndex = {
  source: 'test', commit: 'c1', tools: [FILE_DELETE, RM_FILE], toolsets: [], skills: [], policies: [POLICY], errors: [], warnings: [], scanned_at: '',
  contested: [{ name: 'rm-file', holder: 'rm-file', refused: ['file-delete'] }],
};

describe('PolicySet over a contested name', () => {
  it('gates both tools with an access rule naming it', () => {
    const set = PolicySet.of(INDEX);
    expect(set.gatesFor(RM_FILE)).toHaveLength(1);
    expect(set.gatesFor(FILE_DELETE)).toHaveLength(1);
  });

  it('applies an approve rule naming it (in any case) to both tools, an allow rule to neither', () => {
    const set = PolicySet.of(INDEX);
    expect(set.rulesFor(RM_FILE).map((rule) => rule.decision)).toEqual(['approve']);
    expect(set.rulesFor(FILE_DELETE).map((rule) => rule.decision)).toEqual(['approve']);
  });

  it('gives neither tool to a principal whose tools name it, and says so among the warnings', () => {
    expect([...PolicySet.of(INDEX).baseList('reader', ['rm-file'])]).toEqual([]);
    const principals = new Principals([{ name: 'reader', tokenSha256: 'a'.repeat(64), roles: ['agent'], tools: ['rm-file'] }]);
    expect(accessRights(principals).warnings?.(INDEX)).toEqual([expect.stringContaining("principals.reader.tools names 'rm-file', which tool 'rm-file' answers to and 'file-delete' declares as an alias it was refused")]);
  });
});

// A case twin refused its name (`tools/Deploy/` beside `tools/deploy/`) makes the name contested too: the one serving
// it may be a newcomer (git history could not say), so an allow naming it covers neither spelling.
const DEPLOY = makeToolDefinition({ name: 'deploy' });
const TWIN_POLICY: PolicyDefinition = {
  ...POLICY,
  access: [],
  approval: [
    { tools: ['Deploy'], decision: 'approve', at: { line: 4, column: 3 } },
    { tools: ['deploy'], decision: 'allow', at: { line: 5, column: 3 } },
  ],
};
const TWIN_INDEX: ToolIndex = {
  source: 'test', commit: 'c2', tools: [DEPLOY], toolsets: [], skills: [], policies: [TWIN_POLICY], errors: [], warnings: [], scanned_at: '',
  contested: [{ name: 'deploy', holder: 'deploy', refused: [], twins: ['Deploy'] }],
};

describe('PolicySet over a case twin\'s contested name', () => {
  it('applies an approve rule naming either spelling to the tool serving it, an allow rule not at all', () => {
    expect(PolicySet.of(TWIN_INDEX).rulesFor(DEPLOY).map((rule) => rule.decision)).toEqual(['approve']);
  });

  it('gives a principal whose tools name it nothing, and says which twin was refused', () => {
    expect([...PolicySet.of(TWIN_INDEX).baseList('reader', ['Deploy'])]).toEqual([]);
    const principals = new Principals([{ name: 'reader', tokenSha256: 'a'.repeat(64), roles: ['agent'], tools: ['Deploy'] }]);
    expect(accessRights(principals).warnings?.(TWIN_INDEX)).toEqual([expect.stringContaining("principals.reader.tools names 'Deploy', which tool 'deploy' answers to and 'Deploy' is named so and refused it (DUPLICATE_NAME)")]);
  });
});

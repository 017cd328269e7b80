import { readFileSync } from 'node:fs';
import type { Diagnostic, SkillDefinition } from '../core/index.js';
import { invisibleTextInFile } from './invisible-text.js';
import type { DefinitionFile } from './parse-tool-definition.js';
import { compileShapeChecker, type ShapeChecker } from './shape-checker.js';
import { definitionText, hasErrors, readYamlMapping, type ParseOptions } from './yaml-mapping.js';
import type { Position } from './yaml-locator.js';

/** Where the JSON Schema of a `SKILL.md` front matter lives. */
export const SKILL_SCHEMA_URL = new URL('../../schemas/skill.schema.json', import.meta.url);

let checker: ShapeChecker | undefined;

/** A skill if its file is valid, and every problem found. */
export interface ParsedSkill {
  skill: SkillDefinition | null;
  diagnostics: Diagnostic[];
  namePosition?: Position;
  toolsetPosition?: Position;
}

// `---` alone on the first line, the YAML, then `---` alone on a line; the body follows
/** A SKILL.md's front matter: its YAML is the first group. */
export const FRONT_MATTER = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** Parses one `SKILL.md`: YAML front matter (`name`, `description`, ...) and the Markdown body after it. */
export function parseSkill(file: DefinitionFile, options: ParseOptions = {}): ParsedSkill {
  const read = definitionText(file, 'SKILL.md', options);
  if ('diagnostic' in read) return { skill: null, diagnostics: [read.diagnostic] };
  const text = read.text.replace(/^\uFEFF/, '');
  const match = FRONT_MATTER.exec(text);
  if (!match) {
    return {
      skill: null,
      diagnostics: [{ file: file.path, line: 1, column: 1, severity: 'error', code: 'SCHEMA_VIOLATION', message: "SKILL.md must open with YAML front matter: a line '---', then name: and description:, then a line '---', then the body" }],
    };
  }
  // the front matter padded by one empty line stands where it stands in the file: positions need no shifting
  const mapping = readYamlMapping(file, `\n${match[1]!}`, 'the front matter of SKILL.md', 'name, description', options);
  if (!mapping.ok) return { skill: null, diagnostics: mapping.diagnostics };
  const { value, locator, report } = mapping;
  checker ??= compileShapeChecker(JSON.parse(readFileSync(SKILL_SCHEMA_URL, 'utf8')) as object, 'the front matter', { ownSchema: true });
  for (const problem of checker(value)) report('SCHEMA_VIOLATION', problem);
  if (typeof value.name === 'string' && value.name !== file.folder) {
    report('NAME_MISMATCH', { path: ['name'], atKey: false, message: `'name' is '${value.name}' but the folder is '${file.folder}': rename one so they match` });
  }
  const body = text.slice(match[0].length).trim();
  if (body === '') report('SCHEMA_VIOLATION', { path: [], atKey: false, message: 'SKILL.md has no body after its front matter: write the steps, commands and pitfalls an agent reads' });
  // the body reaches agents' prompts as written: what its reviewer cannot see is refused, front matter and body alike
  const hidden = invisibleTextInFile(file.path, text, value, locator);
  if (hasErrors(report.diagnostics) || hidden.length) return { skill: null, diagnostics: [...report.diagnostics, ...hidden] };
  const skill: SkillDefinition = {
    name: value.name as string,
    description: (value.description as string).replace(/\s+/g, ' ').trim(),
    body,
    source: { path: file.path, oid: file.oid },
  };
  for (const key of ['toolset', 'license', 'compatibility', 'metadata', 'allowed-tools'] as const) {
    if (value[key] !== undefined) Object.assign(skill, { [key]: value[key] });
  }
  return {
    skill,
    diagnostics: report.diagnostics,
    namePosition: locator.locate(['name']),
    ...(skill.toolset ? { toolsetPosition: locator.locate(['toolset']) } : {}),
  };
}

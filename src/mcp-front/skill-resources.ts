import type { SkillDefinition } from '../core/index.js';

/** Skills are MCP resources `skill://<name>`, Markdown. */
export const SKILL_URI_PREFIX = 'skill://';

/** Skills as MCP resources: the trigger line is the description. */
export function skillResources(skills: readonly SkillDefinition[]): Array<{ uri: string; name: string; description: string; mimeType: string }> {
  return skills.map((skill) => ({ uri: `${SKILL_URI_PREFIX}${encodeURIComponent(skill.name)}`, name: skill.name, description: skill.description, mimeType: 'text/markdown' }));
}

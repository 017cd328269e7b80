import { makeToolYaml } from './git.js';

/** The alias bomb of issue 10: aliases under yaml's alias count, 9^10 values expanded; its first alias is at line 11, column 10. */
export function aliasBombYaml(name: string): string {
  const lines = [`examples: &e0 [${Array(9).fill('lol').join(', ')}]`];
  for (let level = 1; level <= 9; level++) lines.push(`x${level}: &e${level} [${Array(9).fill(`*e${level - 1}`).join(', ')}]`);
  return `${makeToolYaml(name)}${lines.join('\n')}\n`;
}

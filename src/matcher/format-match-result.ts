import type { BrokenMatch, MatchResult } from '../core/index.js';
import { compactSchema } from './compact-schema.js';
import { paramsSkeleton } from './params-skeleton.js';
import { RELATED_WORDS } from './thesaurus.js';

/** A match result as plain text for people (what `hldp match` prints without `--json`). */
export function formatMatchResult(result: MatchResult): string {
  if (!result.found) {
    const lines = [result.incomplete === undefined ? `no tool found. ${result.suggestion}` : `no tool found yet. ${result.suggestion}`];
    if (result.near.length > 0) {
      lines.push('weakly related:');
      for (const miss of result.near) lines.push(`  ${miss.name} (${miss.display})  score ${miss.score}`);
    }
    lines.push(...brokenLines(result.broken));
    return lines.join('\n');
  }
  // the confidence and stage --json gives, first: a person could not tell a low answer from a high one (review userZ3, LOW 8)
  const lines: string[] = [`found (confidence ${result.confidence}, stage ${result.stage})`];
  if (result.incomplete !== undefined) lines.push(`incomplete: ${result.incomplete}`);
  const related = result.stage === 'vector' && result.candidates[0]?.matched.some((line) => line.startsWith(RELATED_WORDS));
  if (related) lines.push('weak match, by related words and meaning: no tool fits the intent\'s own words; the first has words WordNet relates to them and is the tool nearest in meaning; check that one fits before calling it');
  else if (result.stage === 'vector') lines.push('weak match, by meaning: no tool has the intent\'s words; the first stands out from the others as near in meaning; check that one fits before calling it');
  else if (result.contested !== undefined) {
    for (const { tool, of, text } of result.contested) lines.push(`contested: ${tool} takes ${of}'s own request '${text}' (its wording copies ${of}'s): ask which is meant before calling either`);
  } else if (result.confidence === 'low') lines.push('weak match: these tools match part of the intent; check that one fits before calling it');
  if (result.stage === 'model') lines.push('named by the configured model too (the words matched no tool well enough): a tool marked [model only] is its pick alone, after the words\' candidates');
  result.candidates.forEach((candidate, position) => {
    lines.push(`${position + 1}. ${candidate.name} (${candidate.display})  score ${candidate.score}${candidate.stage === 'model' ? '  [model only]' : ''}`);
    lines.push(`   ${candidate.intent}`);
    lines.push(`   params: ${compactSchema(candidate.params_schema)}${candidate.schema_shrunk ? ' (shrunk to list it; a call is checked against the whole)' : ''}`);
    if (candidate.matched.length > 0) lines.push(`   matched: ${candidate.matched.join('; ')}`);
  });
  lines.push(`call one with: hldp call ${result.candidates[0]!.name} --params ${paramsSkeleton(result.candidates[0]!.params_schema)}`);
  lines.push(...brokenLines(result.broken));
  return lines.join('\n');
}

// the tools that would fit but are broken: named to be fixed, never to be called
function brokenLines(broken: readonly BrokenMatch[] | undefined): string[] {
  if (broken === undefined || broken.length === 0) return [];
  return ['broken, not served (fix rather than write again):', ...broken.map((tool) => `  ${tool.name}  ${tool.error}`)];
}

import { createMatcher, createModelStage, matchWithModel, type ModelStageOptions } from '../../src/matcher/index.js';
import type { BenchQuery } from './bench-data.js';
import type { BenchWorld } from './evaluate.js';
import { asIndex } from './systems.js';

/** One language's answers over the whole registry, from the words alone and with the model stage. */
export interface ModelEffect {
  queries: number;
  answerable: number;
  /** gold tool first / among the answer's candidates, over the answerable requests */
  lexical: { hit1: number; offered: number; found_false_on_answerable: number; refused_no_tool: number };
  with_model: { hit1: number; offered: number; found_false_on_answerable: number; refused_no_tool: number; model_answers: number; model_failures_all_languages: number };
}

/**
 * Asks every request over the whole registry as `tool_find` would, once from the words alone and once
 * with the model stage (asked only where the words are not confident), per language. Needs a real
 * model: `npm run bench:match -- --model-url URL --model NAME`.
 */
export async function measureModelEffect(world: BenchWorld, queries: readonly BenchQuery[], options: ModelStageOptions): Promise<Record<string, ModelEffect>> {
  const matcher = createMatcher(asIndex([...world.toolsById.values()])).prepare();
  let failures = 0;
  const stage = createModelStage(options, { onFailure: () => (failures += 1) });
  const byLanguage = new Map<string, Array<{ query: BenchQuery; lexical: string[]; model: string[]; modelStage: boolean }>>();
  for (const query of queries) {
    const lexical = matcher.matchIntent(query.text);
    const withModel = await matchWithModel(matcher, stage, query.text);
    const names = (result: typeof lexical): string[] => (result.found ? result.candidates.map((candidate) => world.benchName.get(candidate.name)!) : []);
    const list = byLanguage.get(query.lang) ?? [];
    list.push({ query, lexical: names(lexical), model: names(withModel), modelStage: withModel.found && withModel.stage === 'model' });
    byLanguage.set(query.lang, list);
  }
  const share = (count: number, of: number): number => Math.round((count / Math.max(1, of)) * 1000) / 1000;
  const report: Record<string, ModelEffect> = {};
  for (const [language, answers] of [...byLanguage].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const gold = (query: BenchQuery): Set<string> => new Set(query.gold.map((id) => world.benchName.get(world.toolsById.get(id)!.name)!));
    const answerable = answers.filter((answer) => answer.query.gold.length > 0);
    const noTool = answers.filter((answer) => answer.query.gold.length === 0);
    const summary = (pick: (answer: (typeof answers)[number]) => string[]) => ({
      hit1: share(answerable.filter((answer) => gold(answer.query).has(pick(answer)[0] ?? '')).length, answerable.length),
      offered: share(answerable.filter((answer) => pick(answer).some((name) => gold(answer.query).has(name))).length, answerable.length),
      found_false_on_answerable: share(answerable.filter((answer) => pick(answer).length === 0).length, answerable.length),
      refused_no_tool: share(noTool.filter((answer) => pick(answer).length === 0).length, noTool.length),
    });
    report[language] = {
      queries: answers.length,
      answerable: answerable.length,
      lexical: summary((answer) => answer.lexical),
      with_model: { ...summary((answer) => answer.model), model_answers: answers.filter((answer) => answer.modelStage).length, model_failures_all_languages: failures },
    };
  }
  return report;
}

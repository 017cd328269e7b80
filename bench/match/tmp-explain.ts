import { createMatcher } from '../../src/matcher/index.js';
import { scanStarterTools } from '../../test/matcher/helpers.js';
const m = createMatcher(await scanStarterTools());
for (const q of process.argv.slice(2)) {
  const e = m.explainIntent(q);
  console.log(e.found, JSON.stringify(e.decision));
  for (const r of e.ranked.slice(0, 3)) console.log(r.tool.name, r.score, r.probability, r.matched.join('; '));
}

// A cold `hldp serve`'s matcher preparation a phase at a time (issue #18): over a scan cache a cold start wrote, the
// search index built, the calibration's basis and cut, the kept file's write, the tools' and word vectors, the warm-up;
// after each, CPU, RSS and its peak since the phase before (reset through /proc/self/clear_refs), V8's heap and array
// buffers, then again after a full collection. ROOT is a checkout with its dist/ built (run it over each side's).
// Usage: node --expose-gc bench/scan/cold-matcher-phases.mjs ROOT REPO CACHE_DIR
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
const [root, repo, cache] = process.argv.slice(2);
const d = (p) => import(`${root}/dist/${p}`);
const { Scanner } = await d('scanner/index.js');
const { createMatcher, searchIndexFiles } = await d('matcher/index.js');
const { buildSearchIndexSteps } = await d('matcher/search-index.js');
const { calibrationSteps } = await d('matcher/calibration.js');
const { calibrationBasisSteps } = await d('matcher/calibration-basis.js');
const { toolVectorSteps } = await d('matcher/similarity.js');
const { warmUpSteps } = await d('matcher/warm-up.js');
const { loadWordVectors } = await d('matcher/word-vector-file.js');
const { analysisSteps } = await d('matcher/analyze.js');
const { FITTED_DECISION, FITTED_RANKING } = await d('matcher/fitted-parameters.js');
const { runLettingGo, toolsOf } = await d('core/index.js');
const mb = (b) => Math.round(b / 2 ** 20);
const status = () => { const s = readFileSync('/proc/self/status', 'utf8'); const kb = (f) => Number(new RegExp(`^${f}:\\s+(\\d+)`, 'm').exec(s)[1]); return { rss: Math.round(kb('VmRSS') / 1024), peak: Math.round(kb('VmHWM') / 1024) }; };
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
let c0 = cpu();
const mark = (name) => {
  const st = status(); const m = process.memoryUsage(); const c = cpu();
  const before = { name, cpu_s: +(c - c0).toFixed(2), peak_mb: st.peak, rss_mb: st.rss, heap_mb: mb(m.heapUsed), external_mb: mb(m.external), buffers_mb: mb(m.arrayBuffers) };
  globalThis.gc(); const g = process.memoryUsage();
  console.log(JSON.stringify({ ...before, after_gc: { rss_mb: status().rss, heap_mb: mb(g.heapUsed), external_mb: mb(g.external), buffers_mb: mb(g.arrayBuffers) } }));
  writeFileSync('/proc/self/clear_refs', '5'); c0 = cpu();
};
const scanner = new Scanner({ repo, cacheDir: cache });
const index = await scanner.scan();
mark('scan (warm cache)');
const dir = mkdtempSync(join(tmpdir(), 'cold-matcher-phases-'));
const files = searchIndexFiles(dir);
const tools = toolsOf(index);
await runLettingGo(analysisSteps());
const search = await runLettingGo(buildSearchIndexSteps(tools));
mark('build');
const basis = await runLettingGo(calibrationBasisSteps(tools));
mark('calibration basis');
const calibration = await runLettingGo(calibrationSteps(search, FITTED_RANKING, FITTED_DECISION, basis));
mark('calibration');
await files.writeLettingGo(index, search, { basis: { texts: basis.texts, chinese: basis.chinese } }, () => true);
mark('write');
await runLettingGo(toolVectorSteps(search));
mark('tool vectors');
await loadWordVectors();
mark('word vectors');
const engine = { index: search, ranking: FITTED_RANKING, decision: FITTED_DECISION, calibration };
await runLettingGo(warmUpSteps(engine));
mark('warm-up');
rmSync(dir, { recursive: true, force: true });
globalThis.keep = [search, index, calibration];

import { formatDiagnostic, registrySourceSeen, toolCount, toolNameAt, toolsOf, type ScanProblems, type ToolDefinition, type ToolIndex } from '../../core/index.js';
import type { HldpEvent } from '../../events/index.js';
import { html, type Html } from '../html.js';
import { time } from './layout.js';

function constraints(tool: ToolDefinition): string {
  const { timeout_ms: timeout, max_output_bytes: output, require_confirm: confirm, ...rest } = tool.constraints;
  const parts = [`timeout ${timeout} ms`, `output ≤ ${output} bytes`, ...(confirm ? ['needs confirmation'] : [])];
  for (const [key, value] of Object.entries(rest)) if (value !== undefined) parts.push(`${key} ${JSON.stringify(value)}`);
  return parts.join(' · ');
}

function toolCard(tool: ToolDefinition): Html {
  const params = Object.keys((tool.params_schema.properties as Record<string, unknown> | undefined) ?? {});
  return html`<article class="tool" id="tool-${tool.name}">
<h3>${tool.name} <span class="muted">${tool.display}</span></h3>
<p>${tool.intent}</p>
<dl class="facts">
<dt>Executor</dt><dd>${tool.executor} · ${tool.method}</dd>
<dt>Params</dt><dd>${params.length ? params.join(', ') : html`<span class="muted">none</span>`}</dd>
<dt>Constraints</dt><dd>${constraints(tool)}</dd>
<dt>Why</dt><dd>${tool.why}</dd>
<dt>Author</dt><dd>${tool.author}</dd>
<dt>Created</dt><dd>${tool.created}</dd>
${tool.group ? html`<dt>Group</dt><dd>${tool.group}</dd>` : ''}
${tool.aliases.length ? html`<dt>Aliases</dt><dd>${tool.aliases.join(', ')}</dd>` : ''}
${tool.unlisted ? html`<dt>Listed</dt><dd>no (callable by name only)</dd>` : ''}
<dt>File</dt><dd><code>${tool.source.path}</code></dd>
</dl>
</article>`;
}

/** How many tools one page of the registry view shows: a page stays a few hundred KiB however large the registry. */
export const REGISTRY_PAGE = 100;

/**
 * Where a page of the registry's tools starts: `tool=` names a tool, whose page is shown (a receipt links to it);
 * else `offset`, rounded down to a page. Names are found by binary search over the sorted names, no tool made.
 */
export function registryOffset(index: ToolIndex, query: { offset?: unknown; tool?: unknown }): number {
  const tools = toolsOf(index);
  if (typeof query.tool === 'string') {
    let low = 0;
    let high = tools.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const name = toolNameAt(tools, middle) ?? '';
      if (name === query.tool) return middle - (middle % REGISTRY_PAGE);
      if (name < query.tool) low = middle + 1;
      else high = middle - 1;
    }
  }
  const offset = Number(query.offset);
  if (!Number.isSafeInteger(offset) || offset <= 0) return 0;
  return Math.min(offset - (offset % REGISTRY_PAGE), Math.max(0, tools.length - 1 - ((tools.length - 1) % REGISTRY_PAGE)));
}

/** One page of the registry's tools, made one at a time (a lazily read index makes only the page's). */
function toolsSection(index: ToolIndex, offset: number): Html {
  const tools = toolsOf(index);
  const end = Math.min(offset + REGISTRY_PAGE, tools.length);
  const page: ToolDefinition[] = [];
  // made to be shown, not kept: a page read is no reason to hold its definitions (issue #18)
  for (let position = offset; position < end; position++) page.push((tools.peek ? tools.peek(position) : tools.at(position))!);
  const pages = offset > 0 || end < tools.length
    ? html`<p class="pages">${offset > 0 ? html`<a href="/console/registry?offset=${Math.max(0, offset - REGISTRY_PAGE)}">← Previous tools</a> ` : ''}${end < tools.length ? html`<a href="/console/registry?offset=${end}">Next tools →</a>` : ''}</p>`
    : '';
  return html`<h2>Tools <span class="count">${toolCount(index)}</span></h2>
${page.length === 0 ? html`<p class="muted">None.</p>` : html`<p class="muted" data-page="tools">Tools ${offset + 1}–${end} of ${tools.length}, by name.</p>`}
${pages}
<div class="tools">${page.map(toolCard)}</div>
${pages}`;
}

/**
 * The registry: scan status and history, broken definitions with file:line:col (`problems`: as the viewer may read
 * them, `scanProblemsFor`), a page of tools, every toolset and skill; its source whole to an admin (`whole`), else as
 * `registrySourceSeen` gives it.
 */
export function registryView(index: ToolIndex, problems: ScanProblems, scanError: { message: string; at: string } | undefined, scans: HldpEvent[], offset = 0, whole = true): Html {
  const source: { repository: string; withheld?: string } = whole ? { repository: index.source } : registrySourceSeen(index.source);
  return html`<h1>Registry</h1>
<p class="muted live" data-live="scan.completed,scan.failed,definitions.broken" data-reload="true"><span class="dot" title="live"></span> Reloads when the repository is scanned.</p>
<section class="status">
<dl class="facts">
<dt>Source</dt><dd><code>${source.repository}</code>${source.withheld ? html` <span class="muted">(${source.withheld})</span>` : ''}</dd>
<dt>Commit</dt><dd><code>${index.commit}</code></dd>
<dt>Scanned</dt><dd>${time(index.scanned_at)}</dd>
<dt>Served</dt><dd>${toolCount(index)} tools, ${index.toolsets.length} toolsets, ${index.skills.length} skills</dd>
${index.stale ? html`<dt>Stale</dt><dd class="error">${index.stale.reason} (since ${index.stale.since})</dd>` : ''}
${scanError ? html`<dt>Last scan</dt><dd class="error">failed ${time(scanError.at)}: ${scanError.message}</dd>` : ''}
</dl>
</section>
<section class="broken">
${brokenSection(problems)}
</section>
<section>
<h2>Scans</h2>
${scans.length === 0
  ? html`<p class="muted">No rescan since the event backlog began.</p>`
  : html`<table class="plain"><thead><tr><th>When</th><th>Instance</th><th>Result</th><th>Commit</th><th>Tools</th><th>Errors</th></tr></thead><tbody>${scans.map((event) =>
      event.type === 'scan.failed'
        ? html`<tr class="failed"><td>${time(event.at)}</td><td>${scanInstance(event)}</td><td>failed</td><td colspan="3">${String(event.data.error ?? '')}</td></tr>`
        : html`<tr><td>${time(event.at)}</td><td>${scanInstance(event)}</td><td>${event.data.changed ? 'new commit' : 'unchanged'}</td><td><code>${String(event.data.commit ?? '').slice(0, 12)}</code></td><td>${String(event.data.tools ?? '')}</td><td>${scanErrors(event)}</td></tr>`,
    )}</tbody></table>`}
</section>
<section>
${toolsSection(index, offset)}
</section>
<section>
<h2>Toolsets <span class="count">${index.toolsets.length}</span></h2>
${index.toolsets.length === 0 ? html`<p class="muted">None.</p>` : html`<table class="plain"><thead><tr><th>Name</th><th>Description</th><th>Tools</th><th>Author</th><th>Why</th></tr></thead><tbody>${index.toolsets.map((toolset) => html`<tr><td>${toolset.name}</td><td>${toolset.description}</td><td>${toolset.tools.join(', ') || 'all'}</td><td>${toolset.author}</td><td>${toolset.why}</td></tr>`)}</tbody></table>`}
<h2>Skills <span class="count">${index.skills.length}</span></h2>
${index.skills.length === 0 ? html`<p class="muted">None.</p>` : html`<table class="plain"><thead><tr><th>Name</th><th>When to read it</th><th>Toolset</th></tr></thead><tbody>${index.skills.map((skill) => html`<tr><td>${skill.name}</td><td>${skill.description}</td><td>${skill.toolset ?? skill.name}</td></tr>`)}</tbody></table>`}
</section>`;
}

function brokenSection({ errors, warnings, errors_withheld: withheld }: ScanProblems): Html {
  // the count is of definitions (files), as the start's "N definition(s) dropped" and a non-admin's count are; the
  // errors are counted beside it: "7" for 4 broken files read as 7 broken (review userZ10, U10-17)
  const files = new Set(errors.map((error) => error.file)).size;
  return html`<h2>Broken definitions <span class="count">${withheld ? withheld.files : files}</span>${!withheld && errors.length > files ? html` <span class="muted">(${errors.length} errors)</span>` : ''}</h2>
${withheld
  ? html`<p class="muted" data-code="ERRORS_WITHHELD">${withheld.note}.</p>`
  : errors.length === 0
    ? html`<p class="muted">None: every definition at this commit loads.</p>`
    : html`<ul class="diagnostics">${errors.map((error) => html`<li class="diagnostic"><code>${error.file}:${error.line}:${error.column}</code> <span class="code">${error.code}</span> ${error.message}</li>`)}</ul>`}
${warnings.length ? html`<details><summary>${warnings.length} warnings</summary><ul class="diagnostics">${warnings.map((warning) => html`<li><code>${formatDiagnostic(warning)}</code></li>`)}</ul></details>` : ''}`;
}

// each instance on a store scans, and says so: which one, by the start of its instance id (review userZ6 F5)
function scanInstance(event: HldpEvent): string {
  return typeof event.data.instance === 'string' ? event.data.instance : '—';
}

// errors, and in how many files: "8" beside "1 definition failed to load" read as 8 broken (review userZ6 F5)
function scanErrors(event: HldpEvent): string {
  const errors = Number(event.data.errors ?? 0);
  const files = event.data.broken_files;
  if (errors === 0 || typeof files !== 'number') return String(event.data.errors ?? '');
  return `${errors} in ${files} ${files === 1 ? 'file' : 'files'}`;
}

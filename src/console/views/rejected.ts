import type { RejectedCall } from '../../core/index.js';
import type { ConsoleRejectionQuery } from '../console-backend.js';
import { html, type Html } from '../html.js';
import { firstLine, time } from './layout.js';

/** The rejected view's filters, as its form sends them. */
export interface RejectionFilters {
  tool: string;
  caller: string;
  code: string;
  offset: number;
}

const PAGE = 100;

function field(query: Record<string, unknown>, name: string): string {
  const value = query[name];
  return typeof value === 'string' ? value.trim().slice(0, 200) : '';
}

/** The filters of a request's query string. */
export function rejectionFilters(query: Record<string, unknown>): RejectionFilters {
  const offset = Number(field(query, 'offset'));
  return { tool: field(query, 'tool'), caller: field(query, 'caller'), code: field(query, 'code'), offset: Number.isSafeInteger(offset) && offset > 0 ? offset : 0 };
}

/** What the filters ask of the store: one page, and one more row to know whether there is another. */
export function rejectionQuery(filters: RejectionFilters): ConsoleRejectionQuery {
  return {
    ...(filters.tool ? { tool: filters.tool } : {}),
    ...(filters.caller ? { caller: filters.caller } : {}),
    ...(filters.code ? { code: filters.code } : {}),
    limit: PAGE + 1,
    offset: filters.offset,
  };
}

function olderLink(filters: RejectionFilters, everyone: boolean): string {
  const parameters = new URLSearchParams();
  if (filters.tool) parameters.set('tool', filters.tool);
  if (everyone && filters.caller) parameters.set('caller', filters.caller);
  if (filters.code) parameters.set('code', filters.code);
  parameters.set('offset', String(filters.offset + PAGE));
  return `/console/rejected?${parameters.toString()}`;
}

/** The params as sent (secrets already redacted by the store), on one line. */
function paramsText(params: unknown): string {
  const text = JSON.stringify(params ?? null) ?? 'null';
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/**
 * Calls refused before anything ran, newest first, from the store: they stay after the event backlog has rolled
 * over. `everyone`: the viewer sees every caller's, not only its own.
 */
export function rejectedView(rejections: RejectedCall[], filters: RejectionFilters, everyone = true): Html {
  const shown = rejections.slice(0, PAGE);
  return html`<h1>Rejected calls</h1>
<form class="filters" method="get" action="/console/rejected">
<label>Tool <input name="tool" value="${filters.tool}" size="12"></label>
${everyone ? html`<label>Caller <input name="caller" value="${filters.caller}" size="10"></label>` : ''}
<label>Code <input name="code" value="${filters.code}" size="14" placeholder="TOOL_NOT_FOUND"></label>
<button type="submit">Filter</button>
</form>
<p class="muted live" data-live="call.rejected" data-reload="true"><span class="dot" title="live"></span> Calls refused before anything ran: unknown tools, broken definitions, invalid params, forbidden tools, deadlines not allowed. Times are UTC.${everyone ? '' : ' Only your own calls are shown.'}</p>
${shown.length === 0
  ? html`<p class="empty">No rejected calls${filters.tool || filters.caller || filters.code ? ' match' : ''}.</p>`
  : html`<table class="receipts"><thead><tr><th>When</th><th>Tool</th><th>Code</th><th>Caller</th><th>Session</th><th>Why</th><th>Params</th></tr></thead><tbody>${shown.map(
      (rejection) => html`<tr class="failed" data-rejection="${rejection.id}"><td data-label="When">${time(rejection.at)}</td><td data-label="Tool">${rejection.tool}</td><td data-label="Code">${rejection.code}</td><td data-label="Caller">${rejection.caller ?? html`<span class="muted">—</span>`}</td><td data-label="Session">${rejection.session ?? html`<span class="muted">—</span>`}</td><td data-label="Why" class="error-line" title="${rejection.reason}">${firstLine(rejection.reason, 200)}</td><td data-label="Params"><code>${paramsText(rejection.params)}</code></td></tr>`,
    )}${rejections.length > PAGE ? html`<tr class="more"><td colspan="7"><a href="${olderLink(filters, everyone)}">Older →</a></td></tr>` : ''}</tbody></table>`}`;
}

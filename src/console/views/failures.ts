import type { ConsoleReceiptPage, ConsoleReceiptQuery } from '../console-backend.js';
import { html, type Html } from '../html.js';
import { firstLine, time } from './layout.js';

/** The failures view's filters, as the form sends them. */
export interface FailureFilters {
  status: 'failed' | 'all' | 'ok';
  tool: string;
  caller: string;
  session: string;
  code: string;
  since: string;
  until: string;
  q: string;
  offset: number;
}

/** How many calls a page lists at most. */
export const PAGE = 50;

/** How many bytes of stored calls one page of the list (no `q=`) reads at most, as GET /v1/receipts: a page of large calls ends early. */
export const LIST_BYTES = 4 * 1024 * 1024;

/** How many calls (the newest that meet the other filters) one search reads: a search never walks the whole store. */
export const SEARCH_ROWS = 10_000;

/** How many bytes of stored calls one search reads at most: its cost is bounded by bytes, not only by rows. */
export const SEARCH_BYTES = 16 * 1024 * 1024;

/** A form field's value: a string of at most 200 characters, trimmed. */
function field(query: Record<string, unknown>, name: string): string {
  const value = query[name];
  return typeof value === 'string' ? value.trim().slice(0, 200) : '';
}

/** A time field: `datetime-local` (read as UTC) or ISO; empty when it is neither. */
function timeField(query: Record<string, unknown>, name: string): string {
  const value = field(query, name);
  if (value === '') return '';
  const withZone = /(?:Z|[+-]\d\d:\d\d)$/.test(value) ? value : `${value}Z`;
  return Number.isNaN(Date.parse(withZone)) ? '' : new Date(withZone).toISOString();
}

/** The filters of a request's query string. */
export function failureFilters(query: Record<string, unknown>): FailureFilters {
  const status = field(query, 'status');
  const offset = Number(field(query, 'offset'));
  return {
    status: status === 'all' || status === 'ok' ? status : 'failed',
    tool: field(query, 'tool'), caller: field(query, 'caller'), session: field(query, 'session'), code: field(query, 'code'),
    since: timeField(query, 'since'), until: timeField(query, 'until'), q: field(query, 'q'),
    offset: Number.isSafeInteger(offset) && offset > 0 ? offset : 0,
  };
}

/** What the filters ask of the store. */
export function receiptQuery(filters: FailureFilters): ConsoleReceiptQuery {
  return {
    ...(filters.status === 'all' ? {} : { status: filters.status }),
    ...(filters.tool ? { tool: filters.tool } : {}),
    ...(filters.caller ? { caller: filters.caller } : {}),
    ...(filters.session ? { session: filters.session } : {}),
    ...(filters.code ? { code: filters.code } : {}),
    ...(filters.since ? { since: filters.since } : {}),
    ...(filters.until ? { until: filters.until } : {}),
    ...(filters.q ? { text: filters.q } : {}),
    // text and code are read from a call's stored body: either makes the page a bounded search (review J F3)
    ...(filters.q || filters.code ? { searchRows: SEARCH_ROWS, searchBytes: SEARCH_BYTES } : {}),
    // a search reads one more than shown to know whether more match; a plain page is told so by the store
    limit: filters.q || filters.code ? PAGE + 1 : PAGE,
    offset: filters.offset,
  };
}

function searchOf(filters: FailureFilters, offset: number): string {
  const parameters = new URLSearchParams();
  for (const [key, value] of Object.entries({ ...filters, offset })) if (value !== '' && value !== 0 && !(key === 'status' && value === 'failed')) parameters.set(key, String(value));
  const text = parameters.toString();
  return text ? `?${text}` : '';
}

/** The rows of a page of receipts, newest first, failures marked; a word when the page ended early; and a link to the next page. */
export function receiptRows(calls: ConsoleReceiptPage, filters: FailureFilters): Html {
  const shown = calls.receipts;
  if (shown.length === 0) return html`<tr class="empty"><td colspan="7">No ${filters.status === 'failed' ? 'failed ' : ''}calls match.</td></tr>`;
  return html`${shown.map(
    (receipt) => html`<tr class="${receipt.ok ? 'ok' : 'failed'}" data-receipt="${receipt.id}">
<td data-label="When">${time(receipt.started_at)}</td>
<td data-label="Tool"><a href="/console/receipts/${encodeURIComponent(receipt.id)}">${receipt.ok ? '✓' : '✗'} ${receipt.tool}</a></td>
<td data-label="Outcome">${receipt.ok ? 'ok' : receipt.code ?? 'failed'}${receipt.exit_code !== null && !receipt.ok ? html` <span class="muted">exit ${receipt.exit_code}</span>` : ''}</td>
<td data-label="Caller">${receipt.caller ?? html`<span class="muted">—</span>`}</td>
<td data-label="Session">${receipt.session ?? html`<span class="muted">—</span>`}</td>
<td data-label="Took">${receipt.duration_ms === null ? html`<span class="muted">—</span>` : `${receipt.duration_ms} ms`}</td>
<td data-label="Error" class="error-line">${firstLine(receipt.error_head)}</td>
</tr>`,
  )}${calls.endedEarly ? html`<tr class="more" data-code="ENDED_EARLY"><td colspan="7" class="muted">This page lists ${shown.length} of ${PAGE} calls: the next would have taken it past ${LIST_BYTES / 1024 / 1024} MiB of stored calls (their output is large). Older → continues from the next.</td></tr>` : ''}${calls.more ? html`<tr class="more"><td colspan="7"><a href="/console/failures${searchOf(filters, filters.offset + shown.length)}">Older →</a></td></tr>` : ''}`;
}

/** The failures view: filters, then the rows, which reload when a receipt is stored (SSE), without reloading the page. `everyone`: the viewer sees every principal's calls, not only its own. */
export function failuresView(calls: ConsoleReceiptPage, filters: FailureFilters, everyone = true): Html {
  const option = (value: string, label: string) => html`<option value="${value}"${filters.status === value ? html` selected` : ''}>${label}</option>`;
  return html`<h1>Calls</h1>
<form id="filters" class="filters" method="get" action="/console/failures" hx-get="/console/failures/rows" hx-target="#rows" hx-trigger="input changed delay:300ms from:#q, change" hx-push-url="false">
<label>Show <select name="status">${option('failed', 'failures')}${option('all', 'all calls')}${option('ok', 'successes')}</select></label>
<label>Tool <input name="tool" value="${filters.tool}" size="12"></label>
${everyone ? html`<label>Caller <input name="caller" value="${filters.caller}" size="10"></label>` : ''}
<label>Session <input name="session" value="${filters.session}" size="10"></label>
<label>Code <input name="code" value="${filters.code}" size="12" placeholder="NONZERO_EXIT"></label>
<label>From <input name="since" type="datetime-local" step="1" value="${filters.since.replace(/\.\d+Z$|Z$/, '')}"></label>
<label>To <input name="until" type="datetime-local" step="1" value="${filters.until.replace(/\.\d+Z$|Z$/, '')}"></label>
<label class="grow">Search error and output <input id="q" name="q" type="search" value="${filters.q}" placeholder="No such file"></label>
<input type="hidden" name="offset" value="${filters.offset || ''}">
<button type="submit">Filter</button>
</form>
${filters.q || filters.code ? html`<p class="muted">The search (text or code) reads only the newest ${SEARCH_ROWS.toLocaleString('en')} calls that meet the other filters, and of them at most ${SEARCH_BYTES / 1024 / 1024} MiB (fewer calls when their output is large); set To earlier to search older ones.</p>` : ''}
<p class="muted live" data-live="receipt.stored" data-refresh="rows" data-source="filters"><span class="dot" title="live"></span> New calls appear here as they are stored. Times are UTC.${everyone ? '' : ' Only your own calls are shown.'}</p>
<table class="receipts">
<thead><tr><th>When</th><th>Tool</th><th>Outcome</th><th>Caller</th><th>Session</th><th>Took</th><th>Error</th></tr></thead>
<tbody id="rows" data-url="/console/failures/rows">
${receiptRows(calls, filters)}
</tbody>
</table>`;
}

import type { HldpEvent } from '../../events/index.js';
import { html, type Html } from '../html.js';
import { firstLine, time } from './layout.js';

/** Calls refused before anything ran, newest first (from the event log's backlog). */
export function rejectedView(events: HldpEvent[]): Html {
  return html`<h1>Rejected calls</h1>
<p class="muted live" data-live="call.rejected" data-reload="true"><span class="dot" title="live"></span> Calls refused before anything ran: unknown tools, broken definitions, invalid params, forbidden tools. Kept as long as the event backlog keeps them.</p>
${events.length === 0
  ? html`<p class="empty">None in the backlog.</p>`
  : html`<table class="receipts"><thead><tr><th>When</th><th>Tool</th><th>Code</th><th>Caller</th><th>Why</th></tr></thead><tbody>${events.map(
      (event) => html`<tr class="failed"><td data-label="When">${time(event.at)}</td><td data-label="Tool">${String(event.data.tool ?? '—')}</td><td data-label="Code">${String(event.data.code ?? '')}</td><td data-label="Caller">${String(event.data.caller ?? '—')}</td><td data-label="Why" class="error-line" title="${String(event.data.error ?? '')}">${firstLine(String(event.data.error ?? ''), 200)}</td></tr>`,
    )}</tbody></table>`}`;
}

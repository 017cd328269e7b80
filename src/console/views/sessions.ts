import type { ConsoleSessionSummary } from '../console-backend.js';
import { html, type Html } from '../html.js';
import { time } from './layout.js';

/** Live agent sessions and their active toolsets. */
export function sessionsView(sessions: ConsoleSessionSummary[]): Html {
  return html`<h1>Sessions</h1>
<p class="muted">Live agent sessions (MCP connections and X-HLDP-Session), most recently used first: this instance's, or every instance's when sessions are kept in the shared store.</p>
${sessions.length === 0
  ? html`<p class="empty">No live sessions.</p>`
  : html`<table class="receipts"><thead><tr><th>Session</th><th>Principal</th><th>Active toolsets</th><th>Loaded tools</th><th>Last used</th><th>Opened</th></tr></thead><tbody>${sessions.map(
      (session) => html`<tr><td data-label="Session"><code>${session.id}</code></td><td data-label="Principal">${session.principal ?? '—'}</td>
<td data-label="Toolsets">${session.toolsets.length === 0 ? html`<span class="muted">none (all visible)</span>` : session.toolsets.map((toolset) => (toolset.gone ? html`<span class="tag gone" title="${toolset.gone}"><del>${toolset.name}</del> (gone)</span> <span class="muted">${toolset.gone}</span> ` : html`<span class="tag" title="${toolset.expires_at ? `until ${toolset.expires_at}` : 'for the whole session'}">${toolset.name}${toolset.scope === 'turn' ? ' (turn)' : ''}</span> `))}</td>
<td data-label="Loaded">${session.loaded.length === 0 ? html`<span class="muted">—</span>` : session.loaded.map((name, at) => html`${at > 0 ? ', ' : ''}${session.removed?.[name] ? html`<del>${name}</del> <span class="muted">(${session.removed[name]})</span>` : name}`)}</td>
<td data-label="Last used">${time(session.last_used)}</td><td data-label="Opened">${time(session.created_at)}</td></tr>`,
    )}</tbody></table>`}`;
}

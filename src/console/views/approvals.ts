import type { HldpEvent } from '../../events/index.js';
import type { PendingApproval } from '../console-backend.js';
import { html, revealed, type Html } from '../html.js';
import { redactParams } from './receipt.js';
import { time, type Viewer } from './layout.js';

/** The pending queue: each call exactly as it would run, with approve and deny and a reason, for those who may decide. */
export function approvalsView(pending: PendingApproval[], resolved: HldpEvent[], viewer: Viewer, notice?: string): Html {
  return html`<h1>Approvals</h1>
${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}
<p class="muted live" data-live="approval.requested,approval.resolved" data-reload="true"><span class="dot" title="live"></span> Calls waiting for a person. ${pending.some((approval) => !approval.decidable) ? 'Those without buttons you may look at, not decide.' : ''}</p>
${pending.length === 0
  ? html`<p class="empty">Nothing is waiting.</p>`
  : html`<ul class="approvals">${pending.map(
      (approval) => html`<li class="approval" data-approval="${approval.id}">
<h2>${revealed(approval.tool)} <span class="muted">${approval.kind}</span></h2>
<dl class="facts">
<dt>Id</dt><dd><code>${approval.id}</code></dd>
<dt>Asked</dt><dd>${time(approval.created_at)}</dd>
<dt>Expires</dt><dd>${time(approval.expires_at)}</dd>
<dt>Commit</dt><dd><code>${approval.commit.slice(0, 12)}</code></dd>
${approval.caller ? html`<dt>Caller</dt><dd>${revealed(approval.caller)}</dd>` : ''}
${approval.session ? html`<dt>Session</dt><dd>${revealed(approval.session)}</dd>` : ''}
${approval.reason ? html`<dt>Why it waits</dt><dd>${revealed(approval.reason)}</dd>` : ''}
</dl>
<pre>
${revealed(JSON.stringify(redactParams(approval.params), null, 2))}</pre>
${approval.decidable
  ? html`<form method="post" action="/console/approvals/${encodeURIComponent(approval.id)}/decide" class="decide">
<input type="hidden" name="_csrf" value="${viewer.csrf}">
<label>Reason <input name="reason" maxlength="500" placeholder="why (kept with the decision)"></label>
<button type="submit" name="decision" value="approve" class="approve">Approve and run</button>
<button type="submit" name="decision" value="deny" class="deny">Deny</button>
</form>`
  : ''}
</li>`,
    )}</ul>`}
<h2>Decided lately</h2>
${resolved.length === 0
  ? html`<p class="muted">None yet.</p>`
  : html`<table class="plain"><thead><tr><th>When</th><th>Tool</th><th>Decision</th><th>By</th><th>Reason</th><th>Receipt</th></tr></thead><tbody>${resolved.map(
      (event) => html`<tr><td>${time(event.at)}</td><td>${revealed(String(event.data.tool ?? ''))}</td><td>${String(event.data.decision ?? '')}</td><td>${String(event.data.by ?? '')}</td><td>${revealed(String(event.data.reason ?? ''))}</td><td>${typeof event.data.receipt === 'string' ? html`<a href="/console/receipts/${encodeURIComponent(event.data.receipt)}">${event.data.receipt.slice(0, 8)}</a>` : ''}</td></tr>`,
    )}</tbody></table>`}`;
}

import { secretsHeldWords } from '../../core/index.js';
import type { HldpEvent } from '../../events/index.js';
import type { ConsoleApprovalRecord, PendingApproval } from '../console-backend.js';
import { html, revealed, type Html } from '../html.js';
import { namedKeys, secretLookingKeys } from './receipt.js';
import { time, type Viewer } from './layout.js';
import { decisionWords, ruleFact, row, viaWords } from './receipt-facts.js';

/** How many pending requests one page of the approvals view shows. */
export const APPROVALS_PAGE = 20;

/** How much of a request's params (JSON text, in characters) the list shows; the request's own page shows them whole. */
export const PARAMS_PREVIEW = 4096;

/** Where the approvals view's pages are: which one, and whether an older one follows. */
export interface ApprovalsPaging {
  offset: number;
  more: boolean;
}

/** One request: what it would run, who asked and why; `whole` shows every param, else a preview and a link to the whole. */
function approvalItem(approval: PendingApproval, viewer: Viewer, whole: boolean): Html {
  // Shown as they will run: the params come without the configured secrets (shownParams) and nothing else is
  // hidden — the agent names the keys, so a key that looks secret is named here rather than its value masked
  const params = JSON.stringify(approval.params, null, 2);
  const secretKeys = secretLookingKeys(approval.params);
  const cut = !whole && params.length > PARAMS_PREVIEW;
  const link = `/console/approvals/${encodeURIComponent(approval.id)}`;
  return html`<li class="approval" data-approval="${approval.id}">
<h2>${revealed(approval.tool)} <span class="muted">${approval.kind}</span></h2>
<dl class="facts">
<dt>Id</dt><dd><a href="${link}"><code>${approval.id}</code></a></dd>
<dt>Asked</dt><dd>${time(approval.created_at)}</dd>
<dt>Expires</dt><dd>${time(approval.expires_at)}</dd>
<dt>Commit</dt><dd><code>${approval.commit.slice(0, 12)}</code></dd>
${approval.caller ? html`<dt>Caller</dt><dd>${revealed(approval.caller)}</dd>` : ''}
${approval.session ? html`<dt>Session</dt><dd>${revealed(approval.session)}</dd>` : ''}
${approval.reason ? html`<dt>Why it waits</dt><dd>${revealed(approval.reason)}</dd>` : ''}
</dl>
${secretKeys.length > 0 ? html`<p class="notice" data-secret-keys="${secretKeys.length}">Named like credentials, shown as they will be sent: <code>${revealed(namedKeys(secretKeys))}</code>. The gateway's own secrets would read <code>[REDACTED]</code>; these are the caller's.</p>` : ''}
${approval.secrets_held ? html`<p class="notice" data-secrets-held="${approval.secrets_held.length}">${secretsHeldWords(approval.secrets_held)}</p>` : ''}
<pre>
${revealed(cut ? params.slice(0, PARAMS_PREVIEW) : params)}</pre>
${cut ? html`<p class="notice" data-cut="params">The params are cut here: ${(params.length - PARAMS_PREVIEW).toLocaleString('en')} more characters. <a href="${link}">Read the whole request</a> before deciding.</p>` : ''}
${approval.outdated ? html`<p class="notice" data-outdated="true">Outdated: ${revealed(approval.outdated)}. It can no longer run as asked: closing it cancels it, and its caller must call again.</p>` : ''}
${approval.elsewhere ? html`<p class="notice" data-elsewhere="${approval.gone ? 'gone' : approval.stranded ? 'stranded' : approval.ended ? 'ended' : 'true'}">${approval.gone ? 'No gateway runs it' : approval.stranded ? 'Settings changed' : approval.ended ? 'Session ended' : 'Runs elsewhere'}: ${revealed(approval.elsewhere)}.${approval.filed_at ? html` <a href="${approval.filed_at}/console/approvals/${encodeURIComponent(approval.id)}">Open it at the gateway that filed it</a>.` : ''}</p>` : ''}
${approval.decidable
  // Enter in the Reason box submits with the form's default button, its first: a disabled one, so Enter sends nothing
  // (it had approved and run a call whose reason said deny, review userZ6 F1); only a button chosen decides
  ? html`<form method="post" action="/console/approvals/${encodeURIComponent(approval.id)}/decide" class="decide">
<input type="hidden" name="_csrf" value="${viewer.csrf}">
<button type="submit" disabled hidden tabindex="-1" aria-hidden="true" data-implicit-submit="none"></button>
<label>Reason <input name="reason" maxlength="500" placeholder="why (kept with the decision)"></label>
${approval.outdated
  ? html`<button type="submit" name="decision" value="approve" class="deny">Close as outdated</button>`
  : approval.stranded
  ? html`<button type="submit" name="decision" value="deny" class="deny">Deny</button>`
  : approval.ended
  ? html`<button type="submit" name="decision" value="approve" class="approve">Approve — it runs in the caller's next session</button>
<button type="submit" name="decision" value="deny" class="deny">Deny</button>`
  : approval.elsewhere
  ? html`<button type="submit" name="decision" value="approve" class="approve">Approve — it runs at the gateway that filed it</button>
<button type="submit" name="decision" value="deny" class="deny">Deny</button>`
  : html`<button type="submit" name="decision" value="approve" class="approve">Approve and run</button>
<button type="submit" name="decision" value="deny" class="deny">Deny</button>`}
</form>`
  : ''}
</li>`;
}

/** One pending request whole, with approve and deny for those who may decide; `notice`: what came of a decision just tried. */
export function approvalView(approval: PendingApproval, viewer: Viewer, notice?: string): Html {
  return html`<h1>Approval request</h1>
${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}
<p class="muted"><a href="/console/approvals">← every waiting request</a></p>
<ul class="approvals">${approvalItem(approval, viewer, true)}</ul>`;
}

/** A request that was decided (or expired): what it asked, who decided it, how, when and why, and the receipt it produced; nothing to decide. */
export function decidedApprovalView(approval: ConsoleApprovalRecord): Html {
  const decision = approval.decision;
  // approved, then no gateway with its settings ran it before its expiry: not "no one decided in time" (review userZ6 F10)
  const words = approval.status === 'expired' && decision?.by ? 'approved, then expired: no gateway with its settings ran it, nothing ran' : decisionWords(approval.status);
  return html`<h1>Approval request <span class="muted">${words}</span></h1>
<p class="muted"><a href="/console/approvals">← every waiting request</a></p>
<dl class="facts" data-approval="${approval.id}">
${row('Id', html`<code>${approval.id}</code>`)}
${row('Tool', revealed(approval.tool))}
${row('Caller', revealed(approval.caller))}
${row('Asked', time(approval.created_at))}
${row('Expires', time(approval.expires_at))}
${row('Rule', ruleFact(approval.rule.where, approval.rule.reason))}
${row('Deadline', approval.timeout_ms === null ? null : `${approval.timeout_ms.toLocaleString('en')} ms`)}
${row('Decision', html`<span data-decision="${approval.status}">${words}</span>`)}
${row('Decided by', decision?.by ? revealed(decision.by) : null)}
${row('Via', decision?.via ? viaWords(decision.via) : null)}
${row('Decided', time(decision?.at))}
${row('Their reason', decision?.reason ? revealed(decision.reason) : null)}
${row('Receipt', approval.receipt_id ? html`<a href="/console/receipts/${encodeURIComponent(approval.receipt_id)}"><code>${approval.receipt_id}</code></a>` : null)}
</dl>`;
}

/** The pending queue, a page at a time: each call as it would run (long params cut, with a link to the whole), with approve and deny and a reason, for those who may decide. */
export function approvalsView(pending: PendingApproval[], resolved: HldpEvent[], viewer: Viewer, notice?: string, paging: ApprovalsPaging = { offset: 0, more: false }): Html {
  const { offset, more } = paging;
  return html`<h1>Approvals</h1>
${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}
<p class="muted live" data-live="approval.requested,approval.resolved" data-reload="ask"><span class="dot" title="live"></span> Calls waiting for a person. ${pending.some((approval) => !approval.decidable) ? 'Those without buttons you may look at, not decide.' : ''}</p>
${pending.length === 0
  ? html`<p class="empty">Nothing is waiting.</p>`
  : html`<p class="muted" data-page="approvals">Requests ${offset + 1}–${offset + pending.length}, newest first.${more ? ' More wait on the next page.' : ''}</p>
<ul class="approvals">${pending.map((approval) => approvalItem(approval, viewer, false))}</ul>`}
${offset > 0 || more
  ? html`<p class="pages">${offset > 0 ? html`<a href="/console/approvals?offset=${Math.max(0, offset - APPROVALS_PAGE)}">← Newer requests</a> ` : ''}${more ? html`<a href="/console/approvals?offset=${offset + APPROVALS_PAGE}">Older requests →</a>` : ''}</p>`
  : ''}
<h2>Decided lately</h2>
${resolved.length === 0
  ? html`<p class="muted">None yet.</p>`
  // one card a decision on a phone, as the failures view (its Reason and Receipt sat off-screen), and an approved call
  // that did not succeed says so: "approved" alone read as done for a run that was interrupted (review userZ6 F6)
  : html`<table class="plain receipts" data-decided="lately"><thead><tr><th>When</th><th>Tool</th><th>Decision</th><th>By</th><th>Reason</th><th>Receipt</th></tr></thead><tbody>${resolved.map(
      (event) => html`<tr><td data-label="When">${time(event.at)}</td><td data-label="Tool">${revealed(String(event.data.tool ?? ''))}</td><td data-label="Decision">${decidedWords(event.data)}</td><td data-label="By">${String(event.data.by ?? '')}</td><td data-label="Reason">${revealed(String(event.data.reason ?? ''))}</td><td data-label="Receipt">${typeof event.data.receipt === 'string' ? html`<a href="/console/receipts/${encodeURIComponent(event.data.receipt)}">${event.data.receipt.slice(0, 8)}</a>` : ''}</td></tr>`,
    )}</tbody></table>`}`;
}

/** An approval.resolved event's decision, and for an approved call that did not succeed, how it ended (its receipt's code). */
function decidedWords(data: Record<string, unknown>): string {
  const decision = String(data.decision ?? '');
  if (decision !== 'approved' || data.ok !== false) return decision;
  const code = typeof data.code === 'string' ? data.code : 'failed';
  return code === 'CANCELLED' ? 'approved; the run did not finish (CANCELLED: interrupted or cancelled)' : `approved; the call failed (${code})`;
}

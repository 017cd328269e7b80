import { SECRET_NAME, type Receipt, type ToolDefinition } from '../../core/index.js';
import { html, type Html } from '../html.js';
import type { ConsoleApprovalRecord } from '../console-backend.js';
import { time } from './layout.js';
import { approvalRows, deadlineRow, outputRow, row } from './receipt-facts.js';

const CUT_MARKER = /\[… \d+ bytes cut of \d+ …\]/g;

/** How many characters of each of a receipt's strings its view shows; the rest is behind a link to the raw bytes. */
export const DISPLAY_CHARACTERS = 256 * 1024;

/**
 * Raw text in a `<pre>`, exactly: escaped, a newline after `<pre>` (the parser drops the first one), the cut marker
 * marked. `whole`: the text's whole size in bytes when the view shows only its start (the store cut it for display),
 * said above and below it with a link to all of it at `rawHref`.
 */
function rawBlock(id: string, label: string, text: string, whole: number | undefined, rawHref: string): Html {
  const parts: Html[] = [];
  let at = 0;
  for (const match of text.matchAll(CUT_MARKER)) {
    parts.push(html`${text.slice(at, match.index)}<mark class="cut">${match[0]}</mark>`);
    at = match.index + match[0].length;
  }
  parts.push(html`${text.slice(at)}`);
  const shown = new TextEncoder().encode(text).length;
  const notice = whole === undefined ? '' : html`<p class="notice shown-part" data-code="DISPLAY_CUT">Showing the first ${shown.toLocaleString('en')} of its ${whole.toLocaleString('en')} bytes. <a href="${rawHref}">All ${whole.toLocaleString('en')} bytes, raw →</a></p>`;
  return html`<section class="raw">
<header><h2>${label}</h2> <span class="muted">${(whole ?? shown).toLocaleString('en')} bytes stored${whole === undefined ? '' : html`, the first ${shown.toLocaleString('en')} shown here`}</span> <button type="button" class="copy" data-copy="${id}">Copy</button></header>
${notice}<pre id="${id}">
${parts}</pre>
${notice}</section>`;
}

// the one rule of what looks like a credential, shared with the executors' URLs in errors
const SECRET_KEY = SECRET_NAME;

/** Params with the values of secret-looking keys replaced, at any depth. */
export function redactParams(value: unknown, key = ''): unknown {
  if (SECRET_KEY.test(key) && value !== null && value !== undefined && value !== '') return '[REDACTED]';
  if (Array.isArray(value)) return value.map((item) => redactParams(item));
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, redactParams(item, name)]));
  return value;
}

/** How many secret-looking key paths an approval names before it says "and N more". */
const SECRET_KEYS_NAMED = 20;

/** The paths (`query.api_key`, `headers[0].cookie`) of params whose key looks secret, at any depth: the approval views show their values and name them, for the agent chose the keys. */
export function secretLookingKeys(value: unknown, path = ''): string[] {
  const found: string[] = [];
  const walk = (item: unknown, at: string): void => {
    if (Array.isArray(item)) item.forEach((element, index) => walk(element, `${at}[${index}]`));
    else if (typeof item === 'object' && item !== null) {
      for (const [name, inner] of Object.entries(item)) {
        const named = at === '' ? name : `${at}.${name}`;
        if (SECRET_KEY.test(name)) found.push(named);
        walk(inner, named);
      }
    }
  };
  walk(value, path);
  return found;
}

/** A list of secret-looking key paths, the first few named and the rest counted. */
export function namedKeys(paths: string[]): string {
  const named = paths.slice(0, SECRET_KEYS_NAMED).join(', ');
  return paths.length > SECRET_KEYS_NAMED ? `${named} and ${paths.length - SECRET_KEYS_NAMED} more` : named;
}

/**
 * One receipt: its outcome, raw output and error exactly as stored (a long one's start, said so, with a link to all of
 * it), params (secrets redacted), the approval it went through and the deadline it ran under, and whose tool it is.
 * `excerpt`: the receipt as the store cut it for display; `request`: the approval request it links, when the viewer
 * may read it (the rule's reason is kept there, not in the receipt).
 */
export function receiptView(excerpt: { receipt: Receipt; cut: Record<string, number> }, definition: ToolDefinition | undefined, servedCommit: string, request?: ConsoleApprovalRecord): Html {
  const { receipt, cut } = excerpt;
  const raw = (field: string): string => `/console/receipts/${encodeURIComponent(receipt.id)}/raw/${field}`;
  const cutParams = Object.keys(cut).filter((path) => path === 'params' || path.startsWith('params.') || path.startsWith('params['));
  const fields = receipt as unknown as Record<string, unknown>;
  const text = (name: string): string | undefined => (typeof fields[name] === 'string' ? (fields[name] as string) : undefined);
  return html`<p><a href="/console/failures">← Calls</a></p>
<h1 class="${receipt.ok ? 'ok' : 'failed'}">${receipt.ok ? '✓' : '✗'} ${receipt.tool} <span class="muted">${receipt.ok ? 'ok' : receipt.code ?? 'failed'}</span></h1>
<dl class="facts">
${row('Receipt', html`<code>${receipt.id}</code>`)}
${row('Method', `${receipt.executor} · ${receipt.method}`)}
${row('Exit', receipt.exit_code === null ? (receipt.signal ? `signal ${receipt.signal}` : null) : `${receipt.exit_code}${receipt.signal ? ` (signal ${receipt.signal})` : ''}`)}
${deadlineRow(receipt, definition, servedCommit)}
${row('Timed out', receipt.timed_out ? `yes, after ${receipt.timeout_ms ?? '?'} ms` : 'no')}
${row('Took', `${receipt.duration_ms} ms`)}
${row('Started', time(receipt.started_at))}
${row('Finished', time(receipt.finished_at))}
${row('Commit', html`<code>${receipt.commit}</code>`)}
${row('Caller', text('caller'))}
${row('Gateway', gatewayWords(receipt.source))}
${row('Repository', receipt.source?.repository)}
${row('Session', text('session'))}
${approvalRows(receipt, request)}
${outputRow(receipt, cut)}
</dl>
${receipt.error !== null ? rawBlock('error', 'Error (raw)', receipt.error, cut.error, raw('error')) : ''}
${rawBlock('output', 'Output (raw)', receipt.output, cut.output, raw('output'))}
${receipt.stderr && (receipt.stderr !== receipt.error || cut.stderr !== undefined) ? rawBlock('stderr', 'Standard error', receipt.stderr, cut.stderr, raw('stderr')) : ''}
<section class="raw">
<header><h2>Params</h2> <span class="muted">secret-looking values redacted</span></header>
${cutParams.length > 0 ? html`<p class="notice shown-part" data-code="DISPLAY_CUT">Values longer than ${DISPLAY_CHARACTERS.toLocaleString('en')} characters show only their start here: ${namedKeys(cutParams.map((path) => `${path} (${cut[path]!.toLocaleString('en')} bytes)`))}. The whole receipt: <code>GET /v1/receipts/${receipt.id}</code>.</p>` : ''}
<pre>
${JSON.stringify(redactParams(receipt.params), null, 2)}</pre>
</section>
<section class="definition">
<h2>The definition</h2>
${definition
  ? html`<dl class="facts">
${row('Display', definition.display)}
${row('Intent', definition.intent)}
${row('Why', definition.why)}
${row('Author', definition.author)}
${row('Created', definition.created)}
</dl>
<p class="muted">${servedCommit === receipt.commit ? 'As served now, at the commit this call ran on.' : html`As served now, at <code>${servedCommit.slice(0, 12)}</code>; the call ran on <code>${receipt.commit.slice(0, 12)}</code>.`} <a href="/console/registry?tool=${encodeURIComponent(receipt.tool)}#tool-${receipt.tool}">In the registry →</a></p>`
  : html`<p class="muted">'${receipt.tool}' is not in the index served now.</p>`}
</section>`;
}

// which gateway made the receipt, in words: its URL and host, or (to one who is no admin) that an administrator can see them
function gatewayWords(source: Receipt['source']): string | null {
  if (!source) return null;
  if (source.host === undefined) return source.withheld ?? null;
  return source.url ? `${source.url} on ${source.host}` : `${source.host} (CLI or stdio MCP)`;
}

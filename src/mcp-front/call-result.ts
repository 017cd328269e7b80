import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { formatDiagnostic, type MatchResult, type Receipt, type ReceiptAttachment } from '../core/index.js';
import { APPROVAL_WAIT_TOOL, CONFIRM_TOOL, FIND_TOOL, MCP_APPROVAL_WAIT_SECONDS } from '../export/index.js';
import type { CallOutcome, ConfirmationRequired, MetaOutcome } from '../gateway/service/index.js';
import type { ToolCatalog } from '../sessions/index.js';

/** The `_meta` key naming which channel of a receipt a content block carries: `output`, `error`, `stderr` or `attachment`. */
export const STREAM_META = 'hldp/stream';

type Stream = 'output' | 'error' | 'stderr' | 'notice' | 'attachment';

const block = (text: string, stream: Stream) => ({ type: 'text' as const, text, _meta: { [STREAM_META]: stream } });

/** A call's outcome as a tool result: the raw output as text, a failure as `isError` with the raw error; never a protocol error. */
export function outcomeResult(outcome: CallOutcome, catalog: ToolCatalog): CallToolResult {
  switch (outcome.kind) {
    case 'receipt': {
      const result = receiptResult(outcome.receipt);
      if (outcome.toolset_enabled) result.content.push({ type: 'text', text: `(toolset '${outcome.toolset_enabled}' was enabled to run this call)`, _meta: { [STREAM_META]: 'notice' } });
      return result;
    }
    case 'substituted':
      return { content: [{ type: 'text', text: outcome.message }], structuredContent: { code: outcome.code, ran: false, tool: catalog.listedName(outcome.tool), toolset: outcome.toolset, tools: outcome.tools, message: outcome.message } };
    case 'confirmation_required': {
      const { confirmation } = outcome;
      // the same call repeated while its request waits: no second request (review userZ9, U9-8)
      const already = confirmation.already_pending ? `This same call is already waiting as ${confirmation.id}: no new request was filed${confirmation.token ? ', and this token replaces the one given before' : ''}.\n` : '';
      const text = already + (confirmation.token
        ? `'${catalog.listedName(confirmation.tool)}' requires confirmation: nothing has run. ` +
          `To run exactly this call, call the ${CONFIRM_TOOL.name} tool with {"token": "${confirmation.token}"} before ${confirmation.expires_at}.\n` +
          `params: ${JSON.stringify(confirmation.params)}`
        : `'${catalog.listedName(confirmation.tool)}' is pending approval: nothing has run. ${confirmation.reason}. ` + waitOrNot(confirmation, catalog.listedName(confirmation.tool)) +
          `params: ${JSON.stringify(confirmation.params)}`);
      return { content: [{ type: 'text', text }], structuredContent: { ...confirmation, message: text } };
    }
    case 'not_found':
      return failure(`${outcome.error}\n${outcome.suggestion}\nTo find a tool by what it does, call ${FIND_TOOL.name} with {"intent": "..."}.`, outcome);
    case 'broken':
      return failure(`${outcome.error}\n${outcome.diagnostics.map(formatDiagnostic).join('\n')}`, outcome);
    case 'invalid_params':
    case 'confirmation_invalid':
    case 'refused':
    case 'timeout_not_allowed':
    case 'store_unavailable':
    case 'too_many_pending':
    case 'too_many_calls':
      return failure(outcome.error, outcome);
  }
}

/**
 * How the agent gets the decision: with approval_wait, or, where no one can decide the request, not at all — it was told
 * "waits for role approver or admin to decide it" and waited 10 minutes for an expiry (review userZ10, U10-8).
 */
function waitOrNot(confirmation: ConfirmationRequired, tool: string): string {
  if (confirmation.undecidable !== undefined) {
    return `Request ${confirmation.id} can be decided by no one: ${confirmation.undecidable}. As it is, it expires at ${confirmation.expires_at} and nothing runs: do not wait for it, and do not call '${tool}' again; tell the user what to configure.\n`;
  }
  return `Request ${confirmation.id} waits for ${confirmation.approvers} to decide it before ${confirmation.expires_at}; once approved, exactly this call runs once. ` +
    // the agent's way to the outcome: calling the tool again would file a second request (review userV, V4)
    `To wait for the decision and get the call's receipt, call the ${APPROVAL_WAIT_TOOL.name} tool with {"id": "${confirmation.id}"} (it waits up to ${MCP_APPROVAL_WAIT_SECONDS} s a call: call it again while pending); do not call '${tool}' again for it.\n`;
}

/**
 * A receipt: the raw output first (or, when it failed, the raw error), each channel in its own block, then an MCP
 * tool's attachments as the blocks they were (an image as an image), the whole receipt as `structuredContent`.
 */
export function receiptResult(receipt: Receipt): CallToolResult {
  const blocks: CallToolResult['content'] = receipt.ok ? [block(receipt.output, 'output')] : [block(receipt.error ?? '', 'error')];
  if (!receipt.ok && receipt.output !== '') blocks.push(block(receipt.output, 'output'));
  if (receipt.stderr !== '' && receipt.stderr !== receipt.error) blocks.push(block(receipt.stderr, 'stderr'));
  for (const attachment of receipt.attachments ?? []) blocks.push(attachmentBlock(attachment));
  return { content: blocks, structuredContent: { ...receipt }, ...(receipt.ok ? {} : { isError: true }) };
}

/**
 * An attachment as an MCP content block: an image or audio whose data the receipt holds as that block, a resource as an
 * embedded resource, a link as a link; one whose payload was left out as a text block that says so (review userZ11, U11-8).
 */
function attachmentBlock(attachment: ReceiptAttachment): CallToolResult['content'][number] {
  const _meta = { [STREAM_META]: 'attachment' };
  const mimeType = attachment.mime_type ?? undefined;
  if ((attachment.type === 'image' || attachment.type === 'audio') && attachment.data !== undefined && mimeType !== undefined) {
    return { type: attachment.type, data: attachment.data, mimeType, _meta };
  }
  if (attachment.type === 'resource' && attachment.uri !== undefined && (attachment.data !== undefined || attachment.text !== undefined)) {
    const contents = attachment.data !== undefined ? { blob: attachment.data } : { text: attachment.text! };
    return { type: 'resource', resource: { uri: attachment.uri, ...(mimeType ? { mimeType } : {}), ...contents }, _meta };
  }
  if (attachment.type === 'resource_link' && attachment.uri !== undefined) {
    return { type: 'resource_link', uri: attachment.uri, name: attachment.name ?? attachment.uri, ...(mimeType ? { mimeType } : {}), _meta };
  }
  const where = attachment.uri === undefined ? '' : ` ${attachment.uri}`;
  const why = attachment.omitted ?? 'not a block this server can pass on';
  return { type: 'text', text: `[${attachment.type}${where} (${attachment.mime_type ?? 'no MIME type'}, ${attachment.bytes} bytes): ${why}]`, _meta };
}

/** `tool_find`'s answer, with candidates under the names this server lists them by. */
export function matchResult(result: MatchResult, catalog: ToolCatalog): CallToolResult {
  const listed = result.found
    ? { ...result, candidates: result.candidates.map((candidate) => ({ ...candidate, name: catalog.listedName(candidate.name) })) }
    : {
        found: false,
        suggestion: result.suggestion,
        near: result.near.map((miss) => ({ ...miss, name: catalog.listedName(miss.name) })),
        // an answer made before the dictionary was read says so in either shape, as over HTTP (userZ7 F9)
        ...(result.incomplete === undefined ? {} : { incomplete: result.incomplete }),
        ...(result.broken ? { broken: result.broken } : {}),
      };
  return { content: [{ type: 'text', text: JSON.stringify(listed) }], structuredContent: listed };
}

/** A failure that is the caller's to fix, as `isError` text; `details` (minus `kind`) as `structuredContent`. */
export function failure(text: string, details: Record<string, unknown> = {}): CallToolResult {
  const { kind: _kind, ...structured } = details;
  return { content: [{ type: 'text', text }], structuredContent: { error: text, ...structured }, isError: true };
}

/** A meta-tool's answer: its message as text, its data as `structuredContent`; a refusal as `isError`. */
export function metaResult(outcome: MetaOutcome, catalog: ToolCatalog): CallToolResult {
  switch (outcome.kind) {
    case 'answer': {
      const { answer } = outcome;
      if (!answer.ok) return failure(answer.message, answer.data ?? {});
      return { content: [{ type: 'text', text: answer.message }], structuredContent: { message: answer.message, ...answer.data } };
    }
    case 'match':
      return matchResult(outcome.result, catalog);
    case 'call':
      return outcomeResult(outcome.outcome, catalog);
    case 'invalid':
      return failure(outcome.error, { code: outcome.code });
  }
}

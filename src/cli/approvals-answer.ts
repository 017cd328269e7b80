// What `hldp approvals --url` prints of a gateway's answer is read field by field: an answer of the right content type
// whose fields are not what the API sends (a broken or hostile server at --url) stopped the command with the engine's
// words, `Cannot read properties of undefined (reading 'reason')` (review Z15, I-1). Each field a printer reads is
// checked here first, and the first one amiss is named.
import { exceedsDepth } from '../core/index.js';

// how deep an answer may nest: the printers (JSON.stringify of params and structured content) recurse, and an answer of
// 200,000 nested lists ended the command in 'Maximum call stack size exceeded' after its decision's line (review Z17,
// Z17-4); the gateway refuses params past 64 levels, and a receipt's content is bounded by what the printers survive
const MAX_ANSWER_DEPTH = 1000;

type Shape = 'string' | 'string?' | 'boolean' | 'object' | 'object?';

// the fields `summary`, `detail` and `receiptDetail` read as text or objects; `?` admits null and absence
const RECORD: Record<string, Shape> = {
  id: 'string', status: 'string', tool: 'string', caller: 'string', executor: 'string', method: 'string', commit: 'string',
  created_at: 'string', expires_at: 'string', decided_at: 'string?', decided_by: 'string?', decided_via: 'string?',
  decision_reason: 'string?', session: 'string?', receipt_id: 'string?', outdated: 'string?', registry: 'string?', rule: 'object', run: 'object?',
};
const RULE: Record<string, Shape> = { reason: 'string', place: 'object?', filed_by: 'object?' };
const RUN: Record<string, Shape> = { by: 'string', lease_until: 'string' };
const PLACE: Record<string, Shape> = { workspace: 'string', sandbox: 'string', run_as: 'string?' };
const FILED_BY: Record<string, Shape> = { by: 'string', url: 'string?' };
const RECEIPT: Record<string, Shape> = { id: 'string', ok: 'boolean', code: 'string?', output: 'string?', error: 'string?', stderr: 'string?', source: 'object?' };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fits(value: unknown, shape: Shape): boolean {
  if (shape.endsWith('?') && (value === null || value === undefined)) return true;
  const type = shape.replace('?', '');
  return type === 'object' ? isObject(value) : typeof value === type;
}

// the first field of `value` (at `path`) that is not of its shape, as `approvals[2].rule.reason`
function fieldProblem(value: unknown, shapes: Record<string, Shape>, path: string): string | undefined {
  if (!isObject(value)) return `${path} is not an object`;
  for (const [name, shape] of Object.entries(shapes)) {
    if (!fits(value[name], shape)) return `${path}.${name} is ${value[name] === undefined ? 'missing' : `not ${shape.startsWith('object') ? 'an object' : `a ${shape.replace('?', '')}`}`}`;
  }
  return undefined;
}

function recordProblem(record: unknown, path: string): string | undefined {
  const rule = isObject(record) ? record['rule'] : undefined;
  return fieldProblem(record, RECORD, path) ?? fieldProblem(rule, RULE, `${path}.rule`)
    ?? (isObject(record) && isObject(record['run']) ? fieldProblem(record['run'], RUN, `${path}.run`) : undefined)
    ?? (isObject(rule) && isObject(rule['place']) ? fieldProblem(rule['place'], PLACE, `${path}.rule.place`) : undefined)
    ?? (isObject(rule) && isObject(rule['filed_by']) ? fieldProblem(rule['filed_by'], FILED_BY, `${path}.rule.filed_by`) : undefined);
}

/**
 * What in a 2xx answer of the approvals API is not as the gateway sends it, as far as this command prints it (`list`:
 * `{approvals: [...]}`; any other action: `{approval, receipt?, message?, lease_lapsed?}`), or undefined when it may be printed.
 */
export function approvalsAnswerProblem(body: unknown, action: 'list' | 'show' | 'approve' | 'deny' | 'cancel'): string | undefined {
  if (!isObject(body)) return 'the answer is not a JSON object';
  if (exceedsDepth(body, MAX_ANSWER_DEPTH)) return `the answer is nested more than ${MAX_ANSWER_DEPTH} levels deep`;
  if (action === 'list') {
    const approvals = body['approvals'];
    if (!Array.isArray(approvals)) return `approvals is ${approvals === undefined ? 'missing' : 'not a list'}`;
    for (const [index, record] of approvals.entries()) {
      const problem = recordProblem(record, `approvals[${index}]`);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
  const lapsed = body['lease_lapsed'];
  return recordProblem(body['approval'], 'approval')
    ?? (body['receipt'] === null || body['receipt'] === undefined ? undefined : fieldProblem(body['receipt'], RECEIPT, 'receipt'))
    ?? (fits(body['message'], 'string?') ? undefined : 'message is not a string')
    ?? (lapsed === undefined ? undefined : fieldProblem(lapsed, { error: 'string' }, 'lease_lapsed'));
}

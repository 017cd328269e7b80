/** The OpenAPI schemas of the policy routes (policies, approvals, rejected calls), spread into the document's components. */
export const POLICY_SCHEMAS = {
  PolicyList: {
    type: 'object', required: ['commit', 'policies', 'broken'],
    properties: {
      commit: { type: 'string', description: 'the policy version: the commit the policies were read from' },
      policies: { type: 'array', items: { type: 'object', description: 'a policies/<name>.hdlp as read: name, access rules and approval rules, each with its place (at: line, column)' } },
      broken: { type: 'array', items: { $ref: '#/components/schemas/Diagnostic' } },
      refusing: { type: 'string', description: 'present while a policy file cannot be read: every call is refused, and this says why' },
    },
  },
  ApprovalDecisionRequest: {
    type: 'object', additionalProperties: false,
    properties: {
      reason: { type: 'string', maxLength: 4000, description: 'why: kept on the request and in the receipt' },
      params: { type: 'object', description: 'the params the decider saw: other params than the request is bound to are refused (APPROVAL_MISMATCH), and it stays pending' },
      timeout_ms: { type: 'integer', minimum: 1, description: "approve only: the run's deadline, as in CallRequest (default: the one the call asked for)" },
    },
  },
  Approval: {
    type: 'object', required: ['id', 'status', 'caller', 'session', 'tool', 'params', 'params_hash', 'commit', 'rule', 'created_at', 'expires_at', 'decided_at', 'decided_by', 'decision_reason', 'decided_via', 'receipt_id'],
    description: 'an approval request, bound to {caller, session, tool, params digest, policy commit, expiry}, decided at most once',
    properties: {
      id: { type: 'string' }, status: { enum: ['pending', 'approved', 'denied', 'expired', 'cancelled'] }, caller: { type: 'string' }, session: { type: ['string', 'null'] },
      tool: { type: 'string' }, method: { type: 'string' }, executor: { type: 'string' }, params: { type: 'object' }, params_hash: { type: 'string' },
      commit: { type: 'string', description: 'the index commit, which is the policy version' },
      rule: { type: 'object', description: 'where (policies/x.hdlp:line:col, null for require_confirm), reason, self_approval, approvers, elicit; judged (the object ids it was judged against) and place ({workspace, sandbox, run_as, hide, ceiling, max_call_timeout_ms}: where and how confined the filing gateway runs calls; hide, ceiling and max_call_timeout_ms absent on requests filed before they were kept) and filed_by ({by, url, roll}: the process that filed it — host, pid, instance — and the URL it serves at, listen.public_url where set, null for a one-shot CLI; roll true where it kept a row in the store\'s roll of live instances, so that another instance can tell when none serving would run it; where a decider whose own place differs is sent), absent on older requests; place and filed_by are for an admin to read: anyone else gets place_withheld (a note that an administrator can see them) instead; timeout_from (where timeout_ms came from, as in the receipt: call, tool, default or ceiling), absent on requests filed before it was kept; a one-shot CLI or a serving instance whose own place differs decides nothing (APPROVAL_MISMATCH)' },
      timeout_ms: { type: ['integer', 'null'] }, created_at: { type: 'string' }, expires_at: { type: 'string' }, decided_at: { type: ['string', 'null'] },
      decided_by: { type: ['string', 'null'] }, decision_reason: { type: ['string', 'null'] }, decided_via: { type: ['string', 'null'] }, receipt_id: { type: ['string', 'null'] },
      run: {
        oneOf: [{ type: 'null' }, { type: 'object', required: ['by', 'lease_until'], properties: { by: { type: 'string' }, lease_until: { type: 'string' } } }],
        description: "an approved call's run: the gateway process running it (host, pid, instance: an admin's to read; anyone else reads by as 'a gateway (an administrator can see which)') and when its lease ends, renewed while it runs; a lease that lapses with no receipt stored is closed by any instance with a CANCELLED receipt saying the run was interrupted; null on an approved request that no gateway of its place has taken yet (approved at an instance that runs calls elsewhere: it waits for one, and expires at expires_at if none comes)",
      },
    },
  },
  ApprovalState: {
    type: 'object', required: ['approval', 'receipt'],
    properties: {
      approval: { $ref: '#/components/schemas/Approval' }, receipt: { oneOf: [{ type: 'null' }, { $ref: '#/components/schemas/Receipt' }] },
      lease_lapsed: {
        type: 'object', required: ['resolved_by', 'error'], properties: { resolved_by: { type: ['string', 'null'] }, error: { type: 'string' } },
        description: "on approve only: the call ran (receipt), but its run's lease lapsed and another process closed the request as interrupted first; the request is resolved by resolved_by",
      },
    },
  },
  ApprovalPage: {
    type: 'object', required: ['approvals', 'limit', 'next_cursor'],
    properties: {
      approvals: { type: 'array', items: { $ref: '#/components/schemas/Approval' } }, limit: { type: 'integer' },
      next_cursor: { type: ['string', 'null'], description: 'send it as cursor for the next page (null on the last): it continues after the last request of this page, whatever was filed meanwhile' },
      cursor: { type: 'string', description: 'the cursor this page was asked with (then offset and next_offset are absent)' },
      offset: { type: 'integer', description: 'absent when the page was asked with a cursor' }, next_offset: { type: ['integer', 'null'], description: 'absent when the page was asked with a cursor' },
      max_bytes: { type: 'integer', description: 'the most of the requests\' params (their JSON) one page holds (its first request always comes, whatever its size)' },
      ended_early: { const: true, description: 'the page holds fewer than limit requests because the next would have passed max_bytes; next_cursor (or next_offset) continues' },
    },
  },
  ApprovalRunsElsewhere: {
    type: 'object', required: ['approval', 'receipt', 'filed_by', 'message'],
    properties: {
      approval: { $ref: '#/components/schemas/Approval' }, receipt: { type: 'null', description: 'nothing ran yet' },
      filed_by: { type: ['object', 'null'], properties: { by: { type: 'string' }, url: { type: ['string', 'null'] } }, description: "the process that filed the request, where the call runs (url null: an hldp mcp or a one-shot CLI); an admin's to read (a one-shot CLI's too, which reads the store itself): null to anyone else" },
      message: { type: 'string', description: 'what happens now: where and when it runs, and that it expires unrun if no gateway with its settings runs it in time' },
    },
  },
  ApprovalRefused: {
    type: 'object', required: ['code', 'error'],
    properties: { code: { type: 'string' }, error: { type: 'string' }, approval: { $ref: '#/components/schemas/Approval' }, receipt: { $ref: '#/components/schemas/Receipt' } },
  },
  RejectedCall: {
    type: 'object', required: ['type', 'id', 'at', 'caller', 'session', 'tool', 'code', 'reason', 'params'],
    properties: {
      type: { const: 'rejected' }, id: { type: 'string' }, at: { type: 'string' }, caller: { type: ['string', 'null'] }, session: { type: ['string', 'null'] },
      tool: { type: 'string' }, code: { type: 'string' }, reason: { type: 'string' }, params: { description: 'as sent, secrets redacted; over 8 KiB of JSON, the head of that text with the cut counted' },
    },
  },
  RejectionPage: {
    type: 'object', required: ['rejections', 'limit', 'offset', 'next_offset'],
    properties: { rejections: { type: 'array', items: { $ref: '#/components/schemas/RejectedCall' } }, limit: { type: 'integer' }, offset: { type: 'integer' }, next_offset: { type: ['integer', 'null'] } },
  },
} as const;

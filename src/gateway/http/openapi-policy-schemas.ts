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
} as const;

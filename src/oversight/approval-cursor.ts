import type { ApprovalPosition } from '../store/index.js';

const APPROVAL_ID = /^apr_[A-Za-z0-9_-]{1,64}$/;

/** The opaque `cursor` of `GET /v1/approvals` that continues after `position`: base64url of `[created_ms, id]`. */
export function approvalCursor(position: ApprovalPosition): string {
  return Buffer.from(JSON.stringify([position.createdMs, position.id])).toString('base64url');
}

/** The position a `cursor` stands for, or a message saying what is wrong with it. */
export function readApprovalCursor(cursor: string): ApprovalPosition | string {
  const problem = "'cursor' is not one this gateway gave; send the next_cursor of the page before, unchanged (or no cursor for the first page)";
  if (cursor.length > 200 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return problem;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return problem;
  }
  if (!Array.isArray(value) || value.length !== 2) return problem;
  const [createdMs, id] = value as [unknown, unknown];
  if (typeof createdMs !== 'number' || !Number.isSafeInteger(createdMs) || createdMs < 0 || typeof id !== 'string' || !APPROVAL_ID.test(id)) return problem;
  return { createdMs, id };
}

import type { ApprovalRecord, NewApproval, Store } from '../store/index.js';

/** What filing a call's request came to: the request it waits on (`filed` false: one filed before for the same call), or the caller's count at the cap. */
export type Filing = { record: ApprovalRecord; filed: boolean } | { record?: undefined; pending: number };

/**
 * Files the request for a call, unless the same call (the same caller and session, tool, params, binding, rule and
 * place) waits already: then that request answers it, its token (if any) replaced by this call's. A retrying HTTP
 * client, or a model that repeats itself, filed 20 identical requests, and each approval ran the call once more
 * (review userZ9, U9-8). A repeat is not refused at `most`: it files nothing. An overdue request found is expired
 * first (an `EXPIRED` receipt, by `expire`), and the call files anew: overdue by the store's clock, which wrote the expiry.
 */
export async function fileOnce(host: Pick<Store, 'approvals' | 'now'>, request: NewApproval, most: number, expire: (record: ApprovalRecord) => Promise<boolean>): Promise<Filing> {
  const store = host.approvals;
  const overdue = (record: ApprovalRecord): boolean => Date.parse(record.expires_at) <= host.now();
  let filing: Filing | undefined;
  // an overdue one is expired at most twice in a row: the third answer stands, whatever it is
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const held = await store.repeated(request);
    if (held && !overdue(held)) return { record: held, filed: false };
    if (held) {
      await expire(held);
      continue;
    }
    // one caller's requests may not bury everyone else's in the approvers' queue (a soft cap: two requests made at once may both pass it)
    const pending = await store.pendingCount(request.caller);
    if (pending >= most) return { pending };
    filing = await store.file(request);
    if (filing.filed || !overdue(filing.record)) return filing;
    await expire(filing.record);
  }
  return filing ?? store.file(request);
}

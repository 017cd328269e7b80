/** How deep a request's JSON may nest (params, bodies): a real tool needs a few levels; cloning and validating recurse. */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether a JSON value nests deeper than `limit` (a scalar is depth 0, `{}` and `[]` depth 1). Iterative,
 * so a value nested 100,000 deep is measured without overflowing the stack.
 */
export function exceedsDepth(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth + 1 > limit) return true;
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return false;
}

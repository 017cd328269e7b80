// The request headers an `hldp-api` definition may not set (review Z4, F4): they are the executor's and the API's.

const FRAMING_AND_HOP = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'expect']);

/**
 * Why a definition's `http.headers` may not hold `name`, or undefined when it may: `host` would send the call, with the
 * API's token and headers, to another virtual host behind the same ingress; the framing and hop-by-hop headers
 * (`content-length`, `transfer-encoding`, `connection`, `keep-alive`, `upgrade`, `te`, `trailer`, `expect`, `proxy-*`)
 * are the HTTP client's, and a wrong one splits or smuggles requests.
 */
export function refusedHttpHeader(name: string): string | undefined {
  const lower = name.trim().toLowerCase();
  if (lower === 'host') return "the host is the API's: configure apis.<name>.url in the gateway config (the definition's path follows it)";
  if (FRAMING_AND_HOP.has(lower) || lower.startsWith('proxy-')) return 'it frames the request or is hop-by-hop, which the HTTP client sets itself';
  return undefined;
}

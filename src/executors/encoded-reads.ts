import type { ExecutionResult, ToolDefinition } from '../core/index.js';
import { failedResult } from './execution-result.js';
import type { ExecutionContext } from './execution-context.js';
import { secretsOf } from './execution-context.js';
import { executeGatekeeper } from './gatekeeper-executor.js';
import { hexDump, MAX_READ_BYTES, readHexDump } from './hex-dump.js';
import type { Params } from './params.js';
import { applicableSecrets, REDACTED } from './redact.js';
import { cutPartialSecrets } from './secrets-at-cut.js';

/**
 * A `gatekeeper` tool's call, with a file's bytes redacted where the gatekeeper's own encoding would hide a secret
 * from the verbatim redaction every result gets (review Z4, F8): `read_file` with `encoding: base64` is decoded,
 * redacted as bytes (`[REDACTED]` for each secret's UTF-8 bytes) and encoded again; a `read_bytes` dump is read back to
 * its bytes, redacted with a fill of the secret's own length (offsets stay true: the ASCII column shows `[REDACTED]`
 * repeated) and written again. The gatekeeper is asked for as many bytes more on either side of the window as the
 * longest secret has, less one, so that a window starting or ending inside a secret (two windows each holding half
 * of it) still finds the whole; those bytes are not shown. This runs in the gateway, which holds the secrets, so a
 * remote gatekeeper never learns them.
 */
export async function executeGatekeeperRead(tool: ToolDefinition, params: Params, context: ExecutionContext): Promise<ExecutionResult> {
  const run = (sent: Params): Promise<ExecutionResult> => executeGatekeeper(tool, sent, context.gatekeepers, context.signal);
  const secrets = applicableSecrets(secretsOf(context)).map((secret) => Buffer.from(secret));
  if (secrets.length === 0) return run(params);
  if (tool.method === 'read_file' && params.encoding === 'base64') return redactBase64(await run(params), secrets);
  if (tool.method === 'read_bytes') return readBytesRedacted(params, secrets, run);
  return run(params);
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const MARKER = /\n\[… \d+ bytes cut of \d+ …\]\n/;

function redactBase64(result: ExecutionResult, secrets: Buffer[]): ExecutionResult {
  if (result.output === '') return result;
  // the output is the whole file, or its head and tail either side of the cap's one marker
  const marker = MARKER.exec(result.output);
  const parts = marker ? [result.output.slice(0, marker.index), result.output.slice(marker.index + marker[0].length)] : [result.output];
  if (!parts.every((part) => BASE64.test(part))) return result;
  // bytes as latin1 text (one character a byte), so the text redaction and its trimming at the cut apply unchanged
  const asText = secrets.map((secret) => secret.toString('latin1'));
  const scrubbed = parts.map((part) => asText.reduce((text, secret) => text.split(secret).join(REDACTED), Buffer.from(part, 'base64').toString('latin1')));
  const trimmed = marker ? cutPartialSecrets(scrubbed.join(marker[0]), asText) : { text: scrubbed[0]!, cutBytes: 0 };
  const again = MARKER.exec(trimmed.text);
  const encoded = again
    ? Buffer.from(trimmed.text.slice(0, again.index), 'latin1').toString('base64') + again[0] + Buffer.from(trimmed.text.slice(again.index + again[0].length), 'latin1').toString('base64')
    : Buffer.from(trimmed.text, 'latin1').toString('base64');
  return { ...result, output: encoded, cut_bytes: result.cut_bytes + trimmed.cutBytes };
}

async function readBytesRedacted(params: Params, secrets: Buffer[], run: (sent: Params) => Promise<ExecutionResult>): Promise<ExecutionResult> {
  const start = performance.now();
  const offset = params.offset ?? 0;
  const length = params.length ?? MAX_READ_BYTES;
  // params the gatekeeper refuses are refused by it, as asked
  if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || (offset as number) < 0 || (length as number) < 1 || (length as number) > MAX_READ_BYTES) return run(params);
  const [first, wanted] = [offset as number, length as number];
  const margin = Math.max(...secrets.map((secret) => secret.length)) - 1;
  const from = Math.max(0, first - margin);
  const result = await run({ ...params, offset: from, length: Math.min(MAX_READ_BYTES, first - from + wanted + margin) });
  // a refusal is told for the window asked (an offset past the end names that offset)
  if (!result.ok) return result.code === 'INVALID_PARAMS' ? run(params) : result;
  const dump = readHexDump(result.output);
  if (!dump || dump.first !== from) {
    return failedResult('INTERNAL_ERROR', "the gatekeeper's read_bytes answer is not the hex dump this gateway reads back, so it could not be checked for secrets and is not shown", start);
  }
  if (dump.total === 0) return result;
  if (first >= dump.total) return run(params);
  const bytes = fillSecrets(dump.bytes, secrets);
  const readEnd = from + bytes.length;
  // bytes past the end of what came may hold the rest of a secret: the margin before that end is not shown, unless it is the file's end
  const end = Math.min(first + wanted, readEnd === dump.total ? readEnd : readEnd - margin);
  if (end <= first) {
    return failedResult('INVALID_PARAMS', `the tool's max_output_bytes leaves no room to show bytes from offset ${first} once the ${margin} bytes either side are read to check them for secrets; raise max_output_bytes`, start);
  }
  const text = hexDump(bytes.subarray(first - from, end - from), first, dump.total);
  return { ...result, output: text, output_bytes: Buffer.byteLength(text), cut_bytes: 0 };
}

// every occurrence of a secret, found in the bytes as they came, filled with `[REDACTED]` repeated to its length
function fillSecrets(bytes: Buffer, secrets: Buffer[]): Buffer {
  const filled = Buffer.from(bytes);
  const fill = Buffer.from(REDACTED);
  for (const secret of secrets) {
    for (let at = bytes.indexOf(secret); at !== -1; at = bytes.indexOf(secret, at + 1)) {
      for (let index = 0; index < secret.length; index += 1) filled[at + index] = fill[index % fill.length]!;
    }
  }
  return filled;
}

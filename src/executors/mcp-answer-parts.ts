import type { ReceiptAttachment } from '../core/index.js';
import { boundBytes } from './bounded-output.js';
import type { McpToolAnswer } from './execution-context.js';
import type { CutString } from './json-string-cutter.js';

/** An MCP tool's answer as a receipt holds it: its text, what it produced and left out, and its other blocks. */
export interface AnswerParts {
  /** the text blocks joined by a newline, within the cap (cut as any output is) */
  text: string;
  /** the bytes the server's content held: its text, and each other block's payload as sent, each counted once */
  outputBytes: number;
  /** of those, the bytes not in the receipt: cut from the text, or a payload left out */
  cutBytes: number;
  attachments: ReceiptAttachment[];
}

type Block = McpToolAnswer['content'][number];

/** A block's payload: the string the server sent (base64 or text) and how it reads in the receipt. */
interface Payload {
  value: string;
  field: 'data' | 'text';
}

/**
 * Splits an answer into its text (`text` blocks, raw, joined by a newline, bounded by `cap`) and its other blocks,
 * listed with their type, MIME type and size, never as base64 text in the output (review userZ11, U11-8: a screenshot
 * was cut mid-base64 and the receipt said ok). A block's payload is kept whole when it fits in what the text left of
 * the cap, in the server's order, and is otherwise left out and said so. Bytes are counted where they end up, once:
 * `cutOf` says which strings were cut on the wire (by a JsonStringCutter) and how long they were, so a cut string
 * repeated in `structuredContent` is not counted again (review userZ11, U11-21).
 */
export function answerParts(answer: McpToolAnswer, cap: number, cutOf: (text: string) => CutString | undefined = () => undefined): AnswerParts {
  const texts: string[] = [];
  let wireCutBytes = 0;
  let markerBytes = 0;
  const others: Array<{ index: number; block: Block }> = [];
  answer.content.forEach((block, index) => {
    if (block.type === 'text' && typeof block.text === 'string') {
      texts.push(block.text);
      const cut = cutOf(block.text);
      if (cut !== undefined) {
        wireCutBytes += cut.cutBytes;
        markerBytes += Buffer.byteLength(block.text) - (cut.totalBytes - cut.cutBytes);
      }
    } else {
      others.push({ index, block });
    }
  });
  const text = boundBytes(texts.join('\n'), cap);
  let outputBytes = text.totalBytes - markerBytes + wireCutBytes;
  let cutBytes = text.cutBytes + wireCutBytes;
  let room = cap - Buffer.byteLength(text.text);
  const attachments = others.map(({ index, block }): ReceiptAttachment => {
    const listed = described(index, block);
    const payload = payloadOf(block);
    if (payload === undefined) return listed;
    const cut = cutOf(payload.value);
    const sent = cut?.totalBytes ?? Buffer.byteLength(payload.value);
    outputBytes += sent;
    // a payload the cutter stood in for: its size as it counted it on the wire
    const bytes = cut?.base64?.decodedBytes ?? (payload.field === 'data' ? base64Bytes(sent, payload.value) : sent);
    if (cut === undefined && sent <= room) {
      room -= sent;
      return { ...listed, bytes, [payload.field]: payload.value };
    }
    cutBytes += sent;
    const what = payload.field === 'data' ? `${bytes} bytes (${sent} as base64)` : `${bytes} bytes of text`;
    return { ...listed, bytes, omitted: `left out: its ${what} do not fit in the ${Math.max(room, 0)} bytes of max_output_bytes (${cap}) the text output left; raise the tool's constraints.max_output_bytes to receive it` };
  });
  return { text: text.text, outputBytes, cutBytes, attachments };
}

/**
 * `value` (an answer's `structuredContent`) with each base64 stand-in the cutter put on the wire shown as its payload
 * cut as any long string is (head, marker, tail): only a content block's payload is an attachment, and a stand-in
 * anywhere else would read as the server's data.
 */
export function withCutsShown(value: unknown, cutOf: (text: string) => CutString | undefined): unknown {
  if (typeof value === 'string') return cutOf(value)?.base64?.cutText ?? value;
  if (Array.isArray(value)) return value.map((item) => withCutsShown(item, cutOf));
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withCutsShown(item, cutOf)]));
  return value;
}

// a block's type, MIME type, URI and name, as the server gave them (a resource's are inside its `resource`)
function described(index: number, block: Block): ReceiptAttachment {
  const inner = block.type === 'resource' && isRecord(block.resource) ? block.resource : block;
  const type = typeof block.type === 'string' ? block.type : 'unknown';
  return {
    index,
    type,
    mime_type: typeof inner.mimeType === 'string' ? inner.mimeType : null,
    bytes: 0,
    ...(typeof inner.uri === 'string' ? { uri: inner.uri } : {}),
    ...(type === 'resource_link' && typeof block.name === 'string' ? { name: block.name } : {}),
  };
}

function payloadOf(block: Block): Payload | undefined {
  if (typeof block.data === 'string') return { value: block.data, field: 'data' };
  if (block.type !== 'resource' || !isRecord(block.resource)) return undefined;
  if (typeof block.resource.blob === 'string') return { value: block.resource.blob, field: 'data' };
  if (typeof block.resource.text === 'string') return { value: block.resource.text, field: 'text' };
  return undefined;
}

// the bytes `length` base64 characters decode to, the padding read from the end of what is kept of them
function base64Bytes(length: number, kept: string): number {
  const padding = kept.endsWith('==') ? 2 : kept.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((length * 3) / 4) - padding);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

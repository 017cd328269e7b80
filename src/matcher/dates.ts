import type { ToolDefinition } from '../core/index.js';
import type { SearchIndex } from './search-index.js';
import { MAX_SCANNED_CHARACTERS } from './value-words.js';

// A request that gives a date (*the weather in Fremont on March 1st 2023*, *from 04/23/2023*, 2023年5月1日) asks for a tool
// that has somewhere to put it: of two weather tools with the same words, the one with a `date` parameter. This is
// evidence about the request's values, not its words, so it holds in any language that writes dates with digits.

const MONTHS = 'jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?';
const DAY = '(?:[12]\\d|3[01]|0?[1-9])(?:st|nd|rd|th)?';
// each alternative is a fixed sequence of bounded runs: no nested repetition, so no backtracking blow-up
const DATE_VALUE = new RegExp(
  [
    '\\b\\d{4}[-/.]\\d{1,2}[-/.]\\d{1,2}\\b', // 2023-05-01, 2023.10.1
    '\\b\\d{1,2}[-/.]\\d{1,2}[-/.]\\d{2,4}\\b', // 04/23/2023, 20/3/2024
    `\\b(?:${MONTHS})\\.?,?\\s{0,3}${DAY}\\b`, // March 17, Jun.20
    `\\b${DAY}\\s{1,3}(?:of\\s{1,3})?(?:${MONTHS})\\b`, // 11th of March, 17 March
    `\\b(?:${MONTHS})\\.?\\s{1,3}\\d{4}\\b`, // March 2023
    '\\d{4}年\\d{1,2}月(?:\\d{1,2}[日号])?|\\d{1,2}月\\d{1,2}[日号]', // 2023年5月1日, 5月1日
  ].join('|'),
  'giu',
);

/**
 * How many dates a request gives: numeric dates, English month names beside a day or year, CJK 年月日 dates. Looked for
 * where a request's values are (`valueWords`): in its opening, not in a whole pasted text.
 */
export function requestDates(text: string): number {
  let count = 0;
  for (const _ of text.slice(0, MAX_SCANNED_CHARACTERS).matchAll(DATE_VALUE)) count += 1;
  return count;
}

// a parameter named for a date, a day or a time (`date`, `start_date`, `check_in_day`, `time`), or of a date format
const DATE_NAME = /date|time|day/i;

/** How many of a tool's text parameters could take a date (at most 254). */
export function dateParameters(tool: ToolDefinition): number {
  const schema = tool.params_schema as { properties?: unknown };
  const properties = typeof schema?.properties === 'object' && schema.properties !== null ? (schema.properties as Record<string, unknown>) : {};
  let count = 0;
  for (const [name, property] of Object.entries(properties)) {
    if (typeof property !== 'object' || property === null) continue;
    const { type, format } = property as { type?: unknown; format?: unknown };
    const text = type === 'string' || (Array.isArray(type) && type.includes('string'));
    if (text && (DATE_NAME.test(name) || format === 'date' || format === 'date-time')) count += 1;
  }
  return Math.min(count, 254);
}

const UNKNOWN = 255;
// per index version, per position: its tool's date parameters, read when a request with a date first ranks it
const counted = new WeakMap<SearchIndex, Uint8Array>();

/**
 * The share of the request's `dates` that the tool at `position` has a date parameter for, 0..1 (0 when it gives none):
 * read from the tool's definition the first time a request with a date ranks it, then kept for the index version.
 */
export function dateShare(index: SearchIndex, position: number, dates: number): number {
  if (dates === 0) return 0;
  let counts = counted.get(index);
  if (counts === undefined) counted.set(index, (counts = new Uint8Array(index.tools.length).fill(UNKNOWN)));
  let slots = counts[position]!;
  if (slots === UNKNOWN) {
    const tool = index.tools.peek?.(position) ?? index.tools.at(position);
    slots = tool === undefined ? 0 : dateParameters(tool);
    counts[position] = slots;
  }
  return Math.min(dates, slots) / dates;
}

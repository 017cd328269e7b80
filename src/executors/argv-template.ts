import { listPlaceholders, wholePlaceholder, PLACEHOLDER_PATTERN, type ArgvTemplate } from '../core/index.js';
import { hasValue, parameterText, type Params, ownValue } from './params.js';

/** An argv built from a template, or why it could not be. */
export type BuiltArgv = { ok: true; argv: string[] } | { ok: false; message: string };

/** A template filled in; or the placeholders that had no value, or the list parameter that cannot become one text. */
export type FilledTemplate = { ok: true; text: string } | { ok: false; missing: string[] } | { ok: false; list: string };

/** Fills the `{param}` placeholders of a text template; a list value is refused (it has no single text). */
export function fillTemplate(template: string, params: Params): FilledTemplate {
  const missing = listPlaceholders(template)
    .map((placeholder) => placeholder.name)
    .filter((name) => !hasValue(ownValue(params, name)));
  if (missing.length > 0) return { ok: false, missing };
  const list = listPlaceholders(template).find((placeholder) => Array.isArray(ownValue(params, placeholder.name)));
  if (list) return { ok: false, list: list.name };
  return { ok: true, text: template.replace(PLACEHOLDER_PATTERN, (_match, _plus, name: string) => parameterText(ownValue(params, name))) };
}

// One template element: a whole `{param}` becomes one argument per value (a list spreads: an empty one into none, as
// the schema allowed it — review userW, W5), anything else one argument.
function fillElement(element: string, params: Params, into: string[]): string | null {
  const whole = wholePlaceholder(element);
  if (whole !== undefined) {
    const value = ownValue(params, whole);
    if (Array.isArray(value) && value.length === 0) return null;
    if (!hasValue(value)) return `argv element '${element}' needs parameter '${whole}', which has no value; make the parameter required or put the element in an optional group ["${element}"]`;
    for (const item of Array.isArray(value) ? value : [value]) into.push(parameterText(item));
    return null;
  }
  const filled = fillTemplate(element, params);
  if (filled.ok) {
    into.push(filled.text);
    return null;
  }
  if ('list' in filled) return `argv element '${element}' mixes text with list parameter '${filled.list}'; a list can only fill a whole element like "{${filled.list}}"`;
  return `argv element '${element}' needs parameter(s) ${filled.missing.map((name) => `'${name}'`).join(', ')}, which have no value; make them required or put the element in an optional group`;
}

/**
 * Builds an argv from a template: every parameter lands inside whole arguments, so no shell ever parses one.
 * A nested list is an optional group, included only when all its placeholders have values.
 * The program (first element) must be fixed text: a parameter never chooses what runs.
 */
export function buildArgv(template: ArgvTemplate, params: Params): BuiltArgv {
  const program = template[0];
  if (typeof program !== 'string' || program === '' || listPlaceholders(program).length > 0) {
    return { ok: false, message: 'the first argv element must be a fixed program name without placeholders' };
  }
  const argv: string[] = [];
  for (const element of template) {
    if (typeof element === 'string') {
      const problem = fillElement(element, params, argv);
      if (problem) return { ok: false, message: problem };
      continue;
    }
    const complete = element.every((part) => listPlaceholders(part).every((placeholder) => hasValue(ownValue(params, placeholder.name))));
    if (!complete) continue;
    for (const part of element) {
      const problem = fillElement(part, params, argv);
      if (problem) return { ok: false, message: problem };
    }
  }
  return { ok: true, argv };
}

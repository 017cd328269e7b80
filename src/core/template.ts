/** `{name}` (value percent-encoded where the context encodes) or `{+name}` (reserved expansion: `/` kept). */
export const PLACEHOLDER_PATTERN = /\{(\+?)([A-Za-z_][A-Za-z0-9_.-]*)\}/g;

/** One placeholder found in a template. */
export interface Placeholder {
  name: string;
  reserved: boolean;
  /** offset in the template text */
  index: number;
}

/** Every placeholder in a template, in order. */
export function listPlaceholders(template: string): Placeholder[] {
  const found: Placeholder[] = [];
  for (const match of template.matchAll(PLACEHOLDER_PATTERN)) {
    found.push({ name: match[2]!, reserved: match[1] === '+', index: match.index! });
  }
  return found;
}

/** The parameter name when the whole template is exactly one placeholder, e.g. `{limit}`. */
export function wholePlaceholder(template: string): string | undefined {
  const match = /^\{\+?([A-Za-z_][A-Za-z0-9_.-]*)\}$/.exec(template);
  return match?.[1];
}

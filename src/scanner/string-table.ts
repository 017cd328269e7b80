/**
 * One copy of each short string value in the entries a parser thread sends back. A message between threads carries
 * every string as its own copy (`type: string`, an executor's name, a shared parameter description, the same oid as
 * entry and as source): at 100,000 generated tools 67 of the 145 MB of strings the entries held were such repeats.
 * Entries made in this thread from one source file share nothing either, so the table serves only the pool.
 */
export class StringTable {
  private readonly kept = new Map<string, string>();

  /** `maxEntries` bounds the table (unique names would fill it for nothing); longer strings are left as they are */
  constructor(
    private readonly maxEntries = 65_536,
    private readonly maxLength = 256,
  ) {}

  /** The same value, its string properties and elements (at any depth) replaced in place by the table's copies. */
  shareStrings<T>(value: T): T {
    this.visit(value as unknown);
    return value;
  }

  private visit(value: unknown): void {
    if (typeof value !== 'object' || value === null) return;
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index++) {
        const item: unknown = value[index];
        if (typeof item === 'string') value[index] = this.share(item);
        else this.visit(item);
      }
      return;
    }
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const item = record[key];
      if (typeof item === 'string') record[key] = this.share(item);
      else this.visit(item);
    }
  }

  private share(text: string): string {
    if (text.length > this.maxLength) return text;
    const kept = this.kept.get(text);
    if (kept !== undefined) return kept;
    if (this.kept.size < this.maxEntries) this.kept.set(text, text);
    return text;
  }
}

/** The URL with its password hidden: for messages and logs. */
export function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the configured store.url (not a valid URL)';
  }
}

/** One word for a POSIX shell, whatever it holds (a NUL never gets here): single quotes, each `'` as `'\''`. */
export function shellWord(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

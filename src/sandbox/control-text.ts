import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

/**
 * The first `max` bytes of a file a tool may have made (a git folder's HEAD, config, commondir, a `.git` file), read
 * without waiting: empty for anything but a regular file, and for a link unless `follow`. A launch reads them on the
 * gateway's main thread (review Q, Q8: a tool's `mkfifo a/.git/HEAD` blocked the next launch in open(2), and every
 * request after it, /healthz included, for good; a `HEAD -> /dev/zero` would have been read without end).
 */
export function controlText(path: string, max: number, options: { follow?: boolean } = {}): string {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | (options.follow === true ? 0 : constants.O_NOFOLLOW));
  } catch {
    return '';
  }
  try {
    if (!fstatSync(fd).isFile()) return '';
    const buffer = Buffer.alloc(Math.min(max, fstatSync(fd).size + 1));
    let length = 0;
    while (length < buffer.length) {
      const got = readSync(fd, buffer, length, buffer.length - length, null);
      if (got === 0) break;
      length += got;
    }
    return buffer.toString('utf8', 0, length);
  } catch {
    return '';
  } finally {
    closeSync(fd);
  }
}

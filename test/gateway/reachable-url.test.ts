import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { reachableUrl } from '../../src/gateway/service/run-place.js';

// an approval request names the gateway that filed it, for a decider at an instance on another host: the URL a
// gateway calls itself at (127.0.0.1 when it listens on every address) reaches it only from its own host
describe('reachableUrl', () => {
  it.each([
    ['a loopback listener, as it calls itself', 'http://127.0.0.1:3900', '127.0.0.1', 'http://127.0.0.1:3900'],
    ['a listener on every address, by its host name', 'http://127.0.0.1:3900', '0.0.0.0', `http://${hostname().toLowerCase()}:3900`],
    ['a listener on every IPv6 address, by its host name', 'http://127.0.0.1:3901', '::', `http://${hostname().toLowerCase()}:3901`],
    ['a listener on one address, by that address', 'http://127.0.0.1:3900', '10.0.0.5', 'http://10.0.0.5:3900'],
    ['a listener on one IPv6 address, bracketed', 'http://127.0.0.1:3900', 'fd00::5', 'http://[fd00::5]:3900'],
  ])('names %s', (_case, servingAt, listenHost, expected) => {
    expect(reachableUrl(servingAt, listenHost)).toBe(expected);
  });

  it('is null for a process that serves nothing (a one-shot hldp call)', () => {
    expect(reachableUrl(undefined, '127.0.0.1')).toBeNull();
  });
});

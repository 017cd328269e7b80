import { expect } from 'vitest';

/** Signs in to the console at `url` with a principal's token, as its sign-in form does (303): the session cookie, `name=value`. */
export async function signInToConsole(url: string, token: string): Promise<string> {
  const response = await fetch(`${url}/console/sign-in`, {
    method: 'POST', redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(url).origin },
    body: new URLSearchParams({ token }),
  });
  expect(response.status).toBe(303);
  return response.headers.get('set-cookie')!.split(';')[0]!;
}

/** The CSRF token the console's pages carry for a signed-in `cookie` (a form posts it as `_csrf`), and the page it was read from. */
export async function consoleCsrf(url: string, cookie: string): Promise<{ csrf: string; page: string }> {
  const page = await (await fetch(`${url}/console/failures`, { headers: { cookie } })).text();
  return { csrf: /name="_csrf" value="([^"]+)"/.exec(page)![1]!, page };
}

import { html, type Html } from '../html.js';
import { page } from './layout.js';

/** The sign-in page: a principal's token, exchanged for an HttpOnly cookie (or, with no credentials configured, a button). */
export function signInPage(options: { credentialsRequired: boolean; error?: string; next?: string }): Html {
  return page(
    'Sign in',
    html`<section class="sign-in">
<h1>Sign in</h1>
<p>${options.credentialsRequired ? 'Paste your token (the gateway’s api_token, or your principal’s). It is exchanged for a session cookie and never kept in the page.' : 'This gateway listens on loopback with no credentials: anyone on this machine may use it.'}</p>
${options.error ? html`<p class="error" role="alert">${options.error}</p>` : ''}
<form method="post" action="/console/sign-in">
${options.credentialsRequired ? html`<label for="token">Token</label><input id="token" name="token" type="password" autocomplete="current-password" required>` : ''}
<input type="hidden" name="next" value="${options.next ?? '/console/failures'}">
<button type="submit">Sign in</button>
</form>
</section>`,
  );
}

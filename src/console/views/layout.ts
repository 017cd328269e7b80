import { html, type Html } from '../html.js';

/** The views the console's navigation links to. */
export const VIEWS = [
  { path: '/console/failures', label: 'Failures' },
  { path: '/console/approvals', label: 'Approvals' },
  { path: '/console/rejected', label: 'Rejected' },
  { path: '/console/registry', label: 'Registry' },
  { path: '/console/sessions', label: 'Sessions' },
] as const;

/** Who the page is for: shown in the header; the CSRF token goes into every form. */
export interface Viewer {
  name: string;
  csrf: string;
}

// htmx without eval, script tags in swapped content or its inline indicator style (the CSP forbids all three)
const HTMX_CONFIG = JSON.stringify({ includeIndicatorStyles: false, allowEval: false, allowScriptTags: false, historyCacheSize: 0, selfRequestsOnly: true });

/** A whole page: scripts and styles from the gateway itself, no inline script or style. */
export function page(title: string, body: Html, viewer?: Viewer, active?: string): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="htmx-config" content="${HTMX_CONFIG}">
<title>${title} · brush-holder</title>
<link rel="stylesheet" href="/console/assets/console.css">
<link rel="icon" href="data:,">
<script src="/console/assets/htmx.min.js" defer></script>
<script src="/console/assets/console.js" defer></script>
</head>
<body${viewer ? html` hx-headers="${JSON.stringify({ 'X-CSRF-Token': viewer.csrf })}"` : ''}>
<header class="top">
<a class="brand" href="/console/failures">brush-holder</a>
${viewer
  ? html`<nav>${VIEWS.map((view) => html`<a href="${view.path}"${view.path === active ? html` aria-current="page"` : ''}>${view.label}</a>`)}</nav>
<form class="who" method="post" action="/console/sign-out"><input type="hidden" name="_csrf" value="${viewer.csrf}"><span>${viewer.name}</span> <button type="submit">Sign out</button></form>`
  : ''}
</header>
<main>
${body}
</main>
</body>
</html>
`;
}

/** A time for people (UTC, seconds), with the exact ISO time as its title. */
export function time(iso: string | null | undefined): Html {
  if (!iso) return html`<span class="muted">—</span>`;
  return html`<time datetime="${iso}" title="${iso}">${iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}</time>`;
}

/** The first non-empty line of a text, cut to `width` characters. */
export function firstLine(text: string | null | undefined, width = 140): string {
  if (!text) return '';
  const line = text.split('\n').find((part) => part.trim() !== '') ?? '';
  return line.length > width ? `${line.slice(0, width - 1)}…` : line;
}

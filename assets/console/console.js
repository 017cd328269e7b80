// brush-holder console: copy buttons, and live views fed by the gateway's event stream (EventSource).
// No inline scripts anywhere: the CSP allows only files the gateway serves. Rows arrive as server-rendered,
// escaped HTML; nothing here turns text into markup.
(function () {
  'use strict';

  // Copy: the exact text of the element named by data-copy, as stored: its text, with each character the page shows
  // as its escape (a span.hidden-character reading \u202e, \x1b, \u{e0041}) put back as the character itself
  document.addEventListener('click', function (event) {
    var button = event.target instanceof Element ? event.target.closest('[data-copy]') : null;
    if (!button) return;
    var source = document.getElementById(button.getAttribute('data-copy'));
    if (!source || !navigator.clipboard) return;
    navigator.clipboard.writeText(storedText(source).replace(/^\n/, '')).then(
      function () { flash(button, 'Copied'); },
      function () { flash(button, 'Copy failed'); }
    );
  });

  function storedText(node) {
    if (node.nodeType === Node.TEXT_NODE) return node.data;
    if (node.nodeType !== Node.ELEMENT_NODE) return '';
    if (node.classList.contains('hidden-character')) {
      var hex = /^\\(?:x|u\{?)([0-9a-f]+)\}?$/.exec(node.textContent);
      return hex ? String.fromCodePoint(parseInt(hex[1], 16)) : node.textContent;
    }
    var text = '';
    for (var child = node.firstChild; child; child = child.nextSibling) text += storedText(child);
    return text;
  }

  function flash(button, text) {
    var before = button.textContent;
    button.textContent = text;
    setTimeout(function () { button.textContent = before; }, 1200);
  }

  // Live: <… data-live="type,type" data-refresh="tbody-id" data-source="form-id"> reloads the tbody's rows (with the
  // form's filters) when such an event arrives; data-reload="true" reloads the page; data-reload="ask" never does, it
  // says what changed with a link that reloads (the approvals page: a reload under the person's cursor put a new
  // request's Approve button where the one being clicked was). One refresh at a time: events that arrive meanwhile
  // cause exactly one more, so the last state is always shown.
  var live = document.querySelector('[data-live]');
  if (!live || !window.EventSource) return;
  var types = live.getAttribute('data-live');
  var target = live.getAttribute('data-refresh') && document.getElementById(live.getAttribute('data-refresh'));
  var form = live.getAttribute('data-source') && document.getElementById(live.getAttribute('data-source'));
  var ask = live.getAttribute('data-reload') === 'ask';
  var requested = 0;
  var changed = 0;
  var running = false;
  var again = false;
  // a page being left (a form submitted) or being written in is never reloaded under the person's hands
  var leaving = false;
  var edited = false;
  document.addEventListener('submit', function () { leaving = true; });
  document.addEventListener('input', function (event) { if (!target || !form || !form.contains(event.target)) edited = true; });
  window.addEventListener('pagehide', function () { leaving = true; });

  function refresh(event) {
    if (leaving) return;
    if (!target) {
      if (!edited && !ask) {
        window.location.reload();
        return;
      }
      if (event && event.type === 'approval.requested') requested += 1;
      else changed += 1;
      var notice = document.getElementById('live-notice');
      if (!notice) {
        notice = document.createElement('p');
        notice.id = 'live-notice';
        notice.className = 'notice';
        notice.setAttribute('role', 'status');
        var link = document.createElement('a');
        link.href = window.location.pathname + window.location.search;
        notice.appendChild(link);
        live.insertAdjacentElement('afterend', notice);
      }
      notice.firstChild.textContent = ask ? changeText() + ': show them' : 'Something changed: reload';
      return;
    }
    if (running) {
      again = true;
      return;
    }
    running = true;
    again = false;
    var query = form ? new URLSearchParams(new FormData(form)).toString() : '';
    fetch(target.getAttribute('data-url') + (query ? '?' + query : ''), { headers: { 'HX-Request': 'true' }, credentials: 'same-origin' })
      .then(function (response) { return response.ok ? response.text() : Promise.reject(new Error(String(response.status))); })
      .then(function (rows) {
        target.innerHTML = rows;
        document.body.setAttribute('data-refreshed', String(Date.now()));
      })
      .catch(function () { /* the next event tries again */ })
      .then(function () {
        running = false;
        if (again) refresh();
      });
  }

  function changeText() {
    var parts = [];
    if (requested > 0) parts.push(requested + (requested === 1 ? ' new request' : ' new requests'));
    if (changed > 0) parts.push(changed + (changed === 1 ? ' other change' : ' other changes'));
    return parts.join(', ') + ' since this page was shown';
  }

  var source = new EventSource('/console/events?types=' + encodeURIComponent(types));
  types.split(',').forEach(function (type) { source.addEventListener(type, refresh); });
  source.addEventListener('reset', refresh);
  source.addEventListener('open', function () { live.classList.add('connected'); live.classList.remove('offline'); });
  source.addEventListener('error', function () { live.classList.remove('connected'); live.classList.add('offline'); });
})();

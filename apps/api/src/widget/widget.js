/*!
 * RAG forensics feedback button — dependency-free, no API key.
 * For every <div data-rag-feedback data-answer-id="…" data-token="…" data-endpoint="https://…"></div>
 * it renders a "Wrong answer" button and an optional "The right answer is…" input, posts
 * POST <endpoint>/v1/feedback with `Authorization: FeedbackToken <token>`, and shows the outcome.
 * data-endpoint defaults to the origin this script was loaded from. Untrusted values are only ever
 * set as text (textContent / value), never parsed as HTML.
 * API: window.RagFeedback.mount(element), window.RagFeedback.mountAll(root?).
 */
(function () {
  'use strict';
  var MAX_ANSWER = 4000;
  var script = document.currentScript;
  var scriptOrigin = '';
  try { if (script && script.src) scriptOrigin = new URL(script.src, document.baseURI).origin; } catch (e) { /* keep '' */ }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function mount(root) {
    if (!root || root.getAttribute('data-rag-feedback-mounted') === '1') return;
    root.setAttribute('data-rag-feedback-mounted', '1');
    var answerId = root.getAttribute('data-answer-id') || '';
    var token = root.getAttribute('data-token') || '';
    var endpoint = (root.getAttribute('data-endpoint') || scriptOrigin).replace(/\/+$/, '');

    var box = el('div', 'rag-feedback');
    box.style.cssText = 'font:14px/1.4 system-ui,sans-serif;display:flex;flex-wrap:wrap;gap:6px;align-items:center';
    var input = el('input', 'rag-feedback__input');
    input.type = 'text';
    input.maxLength = MAX_ANSWER;
    input.placeholder = 'The right answer is… (optional)';
    input.setAttribute('aria-label', 'The right answer (optional)');
    input.style.cssText = 'flex:1 1 16em;padding:4px 6px';
    var button = el('button', 'rag-feedback__button', 'Wrong answer');
    button.type = 'button';
    button.style.cssText = 'padding:4px 10px;cursor:pointer';
    var status = el('div', 'rag-feedback__status');
    status.setAttribute('role', 'status');
    status.setAttribute('aria-live', 'polite');
    status.style.cssText = 'flex:1 0 100%;min-height:1.4em';
    box.appendChild(input);
    box.appendChild(button);
    box.appendChild(status);
    root.appendChild(box);

    function show(text, ok) {
      status.textContent = text;
      status.style.color = ok ? '#1a7f37' : '#b42318';
      status.setAttribute('data-outcome', ok ? 'ok' : 'error');
    }

    if (!token || !endpoint) {
      button.disabled = true;
      show('Feedback is unavailable (missing token or endpoint).', false);
      return;
    }

    button.addEventListener('click', function () {
      var body = { answerId: answerId || undefined };
      var correct = input.value.trim();
      if (correct) body.correctAnswer = correct.slice(0, MAX_ANSWER);
      button.disabled = true;
      show('Sending…', true);
      fetch(endpoint + '/v1/feedback', {
        method: 'POST',
        mode: 'cors',
        credentials: 'omit',
        headers: { 'Content-Type': 'application/json', Authorization: 'FeedbackToken ' + token },
        body: JSON.stringify(body),
      })
        .then(function (res) {
          return res.json().catch(function () { return {}; }).then(function (data) { return { res: res, data: data || {} }; });
        })
        .then(function (r) {
          if (r.res.ok && r.data.id) {
            root.setAttribute('data-event-id', String(r.data.id));
            show((r.data.duplicate ? 'Already reported — thank you. Event ' : 'Thank you! Reported as event ') + String(r.data.id) + '.', true);
          } else {
            show('Could not send the report: ' + String(r.data.message || ('HTTP ' + r.res.status)), false);
          }
        })
        .catch(function (err) {
          show('Could not send the report: ' + String((err && err.message) || err), false);
        })
        .then(function () { button.disabled = false; });
    });
  }

  function mountAll(scope) {
    var nodes = (scope || document).querySelectorAll('[data-rag-feedback]');
    for (var i = 0; i < nodes.length; i++) mount(nodes[i]);
  }

  window.RagFeedback = { mount: mount, mountAll: mountAll };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', function () { mountAll(); });
  else mountAll();
})();

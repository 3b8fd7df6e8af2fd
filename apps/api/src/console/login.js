import { api, ApiError } from './api.js';
import { field, h, visible } from './dom.js';

/** Log in with an API key: POST /v1/session sets the httpOnly session cookie. */
export function renderLogin(view, onDone) {
  const key = h('input', { type: 'password', name: 'key', autocomplete: 'current-password', required: true, spellcheck: 'false' });
  const msg = h('p', { class: 'error', role: 'alert' });
  const submit = h('button', { type: 'submit', class: 'primary', text: 'Log in' });
  const form = h('form', { class: 'login', 'aria-label': 'Log in' },
    h('h1', { text: 'Review console' }),
    h('p', { class: 'muted', text: 'Log in with your API key (npm run keys -- create --name you --role reviewer). The key is exchanged for a session cookie and is not stored in the browser.' }),
    field('API key', key), submit, msg);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    msg.textContent = '';
    submit.disabled = true;
    try {
      await api('POST', '/v1/session', { key: key.value.trim() }, { quiet401: true });
      key.value = '';
      await onDone();
    } catch (err) {
      msg.textContent = visible(err instanceof ApiError && err.status === 401 ? `Log in refused: ${err.message}` : `Log in failed: ${err.message}`);
    } finally {
      submit.disabled = false;
    }
  });
  view.append(form);
  key.focus();
}

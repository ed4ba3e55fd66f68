// The console's entry point: finds the page for the address, and asks for an API
// key when the server wants one. Each page is a full load of the same document, so
// an address can be bookmarked, reloaded and opened in a new tab.
import { ApiError, apiKey, base, get, setAPIKey } from './api.js';
import { h, problemView, replace } from './dom.js';
import { usersPage } from './users.js';
import { userPage } from './user.js';
import { tracePage, userTracesPage } from './traces.js';
import { opsPage } from './ops.js';

const routes = [
  [/^\/?$/, main => usersPage(main)],
  [/^\/ops\/?$/, main => opsPage(main)],
  [/^\/users\/([^/]+)\/?$/, (main, user) => userPage(main, user)],
  [/^\/users\/([^/]+)\/traces\/?$/, (main, user) => userTracesPage(main, user)],
  [/^\/traces\/([^/]+)\/?$/, (main, id) => tracePage(main, id)],
];

const main = document.getElementById('main');

async function start() {
  showSession();
  const rest = location.pathname.slice(base.length);
  for (const [pattern, render] of routes) {
    const m = rest.match(pattern);
    if (!m) continue;
    try {
      await render(main, ...m.slice(1).map(decodeURIComponent));
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) signIn(err);
      else replace(main, h('h1', {}, 'Something went wrong'), problemView(err));
    }
    document.body.dataset.ready = 'true';
    return;
  }
  replace(main, h('h1', {}, 'Not found'), h('p', {}, 'The console has no page at this address. ', h('a', { href: base }, 'All users')));
  document.body.dataset.ready = 'true';
}

function showSession() {
  const el = document.getElementById('session');
  if (!apiKey()) return;
  const out = h('button', { type: 'button', class: 'link' }, 'Sign out');
  out.addEventListener('click', () => { setAPIKey(''); location.reload(); });
  replace(el, 'Signed in with an API key · ', out);
}

// signIn asks for a key; it is checked with one listing before being kept.
function signIn(err) {
  const input = h('input', { id: 'api-key', type: 'password', autocomplete: 'off', required: true, spellcheck: 'false' });
  const status = h('div', { 'aria-live': 'polite' });
  const form = h('form', { class: 'signin' },
    h('label', { for: 'api-key' }, 'API key'), input,
    h('button', { type: 'submit' }, 'Sign in'), status);
  form.addEventListener('submit', async ev => {
    ev.preventDefault();
    const key = input.value.trim();
    try {
      await get('/v1/users', { query: { limit: 1 }, key });
      setAPIKey(key);
      location.reload();
    } catch (e) {
      replace(status, problemView(e));
    }
  });
  replace(main,
    h('h1', {}, 'Sign in'),
    h('p', {}, 'This server requires an API key. It names your tenant; the console keeps it in this tab only (sessionStorage) and sends it with every call.'),
    apiKey() ? problemView(err) : null,
    form);
  input.focus();
}

start();

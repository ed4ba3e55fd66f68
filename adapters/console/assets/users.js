// Users: every user of the tenant with what is stored of them, newest activity
// first, found by id or by name (the organisation's name lookup).
import { allPages, get, page } from './api.js';
import { h, num, problemView, replace, when } from './dom.js';

const pageSize = 25;
const most = 10000; // users read for one listing; more is said, never silently cut

export async function usersPage(main) {
  document.title = 'Users · engram console';
  const { items, more } = await allPages('/v1/users', { limit: 1000 }, most);
  items.sort((a, b) => String(b.last_active_at || '').localeCompare(String(a.last_active_at || '')) || a.user_id.localeCompare(b.user_id));

  const find = h('input', { id: 'find', type: 'search', placeholder: 'id or name', autocomplete: 'off' });
  const status = h('p', { class: 'muted', 'aria-live': 'polite' });
  const list = h('div', { class: 'table-wrap' });
  const pager = h('nav', { class: 'pager', 'aria-label': 'Pages of users' });
  let shown = items;
  let names = new Map();
  let at = 0;

  const draw = () => {
    const rows = shown.slice(at, at + pageSize);
    replace(status, shown.length === 0 ? 'No users.' :
      `${at + 1}–${at + rows.length} of ${shown.length} user${shown.length === 1 ? '' : 's'}${more ? ' (the first ' + most + ')' : ''}, newest activity first`);
    replace(list, h('table', { class: 'users' },
      h('thead', {}, h('tr', {}, ['User', 'Memories', 'Messages', 'Sessions', 'Last active'].map(t => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, rows.map(u => h('tr', { 'data-user': u.user_id },
        h('td', {}, h('a', { href: page('users', u.user_id) }, u.user_id),
          names.get(u.user_id) ? h('span', { class: 'muted' }, ' ' + names.get(u.user_id)) : null),
        h('td', { class: 'n' }, num(u.memories)),
        h('td', { class: 'n' }, num(u.messages)),
        h('td', { class: 'n' }, num(u.sessions)),
        h('td', {}, when(u.last_active_at)))))));
    const prev = h('button', { type: 'button', class: 'secondary', disabled: at === 0 }, '← Newer');
    const next = h('button', { type: 'button', class: 'secondary', disabled: at + pageSize >= shown.length }, 'Older →');
    prev.addEventListener('click', () => { at = Math.max(0, at - pageSize); draw(); });
    next.addEventListener('click', () => { at += pageSize; draw(); });
    replace(pager, prev, next);
  };

  const form = h('form', { class: 'inline', role: 'search' },
    h('label', { for: 'find' }, 'Find a user'), find, h('button', { type: 'submit' }, 'Find'));
  form.addEventListener('submit', async ev => {
    ev.preventDefault();
    const q = find.value.trim();
    at = 0;
    names = new Map();
    if (!q) { shown = items; draw(); return; }
    const byName = new Set();
    try {
      const res = await get('/v1/org/users', { query: { name: q, limit: 100 } });
      for (const o of res.items || []) { byName.add(o.user_id); names.set(o.user_id, o.display_name || ''); }
    } catch (err) {
      replace(status, problemView(err));
    }
    const needle = q.toLowerCase();
    shown = items.filter(u => u.user_id.toLowerCase().includes(needle) || byName.has(u.user_id));
    draw();
  });

  replace(main, h('h1', {}, 'Users'), form, status, list, pager);
  draw();
}

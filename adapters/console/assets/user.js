// A user: search in every mode, memories with their history and the operator's
// actions, messages with their extraction state, sessions, profile and org
// position, and erasure.
import { ApiError, call, get, page, u } from './api.js';
import { badge, busy, confirmDialog, dl, h, num, problemView, replace, section, when } from './dom.js';

const memoryTypes = ['preference', 'fact', 'goal', 'project', 'constraint'];

export async function userPage(main, user) {
  document.title = `${user} · engram console`;
  replace(main,
    h('p', { class: 'crumbs' }, h('a', { href: page() }, 'Users'), ' / '),
    h('h1', {}, user),
    h('nav', { class: 'toc', 'aria-label': 'On this page' },
      [['search', 'Search'], ['memories', 'Memories'], ['messages', 'Messages'], ['sessions', 'Sessions'], ['profile', 'Profile'], ['erase', 'Erase']]
        .map(([id, label]) => h('a', { href: '#' + id }, label)),
      h('a', { href: page('users', user, 'traces') }, 'Context traces')),
    searchSection(user),
    memoriesSection(user),
    messagesSection(user),
    sessionsSection(user),
    profileSection(user),
    eraseSection(user));
}

// --- search ---------------------------------------------------------------

function searchSection(user) {
  const query = h('input', { id: 'search-q', type: 'search', required: true, autocomplete: 'off' });
  const scope = h('select', { id: 'search-scope' }, ['all', 'memories', 'messages'].map(s => h('option', { value: s }, s)));
  const columns = h('div', { class: 'modes' });
  const button = h('button', { type: 'submit' }, 'Search');
  const form = h('form', { class: 'inline', role: 'search' },
    h('label', { for: 'search-q' }, 'Query'), query,
    h('label', { for: 'search-scope' }, 'Scope'), scope, button);
  form.addEventListener('submit', ev => {
    ev.preventDefault();
    busy(button, columns, async () => {
      const modes = ['auto', 'lexical', 'dense'];
      replace(columns, modes.map(m => h('div', { class: 'mode', 'data-mode': m }, h('h3', {}, m), h('p', { class: 'muted' }, 'searching…'))));
      await Promise.all(modes.map(async (mode, i) => {
        const col = columns.children[i];
        try {
          const res = await call('POST', u(user, 'search'), { body: { query: query.value, scope: scope.value, mode, limit: 10 } });
          replace(col, h('h3', {}, mode), searchResults(res));
        } catch (err) {
          replace(col, h('h3', {}, mode), problemView(err));
        }
      }));
    });
  });
  return section('Search', 'search', h('p', { class: 'muted' }, 'The same query in each mode, side by side, with each score\'s breakdown.'), form, columns);
}

function searchResults(res) {
  const head = h('p', { class: 'muted' }, `answered by ${res.mode_used}`, res.fallback_reason ? ` (fallback: ${res.fallback_reason})` : '');
  if (!res.items || res.items.length === 0) return [head, h('p', {}, 'No results.')];
  return [head, h('ol', { class: 'results' }, res.items.map(it => {
    const m = it.memory, msg = it.message;
    return h('li', { 'data-kind': it.kind },
      h('div', {}, h('strong', { class: 'score' }, num(it.score)), ' ', badge(it.kind),
        ' ', m ? h('code', {}, m.key) : h('code', {}, msg ? msg.message_id : '')),
      h('p', { class: 'text' }, m ? m.content : msg ? msg.content : ''),
      it.breakdown ? h('p', { class: 'breakdown muted' }, Object.entries(it.breakdown).map(([k, v]) => `${k} ${num(v)}`).join(' · ')) : null);
  }))];
}

// --- memories -------------------------------------------------------------

function memoriesSection(user) {
  const type = h('select', { id: 'mem-type' }, h('option', { value: '' }, 'any type'), memoryTypes.map(t => h('option', { value: t }, t)));
  const q = h('input', { id: 'mem-q', type: 'search', autocomplete: 'off' });
  const inactive = h('input', { id: 'mem-inactive', type: 'checkbox' });
  const list = h('div', { class: 'memories', 'aria-live': 'polite' });
  const more = h('div');
  const load = async (cursor) => {
    const res = await get(u(user, 'memories'), {
      query: { type: type.value, q: q.value.trim(), include_inactive: inactive.checked ? 'true' : '', limit: 50, cursor },
    });
    if (!cursor) replace(list, (res.items || []).length === 0 ? h('p', {}, 'No memories.') : null);
    for (const m of res.items || []) list.append(memoryCard(user, m, () => reload()));
    moreButton(more, 'More memories', res.next_cursor, load);
  };
  const reload = () => load('').catch(err => replace(list, problemView(err)));
  const form = h('form', { class: 'inline' },
    h('label', { for: 'mem-type' }, 'Type'), type,
    h('label', { for: 'mem-q' }, 'Text'), q,
    h('label', { class: 'check' }, inactive, ' include deleted'),
    h('button', { type: 'submit' }, 'Filter'));
  form.addEventListener('submit', ev => { ev.preventDefault(); reload(); });
  reload();
  return section('Memories', 'memories', form, list, more);
}

// moreButton offers the next page of a listing while there is one.
function moreButton(more, label, cursor, load) {
  replace(more);
  if (!cursor) return;
  const b = h('button', { type: 'button', class: 'secondary' }, label);
  b.addEventListener('click', () => busy(b, more, () => load(cursor)));
  more.append(b);
}

function memoryCard(user, m, reload) {
  const status = h('div', { 'aria-live': 'polite' });
  const history = h('div', { class: 'history', hidden: true });
  const actions = h('div', { class: 'actions' });
  const act = (label, cls, fn) => {
    const b = h('button', { type: 'button', class: cls, 'data-action': label.toLowerCase().replace(/\W+/g, '-') }, label);
    b.addEventListener('click', () => busy(b, status, fn));
    actions.append(b);
    return b;
  };
  const path = u(user, 'memories', m.key);
  const histButton = act('History', 'secondary', async () => {
    if (!history.hidden) { history.hidden = true; histButton.setAttribute('aria-expanded', 'false'); return; }
    const res = await get(path + '/history');
    replace(history, historyView(user, m, res.events || [], reload));
    history.hidden = false;
    histButton.setAttribute('aria-expanded', 'true');
  });
  histButton.setAttribute('aria-expanded', 'false');
  if (m.active !== false) {
    act(m.pinned ? 'Unpin' : 'Pin', 'secondary', async () => {
      await setPinned(path, m, !m.pinned);
      reload();
    });
    act('Delete', 'danger', async () => {
      if (!await confirmDialog(`Delete the memory "${m.key}"? It stops being recalled; its history keeps it and it can be reverted.`, 'Delete')) return;
      await call('DELETE', path);
      reload();
    });
  }
  act('Purge', 'danger', async () => {
    if (!await confirmDialog(`Purge the memory "${m.key}"? It and the content of its whole history are removed for good; only a record that something was purged stays.`, 'Purge')) return;
    await call('DELETE', path, { query: { purge: 'true' } });
    reload();
  });

  const src = m.source || {};
  return h('article', { class: 'memory' + (m.active === false ? ' inactive' : ''), 'data-key': m.key },
    h('header', {},
      h('code', { class: 'key' }, m.key), ' ', badge(m.type, 'type'),
      ' ', h('span', { class: 'importance', title: 'importance' }, `importance ${num(m.importance)}`),
      m.pinned === true ? [' ', badge('pinned', 'pinned')] : null,
      m.active === false ? [' ', badge('deleted', 'warn')] : null,
      (m.flags || []).map(f => [' ', badge(f, 'flag')])),
    h('p', { class: 'text content' }, m.content),
    h('p', { class: 'meta muted' },
      m.expires_at ? `expires ${when(m.expires_at)}` : 'never expires',
      ` · confidence ${num(m.confidence, 2)} · version ${m.version} · updated ${when(m.updated_at)}`,
      ` · source ${src.channel || '—'}`,
      src.conversation_id ? ` conversation ${src.conversation_id}` : '',
      src.message_id ? ` message ${src.message_id}` : '',
      m.vector ? ` · vector ${m.vector.status}` : ''),
    actions, status, history);
}

// setPinned changes only the pin with PATCH. A server without that operation
// (405) is sent the save instead, with the memory's own type, content, importance
// and confidence and the new pin: a restatement, so a new version whose expiry
// restarts.
async function setPinned(path, m, pinned) {
  try {
    await call('PATCH', path, { body: { pinned } });
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 405) throw err;
    await call('PUT', path, { body: { type: m.type, content: m.content, importance: m.importance, confidence: m.confidence, pinned } });
  }
}

// historyView lists the events, each with the fields it changed, before and after.
function historyView(user, m, events, reload) {
  if (events.length === 0) return h('p', {}, 'No history.');
  return h('ol', { class: 'events' }, events.map(ev => {
    const status = h('div', { 'aria-live': 'polite' });
    let revert = null;
    if (ev.after && ev.op !== 'PURGE') {
      revert = h('button', { type: 'button', class: 'secondary', 'data-action': 'revert' }, 'Revert to this');
      revert.addEventListener('click', () => busy(revert, status, async () => {
        if (!await confirmDialog(`Return "${m.key}" to what it was after this ${ev.op} (${when(ev.at)})?`, 'Revert')) return;
        await call('POST', u(user, 'memories', m.key, 'revert'), { body: { event_id: ev.id } });
        reload();
      }));
    }
    return h('li', { 'data-event': ev.id },
      h('div', {}, badge(ev.op), ' ', when(ev.at), ev.source && ev.source.channel ? ` · ${ev.source.channel}` : '', ' ', revert),
      diffView(ev.before, ev.after), status);
  }));
}

const ignoredInDiff = new Set(['vector', 'last_accessed_at', 'updated_at', 'version']);

function diffView(before, after) {
  const fields = new Set([...Object.keys(before || {}), ...Object.keys(after || {})]);
  const rows = [];
  for (const f of fields) {
    if (ignoredInDiff.has(f)) continue;
    const b = before ? show(before[f]) : '', a = after ? show(after[f]) : '';
    if (b === a) continue;
    rows.push(h('tr', {}, h('th', { scope: 'row' }, f), h('td', {}, h('del', {}, b)), h('td', {}, h('ins', {}, a))));
  }
  if (rows.length === 0) return h('p', { class: 'muted' }, 'No visible change.');
  return h('div', { class: 'table-wrap' }, h('table', { class: 'diff' },
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'field'), h('th', { scope: 'col' }, 'before'), h('th', { scope: 'col' }, 'after'))),
    h('tbody', {}, rows)));
}

function show(v) {
  if (v === undefined || v === null) return '';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

// --- messages -------------------------------------------------------------

function messagesSection(user) {
  const status = h('select', { id: 'msg-status' }, h('option', { value: '' }, 'any status'),
    ['PENDING', 'PROCESSED', 'FAILED', 'SKIPPED'].map(s => h('option', { value: s }, s)));
  const list = h('div', { class: 'table-wrap' });
  const more = h('div');
  let rows;
  const load = async cursor => {
    const res = await get(u(user, 'messages'), { query: { status: status.value, limit: 100, cursor } });
    if (!cursor) {
      rows = h('tbody');
      replace(list, (res.items || []).length === 0 ? h('p', {}, 'No messages.') : h('table', { class: 'messages' },
        h('thead', {}, h('tr', {}, ['Said', 'Conversation', 'Role', 'Content', 'Extraction'].map(t => h('th', { scope: 'col' }, t)))), rows));
    }
    for (const m of res.items || []) {
      rows.append(h('tr', { 'data-message': m.message_id },
        h('td', {}, when(m.created_at)),
        h('td', {}, m.conversation_id, h('br'), h('code', { class: 'muted' }, m.message_id)),
        h('td', {}, m.role, m.name ? ` (${m.name})` : ''),
        h('td', { class: 'text' }, m.content),
        h('td', {}, badge(m.status, 'status-' + String(m.status).toLowerCase()),
          m.skip_reason ? [' ', h('span', { class: 'skip-reason' }, m.skip_reason)] : null,
          m.attempts ? h('div', { class: 'muted' }, `attempts ${m.attempts}`) : null,
          m.error ? h('div', { class: 'error' }, m.error) : null)));
    }
    moreButton(more, 'More messages', res.next_cursor, load);
  };
  const reload = () => load('').catch(err => replace(list, problemView(err)));
  const form = h('form', { class: 'inline' }, h('label', { for: 'msg-status' }, 'Status'), status, h('button', { type: 'submit' }, 'Filter'));
  form.addEventListener('submit', ev => { ev.preventDefault(); reload(); });
  reload();
  return section('Messages', 'messages', h('p', { class: 'muted' }, 'Oldest first, with what extraction made of each.'), form, list, more);
}

// --- sessions -------------------------------------------------------------

function sessionsSection(user) {
  const list = h('div');
  get(u(user, 'sessions')).then(res => {
    const items = res.items || [];
    replace(list, items.length === 0 ? h('p', {}, 'No live sessions.') : h('ul', { class: 'sessions' }, items.map(s => {
      const detail = h('div', { class: 'session-detail', hidden: true });
      const b = h('button', { type: 'button', class: 'secondary', 'aria-expanded': 'false' }, 'Turns and summary');
      b.addEventListener('click', () => busy(b, detail, async () => {
        if (!detail.hidden) { detail.hidden = true; b.setAttribute('aria-expanded', 'false'); return; }
        const got = await get(u(user, 'sessions', s.session_id), { query: { flow_id: s.flow_id } });
        replace(detail,
          h('h3', {}, 'Summary'), got.summary ? h('p', { class: 'text' }, got.summary) : h('p', { class: 'muted' }, 'No summary yet.'),
          h('h3', {}, 'Turns'),
          h('ol', { class: 'turns' }, (got.messages || []).map(t => h('li', { class: 'turn ' + t.role },
            h('span', { class: 'role' }, t.role), ' ', h('span', { class: 'muted' }, when(t.at)), h('p', { class: 'text' }, t.content)))),
          got.meta ? h('details', {}, h('summary', {}, 'Session record'), dl(got.meta)) : null);
        detail.hidden = false;
        b.setAttribute('aria-expanded', 'true');
      }));
      return h('li', { 'data-session': s.session_id },
        h('strong', {}, s.session_id), ` · flow ${s.flow_name || s.flow_id || '—'} · ${num(s.message_count)} turns · last active ${when(s.last_active_at)} `,
        b, detail);
    })));
  }).catch(err => replace(list, problemView(err)));
  return section('Sessions', 'sessions', list);
}

// --- profile and org ------------------------------------------------------

function profileSection(user) {
  const actor = h('input', { id: 'acting', autocomplete: 'off', required: true });
  const out = h('div');
  const button = h('button', { type: 'submit' }, 'Read profile');
  const form = h('form', { class: 'inline' }, h('label', { for: 'acting' }, 'Acting manager'), actor, button);
  form.addEventListener('submit', ev => {
    ev.preventDefault();
    busy(button, out, async () => {
      const headers = { 'X-Acting-User': actor.value.trim() };
      const [profile, org] = await Promise.allSettled([
        get(u(user, 'profile'), { headers }),
        get('/v1/org/users/' + encodeURIComponent(user), { headers }),
      ]);
      replace(out,
        h('h3', {}, 'Org position'), org.status === 'fulfilled' ? dl(org.value) : problemView(org.reason),
        h('h3', {}, 'Profile'), profile.status === 'fulfilled' ? dl(profile.value) : problemView(profile.reason));
    });
  });
  return section('Profile and organisation', 'profile',
    h('p', { class: 'muted' }, 'A profile is read by the user or by one of their managers; name the manager you act as. The read is audited like any other.'),
    form, out);
}

// --- erasure --------------------------------------------------------------

function eraseSection(user) {
  const typed = h('input', { id: 'erase-confirm', autocomplete: 'off', spellcheck: 'false' });
  const button = h('button', { type: 'submit', class: 'danger', disabled: true }, 'Erase this user');
  const out = h('div', { 'aria-live': 'polite' });
  typed.addEventListener('input', () => { button.disabled = typed.value !== user; });
  const form = h('form', { class: 'inline' }, h('label', { for: 'erase-confirm' }, `Type ${user} to confirm`), typed, button);
  form.addEventListener('submit', ev => {
    ev.preventDefault();
    if (typed.value !== user) return;
    busy(button, out, async () => {
      const res = await call('DELETE', u(user));
      typed.disabled = true;
      await followJob(out, res.job_id);
    }).then(() => { button.disabled = true; });
  });
  return section('Erase this user', 'erase',
    h('p', {}, 'Removes everything stored of the user: memories and their history, messages, sessions, summaries, traces, profile, org entry, vectors. From the moment it is accepted nothing of the user is returned; the job then purges. It cannot be undone.'),
    form, out);
}

async function followJob(out, id) {
  for (;;) {
    const job = await get('/v1/jobs/' + encodeURIComponent(id));
    const counts = Object.entries(job.counts || {}).filter(([, n]) => n > 0);
    replace(out, h('div', { class: 'job', 'data-job': id, 'data-status': job.status },
      h('p', {}, 'Erasure job ', h('code', {}, id), ': ', badge(job.status), ` · attempts ${num(job.attempts)}`,
        job.finished_at ? ` · finished ${when(job.finished_at)}` : ''),
      counts.length ? h('table', { class: 'counts' }, h('tbody', {}, counts.map(([k, n]) => h('tr', {}, h('th', { scope: 'row' }, k), h('td', { class: 'n' }, num(n)))))) : null,
      job.status === 'DONE' ? h('p', {}, h('a', { href: page() }, 'Back to the users')) : null));
    if (job.status === 'DONE' || job.status === 'FAILED') return;
    await new Promise(r => setTimeout(r, 1000));
  }
}

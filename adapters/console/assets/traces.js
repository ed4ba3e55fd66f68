// Traces: why a context call injected what it did, and why not the rest.
import { ApiError, call, get, page, u } from './api.js';
import { badge, busy, h, num, problemView, replace, section, when } from './dom.js';

export async function userTracesPage(main, user) {
  document.title = `Traces of ${user} · engram console`;
  const latest = h('div');
  const query = h('input', { id: 'ctx-q', type: 'search', required: true, autocomplete: 'off' });
  const sessionID = h('input', { id: 'ctx-session', autocomplete: 'off' });
  const flowID = h('input', { id: 'ctx-flow', autocomplete: 'off' });
  const result = h('div');
  const run = h('button', { type: 'submit' }, 'Run');
  const form = h('form', { class: 'inline' },
    h('label', { for: 'ctx-q' }, 'Question'), query,
    h('label', { for: 'ctx-session' }, 'Session'), sessionID,
    h('label', { for: 'ctx-flow' }, 'Flow'), flowID, run);
  form.addEventListener('submit', ev => {
    ev.preventDefault();
    busy(run, result, async () => {
      const body = { query: query.value };
      if (sessionID.value.trim()) body.session_id = sessionID.value.trim();
      if (flowID.value.trim()) body.flow_id = flowID.value.trim();
      const res = await call('POST', u(user, 'context'), { body });
      const trace = await storedTrace(res.trace_id);
      replace(result, h('p', {}, h('a', { href: page('traces', res.trace_id) }, 'This trace on its own page')), traceView(trace, res.prompt));
    });
  });
  const byID = h('input', { id: 'trace-id', autocomplete: 'off', required: true });
  const open = h('form', { class: 'inline' }, h('label', { for: 'trace-id' }, 'Trace id'), byID, h('button', { type: 'submit' }, 'Open'));
  open.addEventListener('submit', ev => { ev.preventDefault(); location.assign(page('traces', byID.value.trim())); });

  replace(main,
    h('p', { class: 'crumbs' }, h('a', { href: page() }, 'Users'), ' / ', h('a', { href: page('users', user) }, user), ' / '),
    h('h1', {}, `Traces of ${user}`),
    section('Context calls', 'list', traceList(user)),
    section('Latest context call', 'latest', latest),
    section('Run a context call', 'run', h('p', { class: 'muted' }, 'Asks for the block an agent would get now, and shows its trace.'), form, result),
    section('Open a trace', 'open', open));
  try {
    const t = await get(u(user, 'traces', 'latest'));
    replace(latest, h('p', {}, h('a', { href: page('traces', t.id) }, 'This trace on its own page')), traceView(t));
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) replace(latest, h('p', {}, 'No context call has been traced for this user (or its traces are past their retention).'));
    else throw err;
  }
}

// traceList is the user's traces newest first, a page at a time: each row is
// the question, when it was asked and what was injected, linked to its trace.
function traceList(user) {
  const status = h('p', { class: 'muted', 'aria-live': 'polite' });
  const body = h('tbody');
  const older = h('button', { type: 'button', class: 'secondary', hidden: true }, 'Older →');
  let before = '';
  const more = async () => {
    try {
      const res = await get(u(user, 'traces'), { query: { limit: 20, before } });
      for (const t of res.traces) {
        body.append(h('tr', { 'data-trace': t.id },
          h('td', {}, when(t.at)),
          h('td', {}, h('a', { href: page('traces', t.id) }, t.query || '(empty question)')),
          h('td', { class: 'n' }, num(t.injected_chars))));
      }
      before = res.next_before || '';
      older.hidden = !before;
      replace(status, body.children.length === 0 ? 'No context call has been traced for this user (or its traces are past their retention).' :
        `${body.children.length} trace${body.children.length === 1 ? '' : 's'}, newest first${before ? '; older ones follow' : ''}`);
    } catch (err) {
      replace(status, problemView(err));
    }
  };
  older.addEventListener('click', more);
  more();
  return h('div', {}, status,
    h('div', { class: 'table-wrap' }, h('table', { class: 'traces' },
      h('thead', {}, h('tr', {}, ['Asked', 'Question', 'Injected chars'].map(t => h('th', { scope: 'col' }, t)))), body)),
    h('nav', { class: 'pager', 'aria-label': 'Pages of traces' }, older));
}

// storedTrace reads a trace just made: the writer stores it a moment after the
// answer, so a 404 is asked again for a few seconds.
async function storedTrace(id) {
  for (let i = 0; ; i++) {
    try {
      return await get('/v1/traces/' + encodeURIComponent(id));
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 404 || i >= 20) throw err;
      await new Promise(r => setTimeout(r, 250));
    }
  }
}

export async function tracePage(main, id) {
  document.title = `Trace ${id} · engram console`;
  const t = await get('/v1/traces/' + encodeURIComponent(id));
  replace(main,
    h('p', { class: 'crumbs' }, h('a', { href: page() }, 'Users'), ' / ', h('a', { href: page('users', t.user_id) }, t.user_id), ' / ',
      h('a', { href: page('users', t.user_id, 'traces') }, 'traces'), ' / '),
    h('h1', {}, `Trace ${t.id}`),
    traceView(t));
}

const sectionOrder = ['profile', 'summary', 'recent', 'memories', 'episodes', 'external'];

// traceView draws one trace; prompt is the block when the console made the call
// (a stored trace keeps each injected item's text, by section).
function traceView(t, prompt) {
  const items = t.items || [];
  const hits = t.raw_hits || [];
  const bySection = new Map();
  for (const it of items) {
    const s = it.section || it.source || 'other';
    if (!bySection.has(s)) bySection.set(s, []);
    bySection.get(s).push(it);
  }
  const ordered = [...bySection.keys()].sort((a, b) => rank(a) - rank(b));
  return h('div', { class: 'trace', 'data-trace': t.id },
    h('dl', { class: 'kv' },
      h('dt', {}, 'question'), h('dd', { class: 'text question' }, t.query),
      h('dt', {}, 'at'), h('dd', {}, when(t.at)),
      h('dt', {}, 'user'), h('dd', {}, h('a', { href: page('users', t.user_id) }, t.user_id)),
      h('dt', {}, 'mode'), h('dd', {}, t.mode_used || '—', t.fallback_reason ? ` (fallback: ${t.fallback_reason})` : ''),
      t.session_id ? [h('dt', {}, 'session'), h('dd', {}, t.session_id, t.flow_id ? ` · flow ${t.flow_id}` : '')] : null),
    h('h3', {}, 'Block as injected'),
    prompt || t.prompt ? h('pre', { class: 'block' }, prompt || t.prompt) :
      items.length === 0 ? h('p', {}, 'Nothing was injected.') :
        h('div', { class: 'block' }, ordered.map(s => h('div', { class: 'block-section' },
          h('h4', {}, s), h('ol', {}, bySection.get(s).map(it => h('li', {}, h('code', {}, it.id), ' ', h('span', { class: 'text' }, it.snippet), it.truncated ? badge('truncated', 'warn') : null)))))),
    h('h3', {}, 'Budget'),
    budgetBar(t, ordered, bySection),
    h('h3', {}, `Candidates (${hits.length})`),
    hits.length === 0 ? h('p', {}, 'No candidate was read.') : h('div', { class: 'table-wrap' }, h('table', { class: 'candidates' },
      h('thead', {}, h('tr', {}, ['Candidate', 'Kind', 'Section', 'Source', 'Score', 'Outcome'].map(x => h('th', { scope: 'col' }, x)))),
      h('tbody', {}, hits.map(c => h('tr', { class: c.kept ? 'kept' : 'dropped', 'data-candidate': c.id },
        h('td', {}, h('code', {}, c.id)), h('td', {}, c.kind), h('td', {}, c.section || '—'), h('td', {}, c.source || '—'),
        h('td', { class: 'n' }, num(c.score)),
        h('td', {}, c.kept ? badge('kept', 'ok') : [badge('dropped', 'warn'), ' ', h('span', { class: 'reason' }, c.reason || '')])))))),
    t.omitted && Object.keys(t.omitted).length ? h('p', { class: 'muted' }, 'Found but never read, by reason: ',
      Object.entries(t.omitted).map(([k, n]) => `${k} ${n}`).join(', ')) : null,
    h('h3', {}, 'Timings'),
    timings(t.timings_ms || {}));
}

function rank(s) {
  const i = sectionOrder.indexOf(s);
  return i < 0 ? sectionOrder.length : i;
}

// budgetBar draws the characters of each section against the call's budget.
function budgetBar(t, ordered, bySection) {
  const budget = t.budget_chars || 0;
  const used = ordered.map(s => [s, bySection.get(s).reduce((n, it) => n + [...(it.snippet || '')].length, 0)]);
  const total = Math.max(budget, used.reduce((n, [, c]) => n + c, 0), 1);
  const label = used.map(([s, c]) => `${s} ${c}`).join(', ');
  return h('div', {},
    h('div', { class: 'bar', role: 'img', 'aria-label': `budget ${budget} characters: ${label || 'nothing used'}` },
      used.map(([s, c]) => sized(h('span', { class: 'seg seg-' + s, title: `${s}: ${c} characters`, 'data-section': s }), c / total))),
    h('p', { class: 'legend' }, `${num(t.injected_chars)} characters injected of a budget of ${budget ? num(budget) : '—'}`,
      used.map(([s, c]) => [' ', h('span', { class: 'swatch seg-' + s, 'aria-hidden': 'true' }), ` ${s} ${c}`])));
}

function timings(ms) {
  const entries = Object.entries(ms).sort((a, b) => b[1] - a[1]);
  if (entries.length === 0) return h('p', { class: 'muted' }, 'No timings.');
  const max = Math.max(...entries.map(([, v]) => v), 0.001);
  return h('table', { class: 'timings' }, h('tbody', {}, entries.map(([stage, v]) => h('tr', {},
    h('th', { scope: 'row' }, stage), h('td', { class: 'n' }, `${num(v, 2)} ms`),
    h('td', { class: 'bar-cell' }, sized(h('span', { class: 'tbar' }), v / max))))));
}

// sized sets a bar's width through the CSS object model: the page's policy
// forbids inline style attributes.
function sized(el, fraction) {
  el.style.width = `${Math.max(0, Math.min(1, fraction)) * 100}%`;
  return el;
}

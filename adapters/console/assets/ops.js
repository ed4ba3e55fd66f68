// Operations: what runs, on what, and how far behind the background work is, from
// the figures /metrics exports (through /console/ops.json) and /readyz.
import { base, get } from './api.js';
import { badge, dl, h, num, replace, section } from './dom.js';

const breakerStates = ['closed', 'open', 'half-open'];

export async function opsPage(main) {
  document.title = 'Operations · engram console';
  const [ops, ready] = await Promise.all([get(base + '/ops.json'), readiness()]);
  const m = ops.metrics || {};
  const value = (name, where = {}) => {
    const s = (m[name] || []).filter(x => Object.entries(where).every(([k, v]) => (x.labels || {})[k] === v));
    return s.length ? s.reduce((n, x) => n + x.value, 0) : null;
  };
  const breaker = value('engram_vector_breaker_state');
  replace(main,
    h('h1', {}, 'Operations'),
    section('This process', 'process', dl({
      version: ops.version, roles: (ops.roles || []).join(', '), data: ops.data, sessions: ops.sessions,
      'vector backend': ops.vector_backend, embedder: ops.embedder, extractor: ops.extractor, auth: ops.auth,
    })),
    section('Dependencies', 'deps', h('ul', { class: 'states' },
      ['sql', 'redis', 'vector', 'llm', 'embedder'].map(d => h('li', { 'data-dep': d }, h('strong', {}, d), ' ', badge(ready[d] || '—', 'state-' + (ready[d] || 'unknown')),
        ready.details && ready.details[d] ? h('span', { class: 'muted' }, ' ' + ready.details[d]) : null))),
    h('p', {}, 'Vector search breaker: ', breaker === null ? h('span', { class: 'muted' }, 'not exported by this process') :
      badge(breakerStates[breaker] || String(breaker), breaker === 0 ? 'ok' : 'warn'))),
    section('Backlogs', 'backlogs', h('table', { class: 'counts' }, h('tbody', {},
      row('extraction: messages pending', value('engram_messages_pending')),
      row('extraction: oldest pending (s)', value('engram_messages_oldest_pending_age_seconds')),
      (m.engram_messages || []).map(x => row(`messages ${x.labels.status}`, x.value)),
      (m.engram_vector_backlog || []).map(x => row(`indexing: ${x.labels.kind} ${x.labels.status}`, x.value)),
      row('indexing: oldest waiting (s)', value('engram_vector_backlog_oldest_age_seconds')),
      row('context traces waiting to be stored', value('engram_trace_pending'))))),
    section('LLM calls by stage', 'llm', byLabels(m.engram_llm_calls_total, 'stage', 'outcome')),
    section('Context calls', 'context', byLabels(m.engram_context_calls_total, 'outcome')),
    section('Every figure', 'figures', h('details', {}, h('summary', {}, `${Object.keys(m).length} engram metrics, as /metrics exports them now`),
      h('div', { class: 'table-wrap' }, h('table', { class: 'figures' }, h('tbody', {},
        Object.keys(m).sort().flatMap(name => m[name].map(x => h('tr', {},
          h('th', { scope: 'row' }, name), h('td', {}, Object.entries(x.labels || {}).map(([k, v]) => `${k}=${v}`).join(' ')),
          h('td', { class: 'n' }, num(x.value)))))))))));
}

async function readiness() {
  // /readyz answers 503 with the same body when the truth store is down.
  const res = await fetch('/readyz', { headers: { Accept: 'application/json' } });
  try { return await res.json(); } catch { return {}; }
}

function row(label, v) {
  return h('tr', {}, h('th', { scope: 'row' }, label), h('td', { class: 'n' }, v === null || v === undefined ? '—' : num(v)));
}

// byLabels tabulates a counter by its first label (rows) and second (columns).
function byLabels(series, rowLabel, colLabel) {
  if (!series || series.length === 0) return h('p', { class: 'muted' }, 'Not exported by this process (its role does not run here).');
  if (!colLabel) return h('table', { class: 'counts' }, h('tbody', {}, series.map(x => row(x.labels[rowLabel], x.value))));
  const rows = [...new Set(series.map(x => x.labels[rowLabel]))];
  const cols = [...new Set(series.map(x => x.labels[colLabel]))];
  const at = (r, c) => series.filter(x => x.labels[rowLabel] === r && x.labels[colLabel] === c).reduce((n, x) => n + x.value, 0);
  return h('div', { class: 'table-wrap' }, h('table', { class: 'counts', 'data-metric': 'llm' },
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, rowLabel), cols.map(c => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, rows.map(r => h('tr', { 'data-stage': r }, h('th', { scope: 'row' }, r), cols.map(c => h('td', { class: 'n' }, num(at(r, c)))))))));
}

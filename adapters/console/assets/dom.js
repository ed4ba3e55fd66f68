// DOM building without markup: every value becomes a text node or an attribute
// value, so a stored text such as "<img src=x onerror=…>" is shown, never parsed.
// Nothing in the console hands a string to the HTML parser (the package test checks).

// h creates an element: attrs are attributes (on* keys are listeners, a non-string
// value is set as a property), children are nodes or values shown as text.
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (typeof v !== 'string' && typeof v !== 'number' && v !== true) el[k] = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  add(el, children);
  return el;
}

// add appends children: nodes as they are, anything else as text.
export function add(el, children) {
  for (const c of [children].flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
  return el;
}

// replace empties el and fills it with children.
export function replace(el, ...children) {
  el.replaceChildren();
  return add(el, children);
}

export function when(t) {
  if (!t) return '—';
  const d = new Date(t);
  if (Number.isNaN(d.getTime())) return String(t);
  return d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

export function num(x, digits = 3) {
  return typeof x === 'number' ? (Number.isInteger(x) ? String(x) : x.toFixed(digits)) : '—';
}

export function badge(text, kind = '') {
  return h('span', { class: 'badge ' + kind }, text);
}

// problemView shows an API error (problem+json) or any other failure as text.
export function problemView(err) {
  const p = err && err.problem;
  if (p) {
    return h('div', { class: 'problem', role: 'alert' },
      h('strong', {}, `${err.status} ${p.title || ''}`), ' ', p.detail || '',
      p.request_id ? h('span', { class: 'muted' }, ` (request ${p.request_id})`) : null);
  }
  return h('div', { class: 'problem', role: 'alert' }, String(err && err.message ? err.message : err));
}

// dl renders an object as a definition list, nested objects and arrays included,
// every value as text.
export function dl(obj) {
  const list = h('dl', { class: 'kv' });
  for (const [k, v] of Object.entries(obj || {})) {
    list.append(h('dt', {}, k), h('dd', {}, valueView(v)));
  }
  return list;
}

function valueView(v) {
  if (v === null || v === undefined || v === '') return h('span', { class: 'muted' }, '—');
  if (Array.isArray(v)) {
    if (v.length === 0) return h('span', { class: 'muted' }, 'none');
    if (v.every(x => typeof x !== 'object' || x === null)) return v.join(', ');
    return h('ul', {}, v.map(x => h('li', {}, valueView(x))));
  }
  if (typeof v === 'object') return dl(v);
  if (typeof v === 'string' && v.includes('\n')) return h('pre', { class: 'text' }, v);
  return String(v);
}

// confirmDialog asks in a modal dialog (Escape or Cancel says no) and resolves
// to true only when the operator chose the confirming button.
export function confirmDialog(question, confirmLabel = 'Confirm') {
  return new Promise(resolve => {
    const cancel = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
    const ok = h('button', { type: 'button', class: 'danger', 'data-confirm': 'yes' }, confirmLabel);
    const dialog = h('dialog', { class: 'confirm', 'aria-label': 'Confirm' },
      h('p', {}, question), h('div', { class: 'actions' }, cancel, ok));
    cancel.addEventListener('click', () => dialog.close('no'));
    ok.addEventListener('click', () => dialog.close('yes'));
    dialog.addEventListener('close', () => {
      resolve(dialog.returnValue === 'yes');
      dialog.remove();
    });
    document.body.append(dialog);
    dialog.showModal();
    cancel.focus();
  });
}

// section is a titled part of a page.
export function section(title, id, ...children) {
  return h('section', { id, 'aria-labelledby': id + '-title' }, h('h2', { id: id + '-title' }, title), children);
}

// busy runs fn with button disabled and a status line, showing its failure.
export async function busy(button, status, fn) {
  button.disabled = true;
  try {
    await fn();
  } catch (err) {
    replace(status, problemView(err));
  } finally {
    button.disabled = false;
  }
}

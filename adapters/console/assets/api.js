// The JSON API as the console calls it: same origin, the operator's key (kept in
// this tab's sessionStorage, never in a cookie or on disk) as a bearer token.

const keyName = 'engram.console.apiKey';

export const base = document.body.dataset.base;

export class ApiError extends Error {
  constructor(status, problem) {
    super((problem && problem.detail) || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
  }
}

export function apiKey() {
  return sessionStorage.getItem(keyName) || '';
}

export function setAPIKey(key) {
  if (key) sessionStorage.setItem(keyName, key);
  else sessionStorage.removeItem(keyName);
}

// call sends one request. query holds only parameters the API documents for the
// path: empty values are left out, so an unset filter is no parameter at all.
export async function call(method, path, { body, query, headers, key } = {}) {
  const url = new URL(path, location.origin);
  for (const [k, v] of Object.entries(query || {})) {
    if (v !== undefined && v !== null && v !== '' && v !== false) url.searchParams.set(k, String(v));
  }
  const h = { Accept: 'application/json', ...headers };
  const bearer = key === undefined ? apiKey() : key;
  if (bearer) h.Authorization = 'Bearer ' + bearer;
  if (body !== undefined) h['Content-Type'] = 'application/json';
  const res = await fetch(url, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let data = null;
  if (text) {
    try { data = JSON.parse(text); } catch { data = { detail: text }; }
  }
  if (!res.ok) throw new ApiError(res.status, data);
  return data;
}

export const get = (path, opts) => call('GET', path, opts);

// u is the path of a user's resource: /v1/users/{user}/…, the user id escaped.
export function u(user, ...rest) {
  return ['/v1/users', encodeURIComponent(user), ...rest.map(encodeURIComponent)].join('/');
}

// page is a console address.
export function page(...parts) {
  return [base, ...parts.map(encodeURIComponent)].join('/');
}

// allPages follows next_cursor until the listing ends or max items were read.
export async function allPages(path, query, max) {
  const items = [];
  let cursor = '';
  for (;;) {
    const res = await get(path, { query: { ...query, cursor } });
    items.push(...(res.items || []));
    cursor = res.next_cursor || '';
    if (!cursor || items.length >= max) return { items, more: Boolean(cursor) };
  }
}

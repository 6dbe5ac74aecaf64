// What the page works on: the mode it shows and the key it uses in that mode. Every panel clears and
// reloads when either changes.
const STORAGE = 'interview-demo.key.';

export const state = {
  /** 'test' or 'live': the mode the page shows. */
  mode: 'test',
  /** The key used for /v1 in this mode ('' when none). */
  key: '',
  /** The key's own description (GET /v1/me, or the created key), once known. */
  keyInfo: null,
};

const listeners = [];

/** Calls `listener` whenever the mode or the key changes. */
export function onContextChange(listener) {
  listeners.push(listener);
}

function changed() {
  for (const listener of listeners) listener();
}

export function storedKey(mode) {
  return sessionStorage.getItem(STORAGE + mode) || '';
}

/** Shows `mode`, with the key kept for it. */
export function setMode(mode) {
  state.mode = mode;
  state.key = storedKey(mode);
  state.keyInfo = null;
  changed();
}

/** Uses `key` (described by `info`, a key object) in its own mode, and shows that mode. */
export function useKey(key, info) {
  const mode = info.livemode ? 'live' : 'test';
  sessionStorage.setItem(STORAGE + mode, key);
  state.mode = mode;
  state.key = key;
  state.keyInfo = info;
  changed();
}

/** Forgets the key of `mode` (revoked, or refused by the API). */
export function forgetKey(mode) {
  sessionStorage.removeItem(STORAGE + mode);
  if (state.mode !== mode) return;
  state.key = '';
  state.keyInfo = null;
  changed();
}

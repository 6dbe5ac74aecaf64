// Building and filling the page's elements.
import { notify } from './feedback.js';

export const $ = (id) => document.getElementById(id);

/** An element with attributes (`on…` ones become listeners) and children (strings become text). */
export function h(tag, attrs, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith('on')) element.addEventListener(name.slice(2), value);
    else if (name === 'class') element.className = value;
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(typeof child === 'object' ? child : String(child));
  }
  return element;
}

/**
 * Replaces a table body's rows (or shows one row saying why there are none). Keyboard focus inside
 * the body moves to the same control of the same row, so that a refresh never throws it away.
 */
export function fill(tbody, rows, columns, emptyText) {
  const focused = tbody.contains(document.activeElement) ? document.activeElement : null;
  const rowKey = focused?.closest('tr')?.dataset.key;
  const control = focused?.dataset.action;
  tbody.replaceChildren(
    ...(rows.length ? rows : [h('tr', {}, h('td', { class: 'empty', colspan: columns }, emptyText))]),
  );
  if (rowKey === undefined) return;
  const row = [...tbody.rows].find((candidate) => candidate.dataset.key === rowKey);
  // The same control, or the one that took its place ("Revoke…" gives way to "Revoke now").
  const family = control ? control.split('-')[0] : null;
  const target =
    row && control
      ? row.querySelector(`[data-action="${control}"]`) || row.querySelector(`[data-action^="${family}"]`)
      : null;
  if (target) target.focus();
}

async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  // Outside a secure context (a LAN address) the Clipboard API is missing: the older way.
  const area = h('textarea', { class: 'sr-only', readonly: true });
  area.value = text;
  document.body.append(area);
  area.select();
  const copied = document.execCommand('copy');
  area.remove();
  if (!copied) throw new Error('Copying is not allowed here: select the value and copy it by hand.');
}

/** A Copy button for `text`, named after what it copies for screen readers. */
export function copyButton(text, what) {
  return h(
    'button',
    {
      type: 'button',
      class: 'small',
      'data-action': 'copy',
      'aria-label': 'Copy ' + what,
      onclick: async () => {
        try {
          await copyText(text);
          notify('Copied ' + what);
        } catch (error) {
          notify(error.message, true);
        }
      },
    },
    'Copy',
  );
}

/** A long value (id, URL, name) on one line: ellipsized, whole on hover, and copyable when `what` is given. */
export function longValue(text, what, mono = true) {
  return h(
    'span',
    { class: 'value' },
    h('span', { class: 'text' + (mono ? ' mono' : ''), title: text }, text),
    what ? copyButton(text, what) : null,
  );
}

/** A badge for a mode. */
export function modeBadge(livemode) {
  return h('span', { class: 'badge ' + (livemode ? 'live' : 'test') }, livemode ? 'live' : 'test');
}

const GOOD = ['succeeded', 'enabled', 'completed', 'verified'];
const WAITING = ['pending', 'in_progress', 'skipped'];
const BAD = ['failed', 'disabled', 'invalid', 'canceled', 'revoked'];

/** A status as a coloured badge; an HTTP status by its class. */
export function statusBadge(status) {
  const text = String(status);
  let kind = '';
  if (/^\d{3}$/.test(text)) kind = Number(text) < 300 ? 'ok' : 'bad';
  else if (GOOD.includes(text)) kind = 'ok';
  else if (WAITING.includes(text)) kind = 'warn';
  else if (BAD.includes(text)) kind = 'bad';
  return h('span', { class: 'badge ' + kind }, text);
}

/** Runs a row's `open`, telling the user when it fails. */
function opening(open) {
  Promise.resolve()
    .then(open)
    .catch((error) => notify(error.message, true));
}

/** A button in a row's first cell that opens the row: rows are reached and opened with the keyboard. */
export function openButton(label, what, open) {
  return h(
    'button',
    {
      type: 'button',
      class: 'link mono',
      'data-action': 'open',
      'aria-label': 'Open ' + what,
      onclick: () => opening(open),
    },
    label,
  );
}

/** A row that opens on a click anywhere in it, besides its own buttons. */
export function openableRow(key, open, ...cells) {
  return h(
    'tr',
    {
      class: 'openable',
      'data-key': key,
      onclick: (event) => {
        if (!event.target.closest('button, a, input, select')) opening(open);
      },
    },
    ...cells,
  );
}

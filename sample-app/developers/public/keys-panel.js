// API keys: created and revoked through the host's dashboard routes; the full key is shown once.
import { guarded, onSubmit } from './busy.js';
import { $, fill, h, longValue, modeBadge, statusBadge } from './dom.js';
import { FieldErrors, notify } from './feedback.js';
import { dashboard } from './http.js';
import { forgetKey, onContextChange, state, useKey } from './state.js';
import { when } from './time.js';

const config = JSON.parse($('page-config').textContent);
const form = $('key-form');
const errors = new FieldErrors({ name: 'key-name', scopes: 'key-scopes' });
/** The key shown in the "copy it now" banner: { id, livemode }. */
let shownKey = null;
/** The key a Revoke button asks to confirm. */
let confirming = null;

function describeUse() {
  if (!shownKey) return;
  $('new-key-use').textContent =
    state.keyInfo && state.keyInfo.id === shownKey.id
      ? 'This page now uses it for the /v1 calls of ' + (shownKey.livemode ? 'live' : 'test') + ' mode.'
      : 'This page uses another key now.';
}

function revokeCell(key) {
  if (key.revoked_at) return h('td', {}, statusBadge('revoked'));
  if (confirming !== key.id) {
    return h(
      'td',
      {},
      h(
        'button',
        {
          type: 'button',
          class: 'small danger',
          'data-action': 'revoke',
          'aria-label': 'Revoke ' + key.name,
          onclick: () => {
            confirming = key.id;
            loadKeys();
          },
        },
        'Revoke…',
      ),
    );
  }
  const yes = h(
    'button',
    { type: 'button', class: 'small danger', 'data-action': 'revoke-yes' },
    'Revoke now',
  );
  yes.addEventListener(
    'click',
    guarded(yes, async () => {
      await dashboard('DELETE', '/keys/' + key.id);
      confirming = null;
      notify('Revoked ' + key.id + ': calls with it now answer 401');
      if (shownKey && shownKey.id === key.id) {
        shownKey = null;
        $('new-key').hidden = true;
      }
      if (state.keyInfo && state.keyInfo.id === key.id) forgetKey(state.mode);
      await loadKeys();
    }),
  );
  const no = h(
    'button',
    {
      type: 'button',
      class: 'small',
      'data-action': 'revoke-no',
      onclick: () => {
        confirming = null;
        loadKeys();
      },
    },
    'Cancel',
  );
  return h(
    'td',
    {},
    h('div', { class: 'muted' }, 'Calls with it fail at once.'),
    h('div', { class: 'actions' }, yes, no),
  );
}

export async function loadKeys() {
  const { data } = await dashboard('GET', '/keys');
  const rows = data.map((key) =>
    h(
      'tr',
      { 'data-key': key.id },
      h('td', {}, longValue(key.name, null, false), h('div', {}, longValue(key.id, 'key id ' + key.id))),
      h('td', {}, modeBadge(key.livemode)),
      h('td', {}, h('code', {}, config.keyPrefix + (key.livemode ? '_live_' : '_test_') + '…' + key.last4)),
      h('td', {}, h('small', {}, key.scopes.join(', '))),
      h('td', {}, when(key.created_at)),
      h('td', {}, when(key.last_used_at)),
      revokeCell(key),
    ),
  );
  fill($('keys-body'), rows, 7, 'No keys yet.');
}

function checkedScopes() {
  return [...form.querySelectorAll('input[name=scopes]:checked')].map((input) => input.value);
}

onSubmit(
  form,
  async () => {
    errors.clear();
    const name = form.elements.name.value.trim();
    if (!name) return errors.show('name', 'Give the key a name, to tell it apart later.');
    const scopes = checkedScopes();
    if (scopes.length === 0)
      return errors.show('scopes', 'Choose at least one scope: a key without scopes can call nothing.');
    const created = await dashboard('POST', '/keys', {
      name,
      mode: form.querySelector('input[name=mode]:checked').value,
      scopes,
    });
    shownKey = { id: created.apiKey.id, livemode: created.apiKey.livemode };
    $('new-key-value').replaceChildren(longValue(created.key, 'the new key'));
    $('new-key').hidden = false;
    useKey(created.key, created.apiKey);
    notify('Created ' + created.apiKey.id);
    await loadKeys();
  },
  (error) => errors.report(error),
);

form.addEventListener('change', () => errors.clear());

onContextChange(() => {
  // A new key is created in the mode the page shows, unless the user picks the other.
  form.querySelector(`input[name=mode][value=${state.mode}]`).checked = true;
  describeUse();
});

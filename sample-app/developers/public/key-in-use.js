// The mode switch and the key the page uses for /v1 in that mode, described by GET /v1/me.
import { guarded } from './busy.js';
import { $ } from './dom.js';
import { FieldErrors } from './feedback.js';
import { api, apiWith } from './http.js';
import { forgetKey, onContextChange, setMode, state, useKey } from './state.js';

const errors = new FieldErrors({ key: 'active-key' });
const input = $('active-key');

const BANNERS = {
  test: 'Test mode: test keys, endpoints, sessions and events. Nothing here touches live data.',
  live: 'Live mode: live keys, endpoints, sessions and events, as real customers would see them.',
};

function describe(info) {
  $('active-key-info').textContent = info
    ? (info.livemode ? 'Live' : 'Test') +
      ' key “' +
      info.name +
      '” (' +
      info.id +
      ', …' +
      info.last4 +
      ') · scopes: ' +
      (info.scopes.join(', ') || 'none')
    : state.key
      ? 'Checking the key…'
      : 'No key for ' + state.mode + ' mode yet: create one above, or paste one.';
}

/** Asks the API what the key in use is; a refused key is forgotten, with the reason by the field. */
async function checkKey() {
  const key = state.key;
  try {
    const me = await api('GET', '/me');
    if (state.key === key) {
      state.keyInfo = me;
      describe(me);
    }
  } catch (error) {
    if (state.key !== key) return;
    if (error.status === 401) {
      forgetKey(state.mode);
      errors.show('key', 'The API refused the stored key (' + error.message + '): create or paste another.');
    } else errors.show('key', error.message);
  }
}

onContextChange(() => {
  document.querySelector(`input[name=page-mode][value=${state.mode}]`).checked = true;
  const banner = $('mode-banner');
  banner.className = 'mode-banner ' + state.mode;
  banner.textContent = BANNERS[state.mode];
  $('active-key-label').textContent = 'API key for ' + state.mode + ' mode';
  if (document.activeElement !== input) input.value = state.key;
  $('api-output').hidden = true;
  describe(state.keyInfo);
  if (state.key && !state.keyInfo) checkKey();
});

for (const radio of document.querySelectorAll('input[name=page-mode]')) {
  radio.addEventListener('change', () => {
    errors.clear();
    setMode(radio.value);
  });
}

input.addEventListener('change', async () => {
  errors.clear();
  const key = input.value.trim();
  if (!key) return forgetKey(state.mode);
  try {
    useKey(key, await apiWith(key, 'GET', '/me'));
  } catch (error) {
    errors.show('key', 'This key cannot be used: ' + error.message);
  }
});

for (const button of document.querySelectorAll('button[data-get]')) {
  button.addEventListener(
    'click',
    guarded(button, async () => {
      const output = $('api-output');
      output.hidden = false;
      const path = button.dataset.get.replace(/^\/v1/, '');
      try {
        output.textContent = 'GET /v1' + path + '\n\n' + JSON.stringify(await api('GET', path), null, 2);
      } catch (error) {
        output.textContent =
          'GET /v1' + path + '\n\n' + (error.code ? error.code + ': ' : '') + error.message;
      }
    }),
  );
}

// Demo sessions of the mode shown, through the host's own routes: each change publishes its events
// in the same transaction.
import { guarded, onSubmit } from './busy.js';
import { $, fill, h, longValue, statusBadge } from './dom.js';
import { notify } from './feedback.js';
import { dashboard } from './http.js';
import { onContextChange, state } from './state.js';
import { when } from './time.js';

const form = $('session-form');
const changeListeners = [];

/** Calls `listener` after a session change published events. */
export function onPublished(listener) {
  changeListeners.push(listener);
}

function announce(what, change) {
  const types = change.events.map((event) => event.type).join(', ');
  notify(what + (types ? '; published ' + types : '; nothing to publish'));
  for (const listener of changeListeners) listener();
}

function completeButton(session) {
  const button = h(
    'button',
    { type: 'button', class: 'small', 'data-action': 'complete', 'aria-label': 'Complete ' + session.id },
    'Complete',
  );
  button.addEventListener(
    'click',
    guarded(button, async () => {
      const change = await dashboard('POST', '/sessions/' + session.id + '/complete');
      announce('Completed ' + session.id, change);
      await loadSessions();
    }),
  );
  return button;
}

export async function loadSessions() {
  const { data } = await dashboard('GET', '/sessions');
  const rows = data
    .filter((session) => session.livemode === (state.mode === 'live'))
    .map((session) =>
      h(
        'tr',
        { 'data-key': session.id },
        h(
          'td',
          {},
          longValue(session.id, 'session id ' + session.id),
          h('div', {}, when(session.created_at)),
        ),
        h('td', {}, longValue(session.candidate_name, null, false)),
        h('td', {}, statusBadge(session.status)),
        h('td', {}, session.status === 'in_progress' ? completeButton(session) : null),
      ),
    );
  fill($('sessions-body'), rows, 4, 'No ' + state.mode + ' sessions yet.');
}

onSubmit(form, async () => {
  const change = await dashboard('POST', '/sessions', {
    mode: state.mode,
    candidate_name: form.elements.candidate_name.value,
  });
  announce('Started ' + change.session.id, change);
  await loadSessions();
});

$('rollback-demo').addEventListener(
  'click',
  guarded($('rollback-demo'), async () => {
    const result = await dashboard('POST', '/sessions/rollback-demo', { mode: state.mode });
    const shown = $('rollback-result');
    shown.hidden = false;
    shown.textContent =
      'Rolled back: session ' +
      result.session_id +
      (result.session_stored ? ' WAS stored' : ' not stored') +
      ', event ' +
      result.event_id +
      (result.event_stored ? ' WAS stored' : ' not stored') +
      '. No webhook is sent for it.';
  }),
);

onContextChange(() => {
  $('rollback-result').hidden = true;
  fill($('sessions-body'), [], 4, 'Loading…');
  loadSessions().catch((error) => notify(error.message, true));
});

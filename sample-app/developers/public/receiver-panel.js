// The demo receiver: what it got, from which endpoint and delivery, and whether the signature held.
import { guarded } from './busy.js';
import { $, fill, h, longValue, statusBadge } from './dom.js';
import { currentEndpoint, openEndpoint } from './endpoint-detail.js';
import { listedEndpoints } from './endpoints-panel.js';
import { openDelivery } from './delivery-detail.js';
import { notify } from './feedback.js';
import { api, dashboard, query } from './http.js';
import { onContextChange } from './state.js';
import { when } from './time.js';

const STALE_MS = 4000;
/** Counts the starts and ends of changes of "answer 500": a state read across one does not undo it. */
let failingChanges = 0;
/** Deliveries of an event at an endpoint, by `endpoint|event`: { at, deliveries }. */
const resolved = new Map();

async function resolve(endpointId, eventId) {
  const cacheKey = endpointId + '|' + eventId;
  const cached = resolved.get(cacheKey);
  if (cached && Date.now() - cached.at < STALE_MS) return;
  try {
    const list = await api(
      'GET',
      '/webhook_endpoints/' + endpointId + '/deliveries' + query({ event_id: eventId, limit: 10 }),
    );
    resolved.set(cacheKey, { at: Date.now(), deliveries: list.data });
  } catch {
    resolved.delete(cacheKey);
  }
}

function deliveryCell(received) {
  if (!received.endpoint_id || !received.event_id) return h('td', { class: 'muted' }, '—');
  if (!listedEndpoints.has(received.endpoint_id)) return h('td', { class: 'muted' }, 'other mode');
  const entry = resolved.get(received.endpoint_id + '|' + received.event_id);
  if (!entry || entry.deliveries.length === 0) return h('td', { class: 'muted' }, '…');
  const [first] = entry.deliveries;
  const single = entry.deliveries.length === 1;
  const button = h(
    'button',
    {
      type: 'button',
      class: 'link mono',
      'data-action': 'delivery',
      'aria-label': single ? 'Open delivery ' + first.id : 'Show the deliveries of ' + received.event_id,
    },
    single ? first.id : entry.deliveries.length + ' deliveries (replays)',
  );
  button.addEventListener(
    'click',
    guarded(button, async () => {
      await openEndpoint(received.endpoint_id, { eventId: received.event_id });
      if (single) await openDelivery(currentEndpoint(), first.id);
    }),
  );
  return h('td', {}, button);
}

export async function loadReceiver() {
  const changesBefore = failingChanges;
  const receiver = await dashboard('GET', '/receiver');
  $('secrets-known').textContent = String(receiver.secrets_known);
  const failing = $('receiver-failing');
  if (changesBefore === failingChanges && !failing.disabled) failing.checked = receiver.failing;
  const pairs = new Set(
    receiver.received
      .filter(
        (received) => received.endpoint_id && received.event_id && listedEndpoints.has(received.endpoint_id),
      )
      .map((received) => received.endpoint_id + '|' + received.event_id),
  );
  await Promise.all([...pairs].map((pair) => resolve(...pair.split('|'))));
  const rows = receiver.received.map((received, index) => {
    const failed = received.answered >= 300 || received.verification === 'invalid';
    return h(
      'tr',
      { class: failed ? 'failure' : '', 'data-key': String(receiver.received.length - index) },
      h('td', {}, when(received.received_at)),
      h(
        'td',
        {},
        received.endpoint_id
          ? longValue(received.endpoint_id, null)
          : h('span', { class: 'muted' }, 'unknown'),
      ),
      deliveryCell(received),
      h('td', {}, received.event_type || '—'),
      h('td', {}, received.webhook_id ? longValue(received.webhook_id, 'webhook-id') : '—'),
      h(
        'td',
        {},
        statusBadge(received.verification),
        received.detail ? h('div', { class: 'reason wrap' }, received.detail) : null,
      ),
      h('td', {}, statusBadge(String(received.answered))),
    );
  });
  fill($('received-body'), rows, 7, 'Nothing received yet.');
}

$('receiver-failing').addEventListener('change', async (event) => {
  const box = event.target;
  failingChanges++;
  box.disabled = true;
  try {
    await dashboard('POST', '/receiver/failing', { failing: box.checked });
    notify(box.checked ? 'The receiver now answers 500' : 'The receiver now answers 200');
  } catch (error) {
    box.checked = !box.checked;
    notify(error.message, true);
  } finally {
    // Reads that started while the change was on its way may hold the state from before it.
    failingChanges++;
    box.disabled = false;
  }
});

$('receiver-clear').addEventListener(
  'click',
  guarded($('receiver-clear'), async () => {
    await dashboard('DELETE', '/receiver/received');
    await loadReceiver();
  }),
);

onContextChange(() => resolved.clear());

// One endpoint: its facts, edit form, secret rotation, disable/enable, deletion, and its deliveries.
import { block, guarded, onSubmit } from './busy.js';
import { closeDelivery, onReplay, openDelivery, refreshDelivery } from './delivery-detail.js';
import { $, h, longValue, modeBadge, openableRow, openButton, statusBadge } from './dom.js';
import { readEndpointForm } from './endpoint-form.js';
import { eventsPicker } from './events-picker.js';
import { FieldErrors, notify } from './feedback.js';
import { api, dashboard, query } from './http.js';
import { PagedList } from './paged-list.js';
import { state } from './state.js';
import { countdown, when } from './time.js';
import { watchUrl } from './url-note.js';

const config = JSON.parse($('page-config').textContent);
const view = $('endpoint-detail');
const editForm = $('endpoint-edit');
const errors = new FieldErrors({
  url: 'edit-url',
  enabled_events: 'edit-events',
  description: 'edit-description',
});
const picker = eventsPicker($('edit-events'));
const updateNote = watchUrl(editForm.elements.url, $('edit-url-note'), () => state.mode);
const buttons = {
  test: $('endpoint-test'),
  rotate: $('endpoint-rotate'),
  toggle: $('endpoint-toggle'),
  remove: $('endpoint-delete'),
};
const changeListeners = [];

/** The endpoint shown, as last read; the event its deliveries are filtered on. */
const shown = { endpoint: null, eventId: '' };

/** Calls `listener` after the page changed or deleted an endpoint. */
export function onEndpointChanged(listener) {
  changeListeners.push(listener);
}

function changed() {
  for (const listener of changeListeners) listener();
}

export const currentEndpoint = () => shown.endpoint;

function fact(label, ...value) {
  return [h('dt', {}, label), h('dd', {}, ...value)];
}

function render(endpoint) {
  shown.endpoint = endpoint;
  $('endpoint-detail-id').replaceChildren(longValue(endpoint.id, 'endpoint id ' + endpoint.id));
  $('endpoint-facts').replaceChildren(
    ...fact('Mode', modeBadge(endpoint.livemode)),
    ...fact(
      'Status',
      statusBadge(endpoint.status),
      endpoint.disabled_reason ? ' ' + endpoint.disabled_reason : '',
    ),
    ...fact('URL', h('span', { class: 'mono wrap' }, endpoint.url)),
    ...fact('Description', endpoint.description || h('span', { class: 'muted' }, 'none')),
    ...fact('Events', endpoint.enabled_events.join(', ')),
    ...fact('Created', when(endpoint.created_at)),
    ...fact('Updated', when(endpoint.updated_at)),
  );
  const disabled = endpoint.status === 'disabled';
  buttons.toggle.textContent = disabled ? 'Enable' : 'Disable';
  block(buttons.test, disabled ? 'Enable the endpoint to send a test event.' : '', $('endpoint-reason'));
}

function fillEditForm(endpoint) {
  errors.clear();
  editForm.elements.url.value = endpoint.url;
  editForm.elements.description.value = endpoint.description || '';
  picker.set(endpoint.enabled_events);
  updateNote();
}

function showSecret(endpoint, secret, given) {
  const banner = $('endpoint-secret');
  banner.replaceChildren(
    h(
      'strong',
      {},
      'Signing secret of ' + endpoint.id + ': copy it now, it is shown only on create and rotate.',
    ),
    h('div', {}, longValue(secret, 'signing secret of ' + endpoint.id)),
    h(
      'div',
      { class: 'muted' },
      given
        ? 'The demo receiver now verifies this endpoint’s deliveries with it.'
        : 'The demo receiver does not have it.',
    ),
  );
  banner.hidden = false;
}

const deliveries = new PagedList({
  tbody: $('deliveries-body'),
  more: $('deliveries-more'),
  columns: 7,
  pageSize: 10,
  fetchPage: (cursor, limit) =>
    api(
      'GET',
      '/webhook_endpoints/' +
        shown.endpoint.id +
        '/deliveries' +
        query({ limit, cursor, status: $('deliveries-status').value, event_id: shown.eventId }),
    ),
  row: (delivery) => {
    const open = () => openDelivery(shown.endpoint, delivery.id);
    return openableRow(
      delivery.id,
      open,
      h(
        'td',
        {},
        openButton(delivery.id, 'delivery ' + delivery.id, open),
        delivery.replay_of ? h('div', { class: 'muted' }, 'replay of ' + delivery.replay_of) : null,
      ),
      h('td', {}, delivery.event_type),
      h('td', {}, statusBadge(delivery.status)),
      h('td', {}, delivery.attempt),
      h(
        'td',
        {},
        delivery.response_status === null ? '—' : statusBadge(delivery.response_status),
        delivery.error ? h('div', { class: 'reason' }, delivery.error) : null,
      ),
      h('td', {}, delivery.next_attempt_at ? countdown(delivery.next_attempt_at) : '—'),
      h('td', {}, when(delivery.updated_at)),
    );
  },
  emptyText: (error) => (error ? error.message : 'No deliveries yet: send a test event or start a session.'),
});

function filterOnEvent(eventId) {
  shown.eventId = eventId || '';
  $('deliveries-event').textContent = shown.eventId;
  $('deliveries-event-filter').hidden = !shown.eventId;
}

/** Shows endpoint `id`; `secret` when it was just created, `eventId` to list that event's deliveries. */
export async function openEndpoint(id, { secret, given, eventId } = {}) {
  const key = state.key;
  const endpoint = await api('GET', '/webhook_endpoints/' + id);
  // The key or mode changed while it was read: it belongs to a view that is gone.
  if (state.key !== key) return;
  if (!shown.endpoint || shown.endpoint.id !== id) {
    $('endpoint-secret').hidden = true;
    $('endpoint-delete-confirm').hidden = true;
    closeDelivery();
  }
  render(endpoint);
  fillEditForm(endpoint);
  if (secret) showSecret(endpoint, secret, given);
  filterOnEvent(eventId);
  view.hidden = false;
  deliveries.clear('Loading…');
  await deliveries.refresh();
  view.focus();
  view.scrollIntoView({ block: 'start' });
}

/** Hides the endpoint view and everything in it (its secret above all). */
export function closeEndpoint() {
  shown.endpoint = null;
  view.hidden = true;
  $('endpoint-secret').replaceChildren();
  $('endpoint-secret').hidden = true;
  $('endpoint-delete-confirm').hidden = true;
  deliveries.clear('');
  closeDelivery();
}

/** Reads the endpoint and its deliveries again (the page's periodic refresh). */
export async function refreshEndpoint() {
  const endpoint = shown.endpoint;
  if (!endpoint) return;
  try {
    const fresh = await api('GET', '/webhook_endpoints/' + endpoint.id);
    // Drawn again only when it changed, so that a refresh leaves keyboard focus alone.
    const current = shown.endpoint;
    const changedSince =
      current &&
      current.id === fresh.id &&
      (current.updated_at !== fresh.updated_at || current.status !== fresh.status);
    if (changedSince) render(fresh);
  } catch (error) {
    if (error.status === 404 && shown.endpoint === endpoint) closeEndpoint();
    return;
  }
  await deliveries.refresh();
  await refreshDelivery(shown.endpoint);
}

/** After an action on the endpoint: its new state, and its deliveries. */
async function reload(endpoint) {
  render(endpoint);
  changed();
  await deliveries.refresh();
}

buttons.test.addEventListener(
  'click',
  guarded(buttons.test, async () => {
    const delivery = await api('POST', '/webhook_endpoints/' + shown.endpoint.id + '/test');
    notify('Test event queued: ' + delivery.id);
    await deliveries.refresh();
  }),
);

buttons.rotate.addEventListener(
  'click',
  guarded(buttons.rotate, async () => {
    const endpoint = await api('POST', '/webhook_endpoints/' + shown.endpoint.id + '/rotate_secret');
    // The demo receiver keeps one secret per endpoint, as a customer's config would: it takes the new
    // one when it had the old, or when the endpoint points at it.
    const receiver = await dashboard('GET', '/receiver');
    const give = receiver.endpoints_known.includes(endpoint.id) || endpoint.url === config.receiverUrl;
    if (give)
      await dashboard('POST', '/receiver/secrets', { secret: endpoint.secret, endpoint_id: endpoint.id });
    showSecret(endpoint, endpoint.secret, give);
    notify('Rotated the secret of ' + endpoint.id);
    await reload(endpoint);
  }),
);

buttons.toggle.addEventListener(
  'click',
  guarded(buttons.toggle, async () => {
    const disable = shown.endpoint.status !== 'disabled';
    const endpoint = await api('PATCH', '/webhook_endpoints/' + shown.endpoint.id, { disabled: disable });
    notify((disable ? 'Disabled ' : 'Enabled ') + endpoint.id);
    await reload(endpoint);
    await refreshDelivery(endpoint);
  }),
);

buttons.remove.addEventListener('click', () => {
  $('endpoint-delete-question').textContent =
    'Delete ' + shown.endpoint.id + '? Its pending deliveries are dropped, and no webhook goes to it again.';
  $('endpoint-delete-confirm').hidden = false;
  $('endpoint-delete-no').focus();
});
$('endpoint-delete-no').addEventListener('click', () => {
  $('endpoint-delete-confirm').hidden = true;
  buttons.remove.focus();
});
$('endpoint-delete-yes').addEventListener(
  'click',
  guarded($('endpoint-delete-yes'), async () => {
    const id = shown.endpoint.id;
    await api('DELETE', '/webhook_endpoints/' + id);
    notify('Deleted ' + id);
    closeEndpoint();
    changed();
  }),
);

onSubmit(
  editForm,
  async () => {
    errors.clear();
    const fields = readEndpointForm(editForm, picker, errors);
    if (!fields) return;
    const { url, events, description } = fields;
    const endpoint = await api('PATCH', '/webhook_endpoints/' + shown.endpoint.id, {
      url,
      enabled_events: events,
      description: description || null,
    });
    notify('Saved ' + endpoint.id);
    fillEditForm(endpoint);
    await reload(endpoint);
  },
  (error) => errors.report(error),
);

onReplay(() => deliveries.refresh());

$('deliveries-status').addEventListener('change', () => {
  deliveries.clear('Loading…');
  deliveries.refresh();
});
$('deliveries-event-clear').addEventListener('click', () => {
  filterOnEvent('');
  deliveries.clear('Loading…');
  deliveries.refresh();
});

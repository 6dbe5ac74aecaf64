// Webhook endpoints of the mode shown: the list, and the form that adds one.
import { onSubmit } from './busy.js';
import { $, h, longValue, modeBadge, openableRow, openButton, statusBadge } from './dom.js';
import { closeEndpoint, openEndpoint } from './endpoint-detail.js';
import { readEndpointForm } from './endpoint-form.js';
import { eventsPicker } from './events-picker.js';
import { FieldErrors, notify } from './feedback.js';
import { api, dashboard, query } from './http.js';
import { PagedList } from './paged-list.js';
import { onContextChange, state } from './state.js';
import { when } from './time.js';
import { watchUrl } from './url-note.js';

const config = JSON.parse($('page-config').textContent);
const form = $('endpoint-form');
const errors = new FieldErrors({
  url: 'endpoint-url',
  enabled_events: 'endpoint-events',
  description: 'endpoint-description',
});
const picker = eventsPicker($('endpoint-events'));
const updateNote = watchUrl(form.elements.url, $('endpoint-url-note'), () => state.mode);

/** The endpoints listed in this mode, by id. */
export const listedEndpoints = new Map();

function row(endpoint) {
  const open = () => openEndpoint(endpoint.id);
  return openableRow(
    endpoint.id,
    open,
    h('td', {}, openButton(endpoint.id, 'endpoint ' + endpoint.id, open), ' ', modeBadge(endpoint.livemode)),
    h(
      'td',
      {},
      longValue(endpoint.url, 'URL of ' + endpoint.id),
      endpoint.description
        ? h('div', { class: 'muted' }, longValue(endpoint.description, null, false))
        : null,
    ),
    h('td', {}, h('small', {}, endpoint.enabled_events.join(', '))),
    h(
      'td',
      {},
      statusBadge(endpoint.status),
      endpoint.disabled_reason ? h('div', { class: 'reason' }, endpoint.disabled_reason) : null,
    ),
    h('td', {}, when(endpoint.created_at)),
  );
}

export const endpointsList = new PagedList({
  tbody: $('endpoints-body'),
  more: $('endpoints-more'),
  columns: 5,
  pageSize: 10,
  fetchPage: async (cursor, limit) => {
    const page = await api('GET', '/webhook_endpoints' + query({ limit, cursor }));
    if (!cursor) listedEndpoints.clear();
    for (const endpoint of page.data) listedEndpoints.set(endpoint.id, endpoint);
    return page;
  },
  row,
  emptyText: (error) =>
    error
      ? error.message
      : state.key
        ? 'No endpoints in ' + state.mode + ' mode yet.'
        : 'Create or paste a key first.',
});

onSubmit(
  form,
  async () => {
    errors.clear();
    const fields = readEndpointForm(form, picker, errors);
    if (!fields) return;
    const { url, events, description } = fields;
    const endpoint = await api('POST', '/webhook_endpoints', {
      url,
      enabled_events: events,
      ...(description ? { description } : {}),
    });
    let given = false;
    if (form.elements['give-secret'].checked) {
      await dashboard('POST', '/receiver/secrets', { secret: endpoint.secret, endpoint_id: endpoint.id });
      given = true;
    }
    notify('Added ' + endpoint.id);
    await endpointsList.refresh();
    await openEndpoint(endpoint.id, { secret: endpoint.secret, given });
  },
  (error) => errors.report(error),
);

form.addEventListener('input', (event) => {
  if (event.target.name === 'url') errors.set('endpoint-url', '');
});
form.addEventListener('change', (event) => {
  if (event.target.type === 'checkbox') errors.set('endpoint-events', '');
});

onContextChange(() => {
  errors.clear();
  updateNote();
  closeEndpoint();
  listedEndpoints.clear();
  endpointsList.clear(state.key ? 'Loading…' : 'Create or paste a key first.');
  if (state.key) endpointsList.refresh();
});

form.elements.url.value = config.receiverUrl;

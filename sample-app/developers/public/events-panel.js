// The event feed of the mode shown: filtered by type, paged by cursor; an event links to its deliveries.
import { guarded } from './busy.js';
import { $, h, longValue, openableRow, openButton } from './dom.js';
import { openEndpoint } from './endpoint-detail.js';
import { api, query } from './http.js';
import { PagedList } from './paged-list.js';
import { onContextChange, state } from './state.js';
import { when } from './time.js';

const detail = $('event-detail');
let shownEventId = null;

/** Where the event was delivered: each endpoint of this mode with deliveries of it. */
async function deliveriesOf(event) {
  const endpoints = await api('GET', '/webhook_endpoints?limit=100');
  const found = await Promise.all(
    endpoints.data.map(async (endpoint) => {
      const list = await api(
        'GET',
        '/webhook_endpoints/' + endpoint.id + '/deliveries' + query({ event_id: event.id, limit: 100 }),
      );
      return { endpoint, deliveries: list.data };
    }),
  );
  return found.filter((entry) => entry.deliveries.length > 0);
}

async function showEvent(event) {
  shownEventId = event.id;
  const where = h('div', {}, h('p', { class: 'muted' }, 'Looking for its deliveries…'));
  detail.replaceChildren(
    h('h3', {}, 'Event ', longValue(event.id, 'event id ' + event.id)),
    where,
    h('pre', {}, JSON.stringify(event, null, 2)),
  );
  detail.hidden = false;
  detail.focus();
  let found;
  try {
    found = await deliveriesOf(event);
  } catch (error) {
    where.replaceChildren(h('p', { class: 'reason' }, error.message));
    return;
  }
  if (shownEventId !== event.id) return;
  where.replaceChildren(
    found.length === 0
      ? h('p', { class: 'muted' }, 'Not delivered to any endpoint of this mode.')
      : h(
          'ul',
          {},
          ...found.map(({ endpoint, deliveries }) => {
            const open = h(
              'button',
              {
                type: 'button',
                class: 'small',
                'aria-label': 'Show the deliveries of ' + event.id + ' at ' + endpoint.id,
              },
              deliveries.length + (deliveries.length === 1 ? ' delivery' : ' deliveries'),
            );
            open.addEventListener(
              'click',
              guarded(open, () => openEndpoint(endpoint.id, { eventId: event.id })),
            );
            return h('li', {}, 'To ', h('code', {}, endpoint.id), ': ', open);
          }),
        ),
  );
}

export const eventsList = new PagedList({
  tbody: $('events-body'),
  more: $('events-more'),
  columns: 4,
  pageSize: 12,
  fetchPage: (cursor, limit) =>
    api('GET', '/events' + query({ limit, cursor, type: $('events-type').value })),
  row: (event) => {
    const open = () => showEvent(event);
    return openableRow(
      event.id,
      open,
      h('td', {}, openButton(event.id, 'event ' + event.id, open)),
      h('td', {}, event.type),
      h('td', {}, longValue(event.data.object.object + ' ' + event.data.object.id, null)),
      h('td', {}, when(event.created_at)),
    );
  },
  emptyText: (error) =>
    error
      ? error.message
      : state.key
        ? 'No events in ' + state.mode + ' mode yet: start a session.'
        : 'Create or paste a key first.',
});

function reset() {
  shownEventId = null;
  detail.hidden = true;
  detail.replaceChildren();
  eventsList.clear(state.key ? 'Loading…' : 'Create or paste a key first.');
  if (state.key) eventsList.refresh();
}

onContextChange(reset);
$('events-type').addEventListener('change', reset);

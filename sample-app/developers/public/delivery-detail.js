// One delivery: its attempts as a timeline, each with the request as sent and the response, the next
// attempt as a countdown, and Replay.
import { block, guarded } from './busy.js';
import { $, copyButton, h, longValue, statusBadge } from './dom.js';
import { notify } from './feedback.js';
import { api } from './http.js';
import { countdown, when } from './time.js';

const view = $('delivery-detail');
/** The delivery shown and its endpoint as last read. */
const shown = { endpoint: null, deliveryId: null, seen: '' };
/** Events by id: the body every attempt of their deliveries sent. */
const events = new Map();
const replayListeners = [];

/** Calls `listener` after a replay was queued. */
export function onReplay(listener) {
  replayListeners.push(listener);
}

async function eventBody(eventId) {
  if (!events.has(eventId)) {
    try {
      events.set(eventId, JSON.stringify(await api('GET', '/events/' + eventId)));
    } catch (error) {
      if (error.status !== 404) throw error;
      events.set(eventId, null);
    }
  }
  return events.get(eventId);
}

function facts(...pairs) {
  return h(
    'dl',
    { class: 'facts' },
    ...pairs.map(([label, value]) => [h('dt', {}, label), h('dd', {}, value)]),
  );
}

/**
 * The request of one attempt. The module signs each attempt when it sends it and keeps neither the
 * timestamp nor the signature: webhook-id is exact (the event's id), the timestamp is the attempt's
 * start (its record time less its duration, to the second), and the signature is described, not shown.
 */
function sentRequest(delivery, attempt, endpoint, body) {
  const startedMs = new Date(attempt.created_at).getTime() - attempt.duration_ms;
  const editedSince = new Date(endpoint.updated_at).getTime() > new Date(attempt.created_at).getTime();
  return h(
    'div',
    {},
    facts(
      ['Request', h('span', { class: 'mono wrap' }, 'POST ' + endpoint.url)],
      ['content-type', h('code', {}, 'application/json')],
      [
        'webhook-id',
        h('span', {}, h('code', {}, delivery.event_id), ' ', copyButton(delivery.event_id, 'webhook-id')),
      ],
      [
        'webhook-timestamp',
        h(
          'span',
          {},
          h('code', {}, '≈ ' + Math.floor(startedMs / 1000)),
          h('span', { class: 'muted' }, ' (when the attempt started; not stored exactly)'),
        ),
      ],
      [
        'webhook-signature',
        h(
          'span',
          { class: 'muted' },
          'v1,<base64 HMAC-SHA256 of "webhook-id.webhook-timestamp.body" with the endpoint’s secret at that time> ' +
            '(not stored)',
        ),
      ],
    ),
    editedSince
      ? h(
          'p',
          { class: 'reason' },
          'The URL is the endpoint’s current one: the endpoint was edited after this attempt.',
        )
      : null,
    body === null
      ? h('p', { class: 'muted' }, 'Body: the event is no longer stored (past its retention).')
      : h(
          'details',
          {},
          h(
            'summary',
            {},
            'Body (' + new TextEncoder().encode(body).length + ' bytes of JSON, the event as sent)',
          ),
          h('pre', {}, body),
        ),
  );
}

function attemptItem(delivery, attempt, endpoint, body) {
  const failed = attempt.error !== null;
  return h(
    'li',
    {},
    h(
      'div',
      { class: 'actions' },
      h('strong', {}, 'Attempt ' + attempt.attempt),
      statusBadge(failed ? 'failed' : 'succeeded'),
      when(attempt.created_at),
    ),
    sentRequest(delivery, attempt, endpoint, body),
    facts(
      ['Response', attempt.response_status === null ? 'none' : statusBadge(attempt.response_status)],
      ['Duration', attempt.duration_ms + ' ms'],
      ['Error', attempt.error || '—'],
    ),
    attempt.response_body
      ? h('details', {}, h('summary', {}, 'Response body (as stored)'), h('pre', {}, attempt.response_body))
      : null,
  );
}

/** What a render shows that can change: a refresh that would show the same leaves the view alone. */
const seenState = (delivery, endpoint) =>
  [delivery.status, delivery.attempt, delivery.next_attempt_at, endpoint.status].join('|');

function render(delivery, endpoint, body) {
  shown.seen = seenState(delivery, endpoint);
  const replay = h('button', { type: 'button', id: 'delivery-replay' }, 'Replay');
  const reason = h('span', { class: 'reason' });
  block(
    replay,
    endpoint.status === 'disabled' ? 'Enable the endpoint to replay its deliveries.' : '',
    reason,
  );
  replay.addEventListener(
    'click',
    guarded(replay, async () => {
      const queued = await api(
        'POST',
        '/webhook_endpoints/' + endpoint.id + '/deliveries/' + delivery.id + '/replay',
      );
      notify('Replay queued: ' + queued.id);
      for (const listener of replayListeners) listener();
      await openDelivery(endpoint, queued.id);
    }),
  );
  const attempts = delivery.attempts || [];
  view.replaceChildren(
    h('h3', {}, 'Delivery ', longValue(delivery.id, 'delivery id ' + delivery.id)),
    facts(
      ['Status', statusBadge(delivery.status)],
      [
        'Event',
        h(
          'span',
          {},
          longValue(delivery.event_id, 'event id ' + delivery.event_id),
          ' ',
          delivery.event_type,
        ),
      ],
      ['Replay of', delivery.replay_of ? h('code', {}, delivery.replay_of) : '—'],
      ['Created', when(delivery.created_at)],
      [
        'Next attempt',
        delivery.next_attempt_at
          ? h('span', { id: 'delivery-next' }, countdown(delivery.next_attempt_at))
          : delivery.status === 'pending'
            ? 'being sent'
            : 'none: it has ended',
      ],
    ),
    h('div', { class: 'actions' }, replay, reason),
    h('h3', {}, 'Attempts (' + attempts.length + ')'),
    attempts.length
      ? h(
          'ol',
          { class: 'timeline' },
          ...attempts.map((attempt) => attemptItem(delivery, attempt, endpoint, body)),
        )
      : h('p', { class: 'muted' }, 'No attempt yet.'),
  );
  view.hidden = false;
}

/** Shows delivery `deliveryId` of `endpoint`. */
export async function openDelivery(endpoint, deliveryId) {
  shown.endpoint = endpoint;
  shown.deliveryId = deliveryId;
  const delivery = await api('GET', '/webhook_endpoints/' + endpoint.id + '/deliveries/' + deliveryId);
  const body = await eventBody(delivery.event_id);
  if (shown.deliveryId !== deliveryId) return;
  render(delivery, endpoint, body);
  view.focus();
}

/** Reads the delivery shown again, with its endpoint as it is now when given. */
export async function refreshDelivery(endpoint) {
  if (!shown.deliveryId) return;
  if (endpoint) shown.endpoint = endpoint;
  const { deliveryId } = shown;
  try {
    const delivery = await api(
      'GET',
      '/webhook_endpoints/' + shown.endpoint.id + '/deliveries/' + deliveryId,
    );
    const body = await eventBody(delivery.event_id);
    if (shown.deliveryId !== deliveryId || seenState(delivery, shown.endpoint) === shown.seen) return;
    // A refresh leaves keyboard focus where it was.
    const focusedReplay = document.activeElement && document.activeElement.id === 'delivery-replay';
    render(delivery, shown.endpoint, body);
    if (focusedReplay) $('delivery-replay').focus();
  } catch {
    // The next refresh tries again; the endpoint view closes this one if the endpoint is gone.
  }
}

export function closeDelivery() {
  shown.deliveryId = null;
  view.hidden = true;
  view.replaceChildren();
}

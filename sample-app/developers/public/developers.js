/* global document, fetch, sessionStorage, navigator, setInterval, setTimeout, clearTimeout, confirm */
// The Developers page script: plain browser JavaScript, served as is (no build step).
// Dashboard actions go to the host's /developers/api routes; everything else is the public /v1 API,
// called with the key in the "Key used by this page" field, exactly as a customer's code would.
(function () {
  'use strict';

  const $ = (id) => document.getElementById(id);
  const config = JSON.parse($('page-config').textContent);
  const state = {
    key: sessionStorage.getItem('interview-demo.key') || '',
    endpoint: null,
    delivery: null,
  };

  // ---------------------------------------------------------------- helpers

  function h(tag, attrs, ...children) {
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

  function when(iso) {
    if (!iso) return h('span', { class: 'muted' }, 'never');
    const date = new Date(iso);
    return h('span', { title: iso }, date.toLocaleString());
  }

  function modeBadge(livemode) {
    return h('span', { class: 'badge ' + (livemode ? 'live' : 'test') }, livemode ? 'live' : 'test');
  }

  function statusBadge(status) {
    const kind = { succeeded: 'ok', enabled: 'ok', completed: 'ok', verified: 'ok', pending: 'warn' };
    const bad = ['failed', 'disabled', 'invalid', 'canceled'];
    return h('span', { class: 'badge ' + (kind[status] || (bad.includes(status) ? 'bad' : '')) }, status);
  }

  function fill(tbody, rows, columns, emptyText) {
    tbody.replaceChildren(
      ...(rows.length ? rows : [h('tr', {}, h('td', { class: 'empty', colspan: columns }, emptyText))]),
    );
  }

  let toastTimer = null;
  function notify(message, isError) {
    const toast = $('toast');
    toast.textContent = message;
    toast.className = isError ? 'error' : '';
    toast.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => (toast.hidden = true), isError ? 8000 : 4000);
  }

  async function request(method, url, body, withKey) {
    const headers = {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (withKey) {
      if (!state.key) throw new Error('Create an API key first, or paste one into "Key used by this page".');
      headers.authorization = 'Bearer ' + state.key;
    }
    const response = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let json = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = { raw: text };
    }
    if (!response.ok) {
      const error = json && json.error;
      throw new Error(error ? error.code + ': ' + error.message : 'HTTP ' + response.status);
    }
    return json;
  }

  const dashboard = (method, path, body) => request(method, '/developers/api' + path, body, false);
  const api = (method, path, body) => request(method, '/v1' + path, body, true);

  /** Runs a button's action, reporting failures instead of throwing them away. */
  function action(run) {
    return async (event) => {
      if (event) event.preventDefault();
      try {
        await run(event);
      } catch (error) {
        notify(error.message, true);
      }
    };
  }

  function keyMode(key) {
    const match = /^[a-z][a-z0-9]*_(test|live)_/.exec(key || '');
    return match ? match[1] : null;
  }

  // ---------------------------------------------------------------- API keys (dashboard)

  async function loadKeys() {
    const { data } = await dashboard('GET', '/keys');
    const rows = data.map((key) =>
      h(
        'tr',
        {},
        h('td', {}, key.name, h('div', { class: 'muted' }, h('code', {}, key.id))),
        h('td', {}, modeBadge(key.livemode)),
        h('td', {}, h('code', {}, config.keyPrefix + (key.livemode ? '_live_' : '_test_') + '…' + key.last4)),
        h('td', {}, h('small', {}, key.scopes.join(', '))),
        h('td', {}, when(key.created_at)),
        h('td', {}, when(key.last_used_at)),
        h(
          'td',
          {},
          key.revoked_at
            ? statusBadge('revoked')
            : h(
                'button',
                {
                  class: 'small danger',
                  onclick: action(async () => {
                    if (!confirm('Revoke ' + key.name + ' (…' + key.last4 + ')? Calls with it fail at once.'))
                      return;
                    await dashboard('DELETE', '/keys/' + key.id);
                    notify('Revoked ' + key.id + ': calls with it now answer 401');
                    const inUse =
                      state.key.endsWith(key.last4) &&
                      keyMode(state.key) === (key.livemode ? 'live' : 'test');
                    if (inUse) setActiveKey('');
                    await loadKeys();
                  }),
                },
                'Revoke',
              ),
        ),
      ),
    );
    fill($('keys-body'), rows, 7, 'No keys yet.');
  }

  $('key-form').addEventListener(
    'submit',
    action(async () => {
      const form = $('key-form');
      const scopes = [...form.querySelectorAll('input[name=scopes]:checked')].map((input) => input.value);
      const created = await dashboard('POST', '/keys', {
        name: form.elements.name.value,
        mode: form.querySelector('input[name=mode]:checked').value,
        scopes,
      });
      $('new-key-value').textContent = created.key;
      $('new-key').hidden = false;
      setActiveKey(created.key);
      notify('Created ' + created.apiKey.id);
      await loadKeys();
    }),
  );

  $('copy-key').addEventListener(
    'click',
    action(async () => {
      await navigator.clipboard.writeText($('new-key-value').textContent);
      notify('Copied');
    }),
  );

  // ---------------------------------------------------------------- the key used for /v1

  function setActiveKey(key) {
    state.key = key.trim();
    sessionStorage.setItem('interview-demo.key', state.key);
    $('active-key').value = state.key;
    const mode = keyMode(state.key);
    const badge = $('active-mode');
    badge.textContent = mode ? mode + ' key' : state.key ? 'not a key' : 'no key';
    badge.className = 'badge ' + (mode || 'bad');
    if (mode) $('session-form').elements.mode.value = mode;
    state.endpoint = null;
    $('deliveries').hidden = true;
    refreshApiPanels();
  }

  $('active-key').addEventListener('change', (event) => setActiveKey(event.target.value));

  for (const button of document.querySelectorAll('button[data-get]')) {
    button.addEventListener(
      'click',
      action(async () => {
        const output = $('api-output');
        output.hidden = false;
        const path = button.dataset.get.replace(/^\/v1/, '');
        try {
          output.textContent = 'GET /v1' + path + '\n\n' + JSON.stringify(await api('GET', path), null, 2);
        } catch (error) {
          output.textContent = 'GET /v1' + path + '\n\n' + error.message;
        }
      }),
    );
  }

  // ---------------------------------------------------------------- webhook endpoints (/v1)

  async function loadEndpoints() {
    if (!state.key) return fill($('endpoints-body'), [], 6, 'Create or paste a key first.');
    let list;
    try {
      list = await api('GET', '/webhook_endpoints?limit=20');
    } catch (error) {
      return fill($('endpoints-body'), [], 6, error.message);
    }
    const rows = list.data.map((endpoint) =>
      h(
        'tr',
        {},
        h('td', {}, h('code', {}, endpoint.id), ' ', modeBadge(endpoint.livemode)),
        h('td', {}, h('code', {}, endpoint.url)),
        h('td', {}, h('small', {}, endpoint.enabled_events.join(', '))),
        h('td', { title: endpoint.disabled_reason || '' }, statusBadge(endpoint.status)),
        h('td', {}, when(endpoint.created_at)),
        h(
          'td',
          { class: 'row' },
          h(
            'button',
            {
              class: 'small',
              onclick: action(async () => {
                const delivery = await api('POST', '/webhook_endpoints/' + endpoint.id + '/test');
                notify('Test event queued: ' + delivery.id);
                await openDeliveries(endpoint.id);
              }),
            },
            'Send test event',
          ),
          h('button', { class: 'small', onclick: action(() => openDeliveries(endpoint.id)) }, 'Deliveries'),
          h(
            'button',
            {
              class: 'small danger',
              onclick: action(async () => {
                if (!confirm('Delete ' + endpoint.id + '?')) return;
                await api('DELETE', '/webhook_endpoints/' + endpoint.id);
                if (state.endpoint === endpoint.id) {
                  state.endpoint = null;
                  $('deliveries').hidden = true;
                }
                await loadEndpoints();
              }),
            },
            'Delete',
          ),
        ),
      ),
    );
    fill($('endpoints-body'), rows, 6, 'No endpoints in this mode yet.');
  }

  $('endpoint-form').addEventListener(
    'submit',
    action(async () => {
      const form = $('endpoint-form');
      const all = form.querySelector('input[name=all-events]').checked;
      const events = [...form.querySelectorAll('input[name=events]:checked')].map((input) => input.value);
      const endpoint = await api('POST', '/webhook_endpoints', {
        url: form.elements.url.value,
        enabled_events: all ? ['*'] : events,
        description: 'Added from the Developers page',
      });
      $('new-secret-endpoint').textContent = endpoint.id;
      $('new-secret-value').textContent = endpoint.secret;
      $('new-secret').hidden = false;
      if (form.querySelector('input[name=give-secret]').checked) {
        await dashboard('POST', '/receiver/secrets', { secret: endpoint.secret });
      }
      notify('Added ' + endpoint.id);
      await loadEndpoints();
      await openDeliveries(endpoint.id);
      await loadReceiver();
    }),
  );

  async function openDeliveries(endpointId) {
    state.endpoint = endpointId;
    state.delivery = null;
    $('deliveries-endpoint').textContent = endpointId;
    $('delivery-detail').hidden = true;
    $('deliveries').hidden = false;
    await loadDeliveries();
  }

  async function loadDeliveries() {
    if (!state.endpoint) return;
    const base = '/webhook_endpoints/' + state.endpoint + '/deliveries';
    let list;
    try {
      list = await api('GET', base + '?limit=15');
    } catch (error) {
      return fill($('deliveries-body'), [], 9, error.message);
    }
    const rows = list.data.map((delivery) =>
      h(
        'tr',
        { class: 'clickable', onclick: action(() => showDelivery(delivery.id)) },
        h(
          'td',
          {},
          h('code', {}, delivery.id),
          delivery.replay_of ? h('div', { class: 'muted' }, 'replay') : null,
        ),
        h('td', {}, delivery.event_type),
        h('td', {}, statusBadge(delivery.status)),
        h('td', {}, delivery.attempt),
        h('td', {}, delivery.response_status === null ? '—' : delivery.response_status),
        h('td', {}, delivery.error || '—'),
        h('td', {}, delivery.next_attempt_at ? when(delivery.next_attempt_at) : '—'),
        h('td', {}, when(delivery.updated_at)),
        h(
          'td',
          {},
          h(
            'button',
            {
              class: 'small',
              onclick: action(async (event) => {
                event.stopPropagation();
                const replay = await api('POST', base + '/' + delivery.id + '/replay');
                notify('Replay queued: ' + replay.id);
                await loadDeliveries();
              }),
            },
            'Replay',
          ),
        ),
      ),
    );
    fill($('deliveries-body'), rows, 9, 'No deliveries yet: send a test event or start a session.');
    if (state.delivery) await showDelivery(state.delivery);
  }

  async function showDelivery(deliveryId) {
    state.delivery = deliveryId;
    const delivery = await api('GET', '/webhook_endpoints/' + state.endpoint + '/deliveries/' + deliveryId);
    const detail = $('delivery-detail');
    detail.hidden = false;
    detail.textContent = JSON.stringify(delivery, null, 2);
  }

  // ---------------------------------------------------------------- demo sessions (dashboard)

  async function loadSessions() {
    const { data } = await dashboard('GET', '/sessions');
    const rows = data.map((session) =>
      h(
        'tr',
        {},
        h('td', {}, h('code', {}, session.id), h('div', {}, when(session.created_at))),
        h('td', {}, session.candidate_name),
        h('td', {}, modeBadge(session.livemode)),
        h('td', {}, statusBadge(session.status)),
        h(
          'td',
          {},
          session.status === 'in_progress'
            ? h(
                'button',
                {
                  class: 'small',
                  onclick: action(async () => {
                    const change = await dashboard('POST', '/sessions/' + session.id + '/complete');
                    announce('Completed ' + session.id, change);
                  }),
                },
                'Complete',
              )
            : null,
        ),
      ),
    );
    fill($('sessions-body'), rows, 5, 'No sessions yet.');
  }

  function announce(what, change) {
    const types = change.events.map((event) => event.type).join(', ');
    notify(what + (types ? '; published ' + types : '; nothing to publish'));
    loadSessions();
    // The deliveries go out after the commit, a moment later.
    setTimeout(refreshApiPanels, 400);
  }

  $('session-form').addEventListener(
    'submit',
    action(async () => {
      const form = $('session-form');
      const change = await dashboard('POST', '/sessions', {
        mode: form.elements.mode.value,
        candidate_name: form.elements.candidate_name.value,
      });
      announce('Started ' + change.session.id, change);
    }),
  );

  $('rollback-demo').addEventListener(
    'click',
    action(async () => {
      const result = await dashboard('POST', '/sessions/rollback-demo', {
        mode: $('session-form').elements.mode.value,
      });
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

  // ---------------------------------------------------------------- events (/v1)

  async function loadEvents() {
    if (!state.key) return fill($('events-body'), [], 4, 'Create or paste a key first.');
    let list;
    try {
      list = await api('GET', '/events?limit=12');
    } catch (error) {
      return fill($('events-body'), [], 4, error.message);
    }
    const rows = list.data.map((event) =>
      h(
        'tr',
        {
          class: 'clickable',
          onclick: () => {
            const detail = $('event-detail');
            detail.hidden = false;
            detail.textContent = JSON.stringify(event, null, 2);
          },
        },
        h('td', {}, h('code', {}, event.id)),
        h('td', {}, event.type),
        h('td', {}, h('code', {}, event.data.object.object + ' ' + event.data.object.id)),
        h('td', {}, when(event.created_at)),
      ),
    );
    fill($('events-body'), rows, 4, 'No events in this mode yet: start a session.');
  }

  // ---------------------------------------------------------------- demo receiver (dashboard)

  async function loadReceiver() {
    const receiver = await dashboard('GET', '/receiver');
    $('secrets-known').textContent = String(receiver.secrets_known);
    $('receiver-failing').checked = receiver.failing;
    const rows = receiver.received.map((received) =>
      h(
        'tr',
        {},
        h('td', {}, when(received.received_at)),
        h('td', {}, received.event_type || '—'),
        h('td', {}, h('code', {}, received.webhook_id || '—')),
        h('td', {}, h('code', {}, received.data_id || '—')),
        h('td', { title: received.detail || '' }, statusBadge(received.verification)),
        h('td', {}, statusBadge(String(received.answered))),
      ),
    );
    fill($('received-body'), rows, 6, 'Nothing received yet.');
  }

  $('receiver-failing').addEventListener(
    'change',
    action(async (event) => {
      await dashboard('POST', '/receiver/failing', { failing: event.target.checked });
      notify(event.target.checked ? 'The receiver now answers 500' : 'The receiver now answers 200');
    }),
  );

  $('receiver-clear').addEventListener(
    'click',
    action(async () => {
      await dashboard('DELETE', '/receiver/received');
      await loadReceiver();
    }),
  );

  // ---------------------------------------------------------------- start-up and refresh

  function refreshApiPanels() {
    return Promise.all([loadEndpoints(), loadDeliveries(), loadEvents()]).catch(() => undefined);
  }

  function refreshAll() {
    return Promise.all([loadKeys(), loadSessions(), loadReceiver(), refreshApiPanels()]).catch((error) =>
      notify(error.message, true),
    );
  }

  $('endpoint-form').elements.url.value = config.receiverUrl;
  setActiveKey(state.key);
  refreshAll();
  setInterval(() => {
    if (document.visibilityState === 'visible') refreshAll();
  }, 3000);
})();

export interface DevelopersPageModel {
  accountId: string;
  keyPrefix: string;
  userScopes: readonly string[];
  allScopes: readonly string[];
  eventTypes: readonly string[];
  receiverUrl: string;
  /** Whether the module accepts http:// and private-address endpoint URLs (the demo does). */
  insecureUrlsAllowed: boolean;
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** JSON inside a <script> element: `<` is escaped so that no value can close the element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

/** Scopes a new key gets unless the user unticks them: enough for everything on this page. */
const DEFAULT_KEY_SCOPES = new Set(['developers:manage', 'results:read']);

function checkboxes(name: string, values: readonly string[], checked: (value: string) => boolean): string {
  return values
    .map(
      (value) =>
        `<label><input type="checkbox" name="${escapeHtml(name)}" value="${escapeHtml(value)}"` +
        `${checked(value) ? ' checked' : ''}> ${escapeHtml(value)}</label>`,
    )
    .join('\n        ');
}

function options(values: readonly string[]): string {
  return values.map((value) => `<option value="${escapeHtml(value)}">${escapeHtml(value)}</option>`).join('');
}

/**
 * The Developers page: the dashboard (keys, demo sessions, receiver) and the /v1 API used with a key.
 * The markup is static; public/*.js fill it (one module per panel) and public/developers.css styles it.
 */
export function renderDevelopersPage(model: DevelopersPageModel): string {
  const config = scriptJson({
    accountId: model.accountId,
    keyPrefix: model.keyPrefix,
    receiverUrl: model.receiverUrl,
    eventTypes: model.eventTypes,
    insecureUrlsAllowed: model.insecureUrlsAllowed,
  });
  const account = escapeHtml(model.accountId);
  const receiverUrl = escapeHtml(model.receiverUrl);
  const eventTypes = checkboxes('events', model.eventTypes, () => true);
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Developers · Interview</title>
  <link rel="icon" href="/developers/assets/favicon.svg" type="image/svg+xml">
  <link rel="stylesheet" href="/developers/assets/developers.css">
</head>
<body>
<header class="top">
  <h1>Interview · Developers</h1>
  <span class="who">Account <code>${account}</code> · signed in as the demo owner
    (${model.userScopes.length} scopes) · local demo, no login</span>
  <fieldset class="mode-switch" id="mode-switch"><legend class="sr-only">Mode shown on this page</legend>
    <label><input type="radio" name="page-mode" value="test" checked><span>Test mode</span></label>
    <label><input type="radio" name="page-mode" value="live"><span>Live mode</span></label>
  </fieldset>
</header>
<p id="mode-banner" class="mode-banner test" role="status">Test mode: test keys, endpoints, sessions and events.</p>
<div id="live-errors" class="sr-only" role="alert" aria-live="assertive"></div>
<div id="notices" role="status" aria-live="polite"></div>
<main>
  <section class="panel" id="keys" aria-labelledby="keys-title">
    <h2 id="keys-title">API keys <small>dashboard route /developers/api/keys → ApiKeysService</small></h2>
    <p class="hint">The full key is shown once, when it is created. Only its last four characters are kept
      readable.</p>
    <form id="key-form" class="stack" autocomplete="off" novalidate>
      <div class="field grow">
        <label for="key-name">Name</label>
        <input type="text" id="key-name" name="name" value="Local demo key" maxlength="255"
          aria-describedby="key-name-error">
        <p class="field-error" id="key-name-error"></p>
      </div>
      <fieldset class="checks" id="key-mode"><legend>Mode</legend>
        <label><input type="radio" name="mode" value="test" checked> test</label>
        <label><input type="radio" name="mode" value="live"> live</label>
      </fieldset>
      <div class="field">
        <fieldset class="checks" id="key-scopes" aria-describedby="key-scopes-error"><legend>Scopes</legend>
          ${checkboxes('scopes', model.allScopes, (scope) => DEFAULT_KEY_SCOPES.has(scope))}
        </fieldset>
        <p class="field-error" id="key-scopes-error"></p>
      </div>
      <button class="primary" type="submit">Create key</button>
    </form>
    <div id="new-key" class="once" hidden>
      <strong>Copy this key now: it will not be shown again.</strong>
      <div id="new-key-value"></div>
      <div class="muted" id="new-key-use"></div>
    </div>
    <div class="table-wrap">
      <table>
        <caption class="sr-only">API keys of this account</caption>
        <thead><tr><th scope="col">Name</th><th scope="col">Mode</th><th scope="col">Key</th>
          <th scope="col">Scopes</th><th scope="col">Created</th><th scope="col">Last used</th>
          <th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
        <tbody id="keys-body"><tr><td class="empty" colspan="7">Loading…</td></tr></tbody>
      </table>
    </div>
  </section>

  <section class="panel" id="use-key" aria-labelledby="use-key-title">
    <h2 id="use-key-title">Key used by this page <small>sent as Authorization: Bearer … to /v1</small></h2>
    <div class="fields">
      <div class="field grow">
        <label for="active-key" id="active-key-label">API key for test mode</label>
        <input type="text" id="active-key" placeholder="iv_test_… (create a key above, or paste one)"
          spellcheck="false" autocomplete="off" aria-describedby="active-key-info active-key-error">
        <p class="field-error" id="active-key-error"></p>
        <p class="muted" id="active-key-info">No key yet.</p>
      </div>
    </div>
    <div class="actions">
      <button type="button" data-get="/v1/ping">GET /v1/ping</button>
      <button type="button" data-get="/v1/me">GET /v1/me</button>
      <button type="button" data-get="/v1/sessions?limit=5">GET /v1/sessions</button>
      <button type="button" data-get="/v1/events?limit=3">GET /v1/events</button>
    </div>
    <pre id="api-output" hidden></pre>
  </section>

  <section class="panel" id="webhooks" aria-labelledby="webhooks-title">
    <h2 id="webhooks-title">Webhook endpoints <small>/v1/webhook_endpoints with the key above</small></h2>
    <form id="endpoint-form" class="stack" autocomplete="off" novalidate>
      <div class="field grow">
        <label for="endpoint-url">URL</label>
        <input type="url" id="endpoint-url" name="url" value="${receiverUrl}"
          aria-describedby="endpoint-url-error endpoint-url-note">
        <p class="field-error" id="endpoint-url-error"></p>
        <p class="field-note" id="endpoint-url-note"></p>
      </div>
      <div class="field grow">
        <label for="endpoint-description">Description</label>
        <input type="text" id="endpoint-description" name="description" value="Added from the Developers page"
          maxlength="1024" aria-describedby="endpoint-description-error">
        <p class="field-error" id="endpoint-description-error"></p>
      </div>
      <div class="field">
        <fieldset class="checks" id="endpoint-events" aria-describedby="endpoint-events-error">
          <legend>Events</legend>
          <label><input type="checkbox" name="all-events" value="*"> all (*)</label>
          ${eventTypes}
        </fieldset>
        <p class="field-error" id="endpoint-events-error"></p>
      </div>
      <label><input type="checkbox" name="give-secret" checked> give its signing secret to the demo
        receiver</label>
      <button class="primary" type="submit">Add endpoint</button>
    </form>
    <div class="table-wrap">
      <table>
        <caption class="sr-only">Webhook endpoints in this mode</caption>
        <thead><tr><th scope="col">Endpoint</th><th scope="col">URL</th><th scope="col">Events</th>
          <th scope="col">Status</th><th scope="col">Created</th></tr></thead>
        <tbody id="endpoints-body"><tr><td class="empty" colspan="5">Create or paste a key first.</td></tr></tbody>
      </table>
    </div>
    <div class="more"><button type="button" id="endpoints-more" hidden>Load more</button></div>

    <div id="endpoint-detail" class="detail" hidden tabindex="-1" aria-labelledby="endpoint-detail-title">
      <h3 id="endpoint-detail-title">Endpoint <span id="endpoint-detail-id"></span></h3>
      <dl class="facts" id="endpoint-facts"></dl>
      <div id="endpoint-secret" class="once" hidden></div>
      <div class="actions" id="endpoint-actions">
        <button type="button" id="endpoint-test">Send test event</button>
        <button type="button" id="endpoint-rotate">Rotate secret</button>
        <button type="button" id="endpoint-toggle">Disable</button>
        <button type="button" id="endpoint-delete" class="danger">Delete…</button>
        <span class="reason" id="endpoint-reason"></span>
      </div>
      <div id="endpoint-delete-confirm" class="once" hidden>
        <span id="endpoint-delete-question"></span>
        <div class="actions">
          <button type="button" class="danger" id="endpoint-delete-yes">Delete endpoint</button>
          <button type="button" id="endpoint-delete-no">Cancel</button>
        </div>
      </div>
      <h3>Edit</h3>
      <form id="endpoint-edit" class="stack" autocomplete="off" novalidate>
        <div class="field grow">
          <label for="edit-url">URL</label>
          <input type="url" id="edit-url" name="url" aria-describedby="edit-url-error edit-url-note">
          <p class="field-error" id="edit-url-error"></p>
          <p class="field-note" id="edit-url-note"></p>
        </div>
        <div class="field grow">
          <label for="edit-description">Description</label>
          <input type="text" id="edit-description" name="description" maxlength="1024"
            aria-describedby="edit-description-error">
          <p class="field-error" id="edit-description-error"></p>
        </div>
        <div class="field">
          <fieldset class="checks" id="edit-events" aria-describedby="edit-events-error"><legend>Events</legend>
            <label><input type="checkbox" name="all-events" value="*"> all (*)</label>
            ${eventTypes}
          </fieldset>
          <p class="field-error" id="edit-events-error"></p>
        </div>
        <button type="submit" class="primary">Save changes</button>
      </form>
      <h3>Deliveries <small>GET /v1/webhook_endpoints/{id}/deliveries · open a row for its attempts</small></h3>
      <div class="fields">
        <div class="field">
          <label for="deliveries-status">Status</label>
          <select id="deliveries-status"><option value="">all</option><option value="pending">pending</option>
            <option value="succeeded">succeeded</option><option value="failed">failed</option></select>
        </div>
        <div class="field" id="deliveries-event-filter" hidden>
          <span class="label">Event</span>
          <span class="actions"><code id="deliveries-event"></code>
            <button type="button" class="small" id="deliveries-event-clear">Show all events</button></span>
        </div>
      </div>
      <div class="table-wrap">
        <table>
          <caption class="sr-only">Deliveries of this endpoint</caption>
          <thead><tr><th scope="col">Delivery</th><th scope="col">Event</th><th scope="col">Status</th>
            <th scope="col">Attempts</th><th scope="col">Response</th><th scope="col">Next attempt</th>
            <th scope="col">Updated</th></tr></thead>
          <tbody id="deliveries-body"></tbody>
        </table>
      </div>
      <div class="more"><button type="button" id="deliveries-more" hidden>Load more</button></div>
      <div id="delivery-detail" class="detail" hidden tabindex="-1"></div>
    </div>
  </section>

  <div class="split">
    <section class="panel" id="sessions" aria-labelledby="sessions-title">
      <h2 id="sessions-title">Demo sessions <small>host routes /developers/api/sessions</small></h2>
      <p class="hint">Each action writes the session and publishes its events in one database transaction
        (<code>publisher.publish(input, { manager })</code>): they commit together or not at all.</p>
      <form id="session-form" class="stack" autocomplete="off" novalidate>
        <div class="field grow">
          <label for="session-candidate">Candidate</label>
          <input type="text" id="session-candidate" name="candidate_name" placeholder="random">
        </div>
        <div class="actions">
          <button class="primary" type="submit">Start session</button>
          <button type="button" id="rollback-demo" title="Writes and publishes, then throws before COMMIT">
            Start, then roll back</button>
        </div>
      </form>
      <p class="hint" id="rollback-result" hidden></p>
      <div class="table-wrap">
        <table>
          <caption class="sr-only">Demo sessions in this mode</caption>
          <thead><tr><th scope="col">Session</th><th scope="col">Candidate</th><th scope="col">Status</th>
            <th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody id="sessions-body"><tr><td class="empty" colspan="4">Loading…</td></tr></tbody>
        </table>
      </div>
    </section>

    <section class="panel" id="events" aria-labelledby="events-title">
      <h2 id="events-title">Events <small>GET /v1/events with the key above</small></h2>
      <div class="fields">
        <div class="field">
          <label for="events-type">Type</label>
          <select id="events-type"><option value="">all types</option>${options(model.eventTypes)}
            <option value="webhook.test">webhook.test</option></select>
        </div>
      </div>
      <div class="table-wrap">
        <table>
          <caption class="sr-only">Events in this mode</caption>
          <thead><tr><th scope="col">Event</th><th scope="col">Type</th><th scope="col">Object</th>
            <th scope="col">Created</th></tr></thead>
          <tbody id="events-body"><tr><td class="empty" colspan="4">Create or paste a key first.</td></tr></tbody>
        </table>
      </div>
      <div class="more"><button type="button" id="events-more" hidden>Load more</button></div>
      <div id="event-detail" class="detail" hidden tabindex="-1"></div>
    </section>
  </div>

  <section class="panel" id="receiver" aria-labelledby="receiver-title">
    <h2 id="receiver-title">Demo receiver <small>POST /demo-receiver on this app</small></h2>
    <p class="hint">Point an endpoint at <code class="wrap">${receiverUrl}</code>. It checks each delivery with
      <code>verifyWebhook(req.rawBody, req.headers, secret)</code> against the one secret it keeps per endpoint
      (<span id="secrets-known">0</span> known) and answers 400 to a bad signature. Without any secret it
      records deliveries as <em>skipped</em>; start the demo with <code>DEMO_WEBHOOK_SECRET=whsec_…</code> or
      tick "give its signing secret" when adding an endpoint.</p>
    <div class="actions">
      <label><input type="checkbox" id="receiver-failing"> answer 500 (watch the retries)</label>
      <button type="button" class="small" id="receiver-clear">Clear</button>
    </div>
    <div class="table-wrap">
      <table>
        <caption class="sr-only">Requests the demo receiver got, newest first</caption>
        <thead><tr><th scope="col">Received</th><th scope="col">Endpoint</th><th scope="col">Delivery</th>
          <th scope="col">Type</th><th scope="col">webhook-id</th><th scope="col">Signature</th>
          <th scope="col">Answered</th></tr></thead>
        <tbody id="received-body"><tr><td class="empty" colspan="7">Nothing received yet.</td></tr></tbody>
      </table>
    </div>
  </section>
</main>
<script type="application/json" id="page-config">${config}</script>
<script type="module" src="/developers/assets/developers.js"></script>
</body>
</html>
`;
}

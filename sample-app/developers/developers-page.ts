export interface DevelopersPageModel {
  accountId: string;
  keyPrefix: string;
  userScopes: readonly string[];
  allScopes: readonly string[];
  eventTypes: readonly string[];
  receiverUrl: string;
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

const STYLES = `
  :root { --fg: #1d2330; --muted: #667085; --line: #e4e7ec; --bg: #f6f7f9; --card: #fff;
    --accent: #3553d6; --ok: #127a46; --warn: #a15c00; --bad: #b42318; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
    color: var(--fg); background: var(--bg); }
  header { background: #131a2c; color: #fff; padding: 14px 28px; display: flex; align-items: baseline;
    gap: 18px; flex-wrap: wrap; }
  header h1 { font-size: 18px; margin: 0; }
  header .who { color: #c5cbe0; font-size: 13px; }
  main { max-width: 1180px; margin: 0 auto; padding: 20px 24px 60px; display: grid; gap: 18px; }
  section { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 16px 20px; }
  h2 { font-size: 16px; margin: 0 0 4px; }
  h2 small, h3 small { font-weight: normal; color: var(--muted); font-size: 12px; margin-left: 6px; }
  h3 { font-size: 14px; margin: 14px 0 6px; }
  p.hint { color: var(--muted); margin: 2px 0 12px; font-size: 13px; }
  form { display: flex; flex-wrap: wrap; gap: 10px 16px; align-items: flex-end; margin-bottom: 12px; }
  label { font-size: 13px; }
  label.field { display: flex; flex-direction: column; gap: 3px; color: var(--muted); }
  fieldset { border: 1px solid var(--line); border-radius: 8px; padding: 6px 10px 8px; margin: 0; }
  fieldset legend { color: var(--muted); font-size: 12px; padding: 0 4px; }
  fieldset.checks { display: flex; flex-wrap: wrap; gap: 4px 14px; max-width: 100%; }
  input[type=text], input[type=url], select { font: inherit; padding: 6px 8px; border: 1px solid #cfd4dc;
    border-radius: 6px; min-width: 180px; }
  input.wide { min-width: 420px; }
  button { font: inherit; padding: 6px 12px; border-radius: 6px; border: 1px solid #cfd4dc; background: #fff;
    cursor: pointer; }
  button.primary { background: var(--accent); border-color: var(--accent); color: #fff; }
  button.danger { color: var(--bad); }
  button.small { padding: 2px 8px; font-size: 12px; }
  table { width: 100%; border-collapse: collapse; font-size: 13px; }
  th { text-align: left; color: var(--muted); font-weight: 500; border-bottom: 1px solid var(--line); padding: 6px; }
  td { border-bottom: 1px solid var(--line); padding: 6px; vertical-align: top; }
  td.empty { color: var(--muted); text-align: center; padding: 14px; }
  tr.clickable { cursor: pointer; }
  tr.clickable:hover td { background: #f3f5fb; }
  code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; }
  pre { background: #0f1524; color: #e2e6f3; padding: 10px 12px; border-radius: 8px; overflow: auto;
    max-height: 320px; margin: 8px 0 0; }
  .badge { display: inline-block; padding: 0 7px; border-radius: 10px; font-size: 12px; background: #eef0f4; }
  .badge.test { background: #fff4e0; color: var(--warn); }
  .badge.live { background: #e3f5ea; color: var(--ok); }
  .badge.ok { background: #e3f5ea; color: var(--ok); }
  .badge.warn { background: #fff4e0; color: var(--warn); }
  .badge.bad { background: #fde8e7; color: var(--bad); }
  .once { border: 1px solid #f5c46b; background: #fffaf0; border-radius: 8px; padding: 10px 12px; margin: 0 0 12px; }
  .once code { font-size: 13px; word-break: break-all; }
  .row { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; }
  .muted { color: var(--muted); }
  .split { display: grid; grid-template-columns: 1fr 1fr; gap: 18px; }
  @media (max-width: 900px) { .split { grid-template-columns: 1fr; } input.wide { min-width: 0; width: 100%; } }
  #toast { position: fixed; right: 18px; bottom: 18px; max-width: 440px; padding: 10px 14px; border-radius: 8px;
    background: #131a2c; color: #fff; font-size: 13px; box-shadow: 0 6px 24px rgba(0,0,0,.2); }
  #toast.error { background: var(--bad); }
`;

function checkboxes(name: string, values: readonly string[], checked: (value: string) => boolean): string {
  return values
    .map(
      (value) =>
        `<label><input type="checkbox" name="${escapeHtml(name)}" value="${escapeHtml(value)}"` +
        `${checked(value) ? ' checked' : ''}> ${escapeHtml(value)}</label>`,
    )
    .join('\n        ');
}

/** The Developers page: the dashboard (keys, demo sessions, receiver) and the /v1 API used with a key. */
export function renderDevelopersPage(model: DevelopersPageModel): string {
  const config = scriptJson({
    accountId: model.accountId,
    keyPrefix: model.keyPrefix,
    receiverUrl: model.receiverUrl,
    eventTypes: model.eventTypes,
  });
  const account = escapeHtml(model.accountId);
  const receiverUrl = escapeHtml(model.receiverUrl);
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Developers · Interview</title>
  <style>${STYLES}</style>
</head>
<body>
<header>
  <h1>Interview · Developers</h1>
  <span class="who">Account <code>${account}</code> · signed in as the demo owner
    (${model.userScopes.length} scopes) · local demo, no login</span>
</header>
<main>
  <section id="keys">
    <h2>API keys <small>dashboard route /developers/api/keys → ApiKeysService</small></h2>
    <p class="hint">The full key is shown once, when it is created. Only its last four characters are kept
      readable.</p>
    <form id="key-form" autocomplete="off">
      <label class="field">Name <input type="text" name="name" value="Local demo key" required></label>
      <fieldset class="checks"><legend>Mode</legend>
        <label><input type="radio" name="mode" value="test" checked> test</label>
        <label><input type="radio" name="mode" value="live"> live</label>
      </fieldset>
      <fieldset class="checks"><legend>Scopes</legend>
        ${checkboxes('scopes', model.allScopes, (scope) => DEFAULT_KEY_SCOPES.has(scope))}
      </fieldset>
      <button class="primary" type="submit">Create key</button>
    </form>
    <div id="new-key" class="once" hidden>
      <strong>Copy this key now: it will not be shown again.</strong>
      <div class="row"><code id="new-key-value"></code>
        <button type="button" class="small" id="copy-key">Copy</button></div>
      <div class="muted">It is also the key this page now uses for the /v1 calls below.</div>
    </div>
    <table>
      <thead><tr><th>Name</th><th>Mode</th><th>Key</th><th>Scopes</th><th>Created</th><th>Last used</th>
        <th></th></tr></thead>
      <tbody id="keys-body"><tr><td class="empty" colspan="7">Loading…</td></tr></tbody>
    </table>
  </section>

  <section id="use-key">
    <h2>Key used by this page <small>sent as Authorization: Bearer … to /v1</small></h2>
    <div class="row">
      <input type="text" id="active-key" class="wide" placeholder="iv_test_… (create a key above, or paste one)"
        spellcheck="false" autocomplete="off">
      <span id="active-mode" class="badge">no key</span>
      <button type="button" data-get="/v1/ping">GET /v1/ping</button>
      <button type="button" data-get="/v1/me">GET /v1/me</button>
      <button type="button" data-get="/v1/sessions?limit=5">GET /v1/sessions</button>
      <button type="button" data-get="/v1/events?limit=3">GET /v1/events</button>
    </div>
    <pre id="api-output" hidden></pre>
  </section>

  <section id="webhooks">
    <h2>Webhook endpoints <small>/v1/webhook_endpoints with the key above (needs developers:manage)</small></h2>
    <form id="endpoint-form" autocomplete="off">
      <label class="field">URL <input type="url" name="url" class="wide" value="${receiverUrl}" required></label>
      <fieldset class="checks"><legend>Events</legend>
        <label><input type="checkbox" name="all-events" value="*"> all (*)</label>
        ${checkboxes('events', model.eventTypes, () => true)}
      </fieldset>
      <label><input type="checkbox" name="give-secret" checked> give its signing secret to the demo receiver</label>
      <button class="primary" type="submit">Add endpoint</button>
    </form>
    <div id="new-secret" class="once" hidden>
      <strong>Signing secret of <code id="new-secret-endpoint"></code></strong> (returned on create and rotate only):
      <div><code id="new-secret-value"></code></div>
    </div>
    <table>
      <thead><tr><th>Endpoint</th><th>URL</th><th>Events</th><th>Status</th><th>Created</th><th></th></tr></thead>
      <tbody id="endpoints-body"><tr><td class="empty" colspan="6">Create or paste a key first.</td></tr></tbody>
    </table>
    <div id="deliveries" hidden>
      <h3>Deliveries of <code id="deliveries-endpoint"></code>
        <small>GET /v1/webhook_endpoints/:id/deliveries · click a row for its attempts</small></h3>
      <table>
        <thead><tr><th>Delivery</th><th>Event</th><th>Status</th><th>Attempts</th><th>Response</th><th>Error</th>
          <th>Next attempt</th><th>Updated</th><th></th></tr></thead>
        <tbody id="deliveries-body"></tbody>
      </table>
      <pre id="delivery-detail" hidden></pre>
    </div>
  </section>

  <div class="split">
    <section id="sessions">
      <h2>Demo sessions <small>host routes /developers/api/sessions</small></h2>
      <p class="hint">Each action writes the session and publishes its events in one database transaction
        (<code>publisher.publish(input, { manager })</code>): they commit together or not at all.</p>
      <form id="session-form" autocomplete="off">
        <label class="field">Candidate <input type="text" name="candidate_name" placeholder="random"></label>
        <label class="field">Mode <select name="mode"><option value="test">test</option>
          <option value="live">live</option></select></label>
        <button class="primary" type="submit">Start session</button>
        <button type="button" id="rollback-demo" title="Writes and publishes, then throws before COMMIT">
          Start, then roll back</button>
      </form>
      <p class="hint" id="rollback-result" hidden></p>
      <table>
        <thead><tr><th>Session</th><th>Candidate</th><th>Mode</th><th>Status</th><th></th></tr></thead>
        <tbody id="sessions-body"><tr><td class="empty" colspan="5">Loading…</td></tr></tbody>
      </table>
    </section>

    <section id="events">
      <h2>Events <small>GET /v1/events with the key above · click a row</small></h2>
      <table>
        <thead><tr><th>Event</th><th>Type</th><th>Object</th><th>Created</th></tr></thead>
        <tbody id="events-body"><tr><td class="empty" colspan="4">Create or paste a key first.</td></tr></tbody>
      </table>
      <pre id="event-detail" hidden></pre>
    </section>
  </div>

  <section id="receiver">
    <h2>Demo receiver <small>POST /demo-receiver on this app</small></h2>
    <p class="hint">Point an endpoint at <code>${receiverUrl}</code>. It checks each delivery with
      <code>verifyWebhook(req.rawBody, req.headers, secret)</code> against the secrets it knows
      (<span id="secrets-known">0</span> known) and answers 400 to a bad signature. Without any secret it
      records deliveries as <em>skipped</em>; start the demo with <code>DEMO_WEBHOOK_SECRET=whsec_…</code> or
      tick "give its signing secret" when adding an endpoint.</p>
    <div class="row">
      <label><input type="checkbox" id="receiver-failing"> answer 500 (watch the retries)</label>
      <button type="button" class="small" id="receiver-clear">Clear</button>
    </div>
    <table>
      <thead><tr><th>Received</th><th>Type</th><th>webhook-id</th><th>Object</th><th>Signature</th>
        <th>Answered</th></tr></thead>
      <tbody id="received-body"><tr><td class="empty" colspan="6">Nothing received yet.</td></tr></tbody>
    </table>
  </section>
</main>
<div id="toast" hidden></div>
<script type="application/json" id="page-config">${config}</script>
<script src="/developers/app.js" defer></script>
</body>
</html>
`;
}

// The Developers page: plain browser modules, served as they are (no build step). Dashboard actions
// go to the host's /developers/api routes; everything else is the public /v1 API, called with the key
// the page uses in the mode it shows, exactly as a customer's code would.
import { onEndpointChanged, refreshEndpoint } from './endpoint-detail.js';
import { endpointsList } from './endpoints-panel.js';
import { eventsList } from './events-panel.js';
import { notify } from './feedback.js';
import './key-in-use.js';
import { loadKeys } from './keys-panel.js';
import { loadReceiver } from './receiver-panel.js';
import { loadSessions, onPublished } from './sessions-panel.js';
import { setMode, state, storedKey } from './state.js';
import { startClock } from './time.js';

const REFRESH_MS = 3000;
let refreshing = false;

function refreshApiPanels() {
  if (!state.key) return Promise.resolve();
  return Promise.all([endpointsList.refresh(), eventsList.refresh(), refreshEndpoint()]);
}

/** Reads every panel again, one refresh at a time. */
async function refreshAll() {
  if (refreshing) return;
  refreshing = true;
  try {
    await Promise.all([loadKeys(), loadSessions(), refreshApiPanels()]);
    await loadReceiver();
  } catch (error) {
    notify(error.message, true);
  } finally {
    refreshing = false;
  }
}

onEndpointChanged(() => endpointsList.refresh());
// The deliveries go out after the commit, a moment later: the next refresh shows them.
onPublished(() => refreshApiPanels());

startClock();
// The mode of the key kept from before, else test mode.
setMode(storedKey('test') || !storedKey('live') ? 'test' : 'live');
refreshAll();
setInterval(() => {
  if (document.visibilityState === 'visible') refreshAll();
}, REFRESH_MS);

// @ts-check
// Freeway's web console: ES modules, no dependencies, no build step, nothing loaded from elsewhere.
// Keys live in sessionStorage (localStorage too only with "Remember keys on this device") and leave
// the page only as X-<Provider>-Key headers of requests to this origin.
import { wireConnect } from './connect.js';
import { wireHealth } from './health.js';
import { currentKeys, refreshStates, renderKeyFields, renderKeyStates, renderModelCounts, wireKeys } from './keys.js';
import { loadModels, wireModels } from './models.js';
import { wirePlayground } from './playground.js';
import { byId, errorMessage, freeway, messageOf, onChange, state } from './shared.js';
import { wireUsage } from './usage.js';

async function start() {
  // The provider list needs no keys: none are sent.
  const response = await freeway('/v1/providers');
  if (!response.ok) throw new Error(await errorMessage(response));
  state.providers = (await response.json()).data;
  renderKeyFields();
  onChange('states', renderKeyStates);
  onChange('models', renderModelCounts);
  wireKeys({ afterCheck: loadModels });
  wireConnect();
  wireModels();
  wirePlayground();
  wireUsage();
  wireHealth();
  if (Object.keys(currentKeys()).length > 0) await refreshStates();
  await loadModels();
}

start().catch((error) => {
  byId('keys-status').textContent = `The console could not start: ${messageOf(error)}`;
});

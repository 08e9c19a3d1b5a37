// @ts-check
// The models the keys can use now (GET /v1/models with the key headers): the table, and the list
// the playground's picker is made from.
import { keyHeaders, usedProviders } from './keys.js';
import { announce, byId, counted, el, errorMessage, freeway, isChatModel, messageOf, onChange, selectById, state } from './shared.js';

/** @typedef {import('./shared.js').Model} Model */

/** How long the key fields must stay still before the models are asked for again. */
const KEYS_SETTLE_MS = 400;

const CAPABILITIES = ['fast', 'reasoning', 'long-context', 'vision', 'tool-use', 'pdf'];

export { isChatModel };

/** `quality 71` when the model carries a quality figure. @param {Model} model */
export function qualityText(model) {
  return typeof model.quality === 'number' ? `quality ${model.quality}` : '';
}

/** Whether some key of the provider can be used now; true before anything is known of its keys. @param {string} providerId */
function usableNow(providerId) {
  const entries = state.keyStates.get(providerId);
  return !entries || entries.some((entry) => entry.usableModels > 0);
}

function renderModels() {
  const alias = selectById('alias-filter').value;
  const capability = selectById('capability-filter').value;
  const aliasCapability = alias === '' || alias === 'free:auto' ? '' : alias.slice('free:'.length);
  const keyed = usedProviders();
  const rows = state.models.filter(
    (model) =>
      isChatModel(model) &&
      keyed.has(model.owned_by) &&
      usableNow(model.owned_by) &&
      (aliasCapability === '' || model.capabilities.includes(aliasCapability)) &&
      (capability === '' || model.capabilities.includes(capability)),
  );
  const tiers = new Map(state.providers.map((provider) => [provider.id, provider.tier]));
  const body = /** @type {HTMLTableElement} */ (byId('models-table')).tBodies[0];
  if (!body) return;
  body.replaceChildren(
    ...rows.map((model) =>
      el(
        'tr',
        {},
        el('td', {}, el('code', { text: model.id })),
        el('td', { text: model.capabilities.join(', ') || '–' }),
        el('td', { text: model.context_window ? model.context_window.toLocaleString('en') : '–' }),
        el('td', { text: model.tier ?? tiers.get(model.owned_by) ?? '–' }),
        el('td', { text: typeof model.quality === 'number' ? String(model.quality) : '–' }),
      ),
    ),
  );
  byId('models-status').textContent = keyed.size === 0 ? 'Enter a key (or tick Try without a key) to see the models it can use.' : `${counted(rows.length, 'model')}.`;
}

/** Reads the models the keys can use, for the table and the playground's picker. */
export async function loadModels() {
  const response = await freeway('/v1/models', {}, keyHeaders());
  if (!response.ok) {
    byId('models-status').textContent = await errorMessage(response);
    return;
  }
  state.models = (await response.json()).data;
  const aliasFilter = selectById('alias-filter');
  if (aliasFilter.options.length === 1) {
    for (const alias of state.models.filter((model) => model.owned_by === 'freeway')) aliasFilter.append(el('option', { value: alias.id, text: alias.id }));
  }
  announce('models');
}

export function wireModels() {
  for (const capability of CAPABILITIES) selectById('capability-filter').append(el('option', { value: capability, text: capability }));
  const status = byId('models-status');
  byId('load-models').addEventListener('click', () => loadModels().catch((error) => (status.textContent = `The request failed: ${messageOf(error)}`)));
  byId('alias-filter').addEventListener('change', renderModels);
  byId('capability-filter').addEventListener('change', renderModels);
  onChange('models', renderModels);
  onChange('states', renderModels);
  // The view follows the keys in the fields: a key typed (or removed) asks for the models again, once typing pauses.
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let pending;
  onChange('keys', () => {
    clearTimeout(pending);
    pending = setTimeout(() => loadModels().catch((error) => (status.textContent = `The request failed: ${messageOf(error)}`)), KEYS_SETTLE_MS);
  });
}

// @ts-check
// The health table: each key's state as the server gives it, never a blanket status.
import { currentKeys, refreshStates, stateWords } from './keys.js';
import { byId, clockIn, counted, el, messageOf, onChange, state } from './shared.js';

/** @typedef {import('./shared.js').Quota} Quota */

/** @param {Quota | null} quota */
function quotaText(quota) {
  if (!quota) return '–';
  const parts = [];
  if (quota.remainingRequests !== undefined) parts.push(counted(quota.remainingRequests, 'request'));
  if (quota.remainingTokens !== undefined) parts.push(counted(quota.remainingTokens, 'token'));
  return parts.length > 0 ? `${parts.join(', ')} left` : '–';
}

function renderHealth() {
  const table = /** @type {HTMLTableElement} */ (byId('health-table'));
  const body = table.tBodies[0];
  if (!body) return;
  body.replaceChildren();
  for (const provider of state.providers) {
    const refused = state.refused.get(provider.id);
    if (refused !== undefined) {
      body.append(el('tr', {}, el('th', { scope: 'row', text: provider.name }), el('td', { text: '–' }), el('td', { colspan: '5' }, el('span', { class: 'state state-refused', text: `not sent: ${refused}` }))));
    }
    for (const entry of state.keyStates.get(provider.id) ?? []) {
      body.append(
        el(
          'tr',
          {},
          el('th', { scope: 'row', text: provider.name }),
          el('td', { text: String(entry.position) }),
          el('td', {}, el('span', { class: `state state-${entry.state}`, text: stateWords(entry) }), entry.reason ? el('span', { class: 'key-reason', text: ` It said: ${entry.reason}` }) : null),
          el('td', { text: entry.retryAfter === null ? '–' : clockIn(entry.retryAfter) }),
          el('td', { text: quotaText(entry.quota) }),
          el('td', { text: `${counted(entry.usableModels, 'model')}${entry.usableAliases.length ? `; ${entry.usableAliases.join(', ')}` : ''}` }),
          el('td', { text: entry.checkedAt === null ? 'never' : new Date(entry.checkedAt * 1000).toLocaleTimeString() }),
        ),
      );
    }
  }
  const entered = Object.keys(currentKeys()).length;
  const shown = [...state.keyStates.values()].reduce((sum, list) => sum + list.length, 0);
  if (body.rows.length === 0) body.append(el('tr', {}, el('td', { colspan: '7', text: entered === 0 ? 'No keys entered.' : 'Not read yet: press Refresh health.' })));
  byId('health-status').textContent = entered === 0 ? 'No keys entered.' : `${counted(shown, 'key')} shown.`;
}

export function wireHealth() {
  onChange('states', renderHealth);
  onChange('keys', renderHealth);
  const status = byId('health-status');
  byId('refresh-health').addEventListener('click', () => refreshStates().catch((error) => (status.textContent = `The request failed: ${messageOf(error)}`)));
  renderHealth();
}

// @ts-check
// The keys: one field per provider, kept in sessionStorage (localStorage too only when the person
// asks), checked with GET /v1/providers, each key's state said in words with what to do.
import { announce, byId, clockIn, counted, el, errorMessage, freeway, inputById, isChatModel, listed, messageOf, state } from './shared.js';

/** @typedef {import('./shared.js').Provider} Provider @typedef {import('./shared.js').KeyEntry} KeyEntry */

const STORE_KEY = 'freeway.keys';
const REMEMBER_KEY = 'freeway.remember';
const KEYLESS_KEY = 'freeway.keyless';
/** The header that asks every provider with calls without a key for them. */
export const KEYLESS_HEADER = 'X-Freeway-Keyless';
/** The value that asks for a provider's calls without a key. */
export const ANONYMOUS = 'anonymous';
const FREE_TIERS = ['free', 'free with limits'];
/** What a key header can carry, as the server checks it: printable ASCII. */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

// --- Keys in the browser ------------------------------------------------------------------

function remembered() {
  try {
    return localStorage.getItem(REMEMBER_KEY) === '1';
  } catch {
    return false;
  }
}

/** @returns {Record<string, unknown>} */
function loadKeys() {
  try {
    const raw = (remembered() ? localStorage.getItem(STORE_KEY) : null) ?? sessionStorage.getItem(STORE_KEY);
    const parsed = raw ? JSON.parse(raw) : {};
    return parsed && typeof parsed === 'object' ? parsed : {};
  } catch {
    return {};
  }
}

/** Provider id -> what its field holds, for the fields that hold something. @returns {Record<string, string>} */
export function currentKeys() {
  /** @type {Record<string, string>} */
  const keys = {};
  for (const provider of state.providers) {
    const field = document.getElementById(`key-${provider.id}`);
    const value = field instanceof HTMLInputElement ? field.value.trim() : '';
    if (value !== '') keys[provider.id] = value;
  }
  return keys;
}

/** Whether "Try without a key" is on: every request then asks the keyless providers too. */
export function keylessOn() {
  const box = document.getElementById('try-keyless');
  return box instanceof HTMLInputElement && box.checked;
}

/** The providers requests go to: those with a key entered, and with "Try without a key" those that take calls without one. */
export function usedProviders() {
  const used = new Set(Object.keys(currentKeys()));
  if (keylessOn()) for (const provider of state.providers) if (provider.anonymous) used.add(provider.id);
  return used;
}

/**
 * The headers that carry the keys, to this origin only: one per provider with a key, less the
 * headers the server refused (which would make every request a 400), and X-Freeway-Keyless: on
 * when "Try without a key" is on.
 * @returns {Record<string, string>}
 */
export function keyHeaders() {
  /** @type {Record<string, string>} */
  const headers = keylessOn() ? { [KEYLESS_HEADER]: 'on' } : {};
  const keys = currentKeys();
  for (const provider of state.providers) {
    const key = keys[provider.id];
    if (key !== undefined && PRINTABLE_ASCII.test(key) && !state.refused.has(provider.id)) headers[provider.header] = key;
  }
  return headers;
}

function saveKeys() {
  const text = JSON.stringify(currentKeys());
  try {
    sessionStorage.setItem(STORE_KEY, text);
    if (keylessOn()) sessionStorage.setItem(KEYLESS_KEY, '1');
    else sessionStorage.removeItem(KEYLESS_KEY);
    if (inputById('remember').checked) {
      localStorage.setItem(REMEMBER_KEY, '1');
      localStorage.setItem(STORE_KEY, text);
    } else {
      localStorage.removeItem(REMEMBER_KEY);
      localStorage.removeItem(STORE_KEY);
    }
  } catch {
    // Storage refused (private mode): the keys live in the fields only.
  }
}

function forgetKeys() {
  try {
    sessionStorage.removeItem(STORE_KEY);
    localStorage.removeItem(STORE_KEY);
    localStorage.removeItem(REMEMBER_KEY);
  } catch {
    // nothing stored
  }
  for (const provider of state.providers) inputById(`key-${provider.id}`).value = '';
  inputById('remember').checked = false;
  inputById('try-keyless').checked = false;
  try {
    sessionStorage.removeItem(KEYLESS_KEY);
  } catch {
    // nothing stored
  }
  state.keyStates = new Map();
  state.refused = new Map();
  announce('keys');
  announce('states');
  byId('keys-status').textContent = 'Keys forgotten: none are stored in this browser.';
}

// --- The fields ---------------------------------------------------------------------------

/** @param {Provider} provider */
const isFree = (provider) => FREE_TIERS.includes(provider.tier);

/** The "start here" line: the free providers, those whose sign-up asks for no card first. */
function renderStartHere() {
  const free = state.providers.filter(isFree);
  const noCard = free.filter((provider) => provider.signUp?.cardRequired === false);
  const named = noCard.length > 0 ? noCard : free;
  const links = named.map((provider) => {
    const link = el('a', { href: provider.keyUrl, target: '_blank', rel: 'noopener noreferrer', text: provider.name });
    link.append(el('span', { class: 'visually-hidden', text: ' (opens the provider\'s site)' }));
    return link;
  });
  const line = byId('start-here');
  line.replaceChildren(el('strong', { text: 'Start here: ' }));
  links.forEach((link, i) => line.append(i === 0 ? '' : i === links.length - 1 ? ' and ' : ', ', link));
  line.append(
    noCard.length > 0
      ? ` ${noCard.length === 1 ? 'gives' : 'give'} free keys without a card. Get one, paste it below, and press Check keys.`
      : ` ${named.length === 1 ? 'has a free tier' : 'have free tiers'}. Get a key, paste it below, and press Check keys.`,
  );
}

/** What a field says of a key whose form its provider does not document. */
const ANY_FORM = 'not documented by the provider: any value is accepted';

/** @param {Provider} provider @param {string} value */
function formatNote(provider, value) {
  const hint = provider.keyHint;
  if (!hint) return `Format: ${ANY_FORM}.`;
  const start = hint.endsWith('…') ? hint.slice(0, -1) : '';
  const keys = value.split(',').map((key) => key.trim()).filter((key) => key !== '' && key !== ANONYMOUS);
  if (start !== '' && keys.some((key) => !key.startsWith(start))) return `${provider.name} keys start with ${start}: is this the right field?`;
  return `Format: ${hint}`;
}

/** @param {Provider} provider */
function anonymousOffer(provider) {
  const access = provider.anonymous;
  if (!access) return null;
  const button = el('button', { type: 'button', class: 'secondary small', text: 'Try without a key' });
  button.append(el('span', { class: 'visually-hidden', text: ` (${provider.name})` }));
  button.addEventListener('click', () => {
    const field = inputById(`key-${provider.id}`);
    field.value = ANONYMOUS;
    keyEdited(provider);
    field.focus();
  });
  return el('div', { class: 'anonymous' }, button, el('p', { class: 'key-info', text: `Without a key: ${access.limits}. ${access.privacy}` }));
}

/** @param {Provider} provider @param {string} saved */
function keyCard(provider, saved) {
  const id = `key-${provider.id}`;
  const field = el('input', {
    id,
    type: 'password',
    autocomplete: 'off',
    spellcheck: 'false',
    placeholder: provider.keyHint ?? 'the key as the provider shows it',
    'aria-describedby': `${id}-hint ${id}-state`,
  });
  field.value = saved;
  field.addEventListener('input', () => keyEdited(provider));
  const link = el('a', { href: provider.keyUrl, target: '_blank', rel: 'noopener noreferrer', text: 'Get a key' });
  link.append(el('span', { class: 'visually-hidden', text: ` for ${provider.name} (opens the provider's site)` }));
  const card = provider.signUp?.cardRequired === false ? ' · no card needed' : provider.signUp?.cardRequired ? ' · sign-up asks for a card' : '';
  return el(
    'div',
    { class: 'key-card', id: `${id}-card` },
    el('label', { for: id, text: `${provider.name} key` }),
    field,
    el('p', { id: `${id}-hint`, class: 'key-hint', text: formatNote(provider, saved) }),
    el('p', { class: 'key-info' }, link, ` · ${provider.tier}${card} · `, el('span', { id: `${id}-count`, text: modelCount(provider) })),
    anonymousOffer(provider),
    el('div', { id: `${id}-state`, class: 'key-state' }),
  );
}

/**
 * The card's model count: the chat models the Models view lists for the provider (not deprecated, usable
 * with the keys entered, or with any key before one is), one number in both places.
 * @param {Provider} provider
 */
function modelCount(provider) {
  const models = state.models.filter((model) => model.owned_by === provider.id && isChatModel(model) && model.available !== false);
  return state.models.length === 0 ? '' : counted(models.length, 'chat model');
}

/** The cards' counts, when the models were read again. */
export function renderModelCounts() {
  for (const provider of state.providers) {
    const count = document.getElementById(`key-${provider.id}-count`);
    if (count) count.textContent = modelCount(provider);
  }
}

/** A field changed: what was known of its old key no longer holds. @param {Provider} provider */
function keyEdited(provider) {
  const value = inputById(`key-${provider.id}`).value.trim();
  byId(`key-${provider.id}-hint`).textContent = formatNote(provider, value);
  state.keyStates.delete(provider.id);
  state.refused.delete(provider.id);
  saveKeys();
  announce('keys');
  announce('states');
}

/** @param {Provider} provider: free tiers, and providers that take calls without a key, come first. */
const shownFirst = (provider) => isFree(provider) || Boolean(provider.anonymous);

/** "Try without a key": the providers that answer without one, each with its limits and what it does with prompts. */
function renderKeylessOffer() {
  const keyless = state.providers.filter((provider) => provider.anonymous);
  const offer = byId('keyless');
  offer.hidden = keyless.length === 0;
  byId('keyless-notes').replaceChildren(
    ...keyless.map((provider) => el('li', {}, el('strong', { text: `${provider.name}: ` }), `${provider.anonymous?.privacy}. Limits: ${provider.anonymous?.limits}.`)),
  );
  let on = false;
  try {
    on = sessionStorage.getItem(KEYLESS_KEY) === '1';
  } catch {
    on = false;
  }
  inputById('try-keyless').checked = on && keyless.length > 0;
}

/** One card per provider: the free ones first, the others (paid, credits) behind a disclosure. */
export function renderKeyFields() {
  const saved = loadKeys();
  const savedOf = (/** @type {Provider} */ provider) => (typeof saved[provider.id] === 'string' ? String(saved[provider.id]) : '');
  const free = state.providers.filter(shownFirst);
  const others = state.providers.filter((provider) => !shownFirst(provider));
  byId('key-fields').replaceChildren(...free.map((provider) => keyCard(provider, savedOf(provider))));
  byId('more-fields').replaceChildren(...others.map((provider) => keyCard(provider, savedOf(provider))));
  byId('more-providers-count').textContent = String(others.length);
  const more = /** @type {HTMLDetailsElement} */ (byId('more-providers'));
  more.open = others.some((provider) => savedOf(provider) !== '');
  inputById('remember').checked = remembered();
  renderStartHere();
  renderKeylessOffer();
}

// --- Key states in words --------------------------------------------------------------------

/** @param {KeyEntry} entry */
function usableText(entry) {
  const aliases = entry.usableAliases.length > 0 ? ` · ${entry.usableAliases.join(', ')}` : '';
  return ` · ${counted(entry.usableModels, 'model')}${aliases}`;
}

/**
 * What a key's state means and what to do about it.
 * @param {KeyEntry} entry @returns {string}
 */
export function stateWords(entry) {
  const status = /^(\d{3})\b/.exec(entry.reason ?? '')?.[1];
  const failures = entry.consecutiveFailures ?? 0;
  switch (entry.state) {
    case 'healthy':
      return failures > 0 ? `answered before, but its last ${counted(failures, 'attempt')} failed${usableText(entry)}` : `healthy${usableText(entry)}`;
    case 'rate_limited':
      return entry.retryAfter === null
        ? 'rate-limited: Freeway uses your other keys, then tries it again'
        : `rate-limited until ${clockIn(entry.retryAfter)}: Freeway uses your other keys until then`;
    case 'invalid_key':
      return `the provider refused this key${status ? ` (${status})` : ''}: replace it`;
    case 'no_credit':
      return 'no credit left: add credit or remove it';
    case 'down':
      return `the provider is not answering (${counted(failures, 'failure')} in a row)${entry.retryAfter === null ? '' : `: Freeway tries it again at ${clockIn(entry.retryAfter)}`}`;
    case 'half_open':
      return 'recovering: the next request tries it again';
    case 'unchecked':
      return entry.check?.status === 'not_checkable' ? 'cannot be checked: send a request to see it work' : 'not checked yet: press Check keys, or send a request';
    default:
      return entry.state;
  }
}

/** The lines of one card: each key's state in words, what the provider said, and why a check did not run. @param {Provider} provider */
function renderCardState(provider) {
  const box = document.getElementById(`key-${provider.id}-state`);
  const field = document.getElementById(`key-${provider.id}`);
  if (!box || !field) return;
  box.replaceChildren();
  const refused = state.refused.get(provider.id);
  if (refused !== undefined) {
    box.append(el('p', { class: 'state state-refused', text: `Not checked: this field cannot be sent as it is. ${refused}` }));
    field.setAttribute('aria-invalid', 'true');
    return;
  }
  field.removeAttribute('aria-invalid');
  for (const entry of state.keyStates.get(provider.id) ?? []) {
    box.append(el('p', { class: `state state-${entry.state}`, text: `Key ${entry.position}: ${stateWords(entry)}` }));
    const said = entry.reason ? `It said: ${entry.reason}` : '';
    const note = entry.check && entry.check.status !== 'checked' && entry.check.message ? entry.check.message : '';
    for (const line of [said, note]) if (line !== '') box.append(el('p', { class: 'key-reason', text: line }));
  }
}

export function renderKeyStates() {
  for (const provider of state.providers) renderCardState(provider);
}

// --- Asking the server ----------------------------------------------------------------------

/**
 * @typedef {{ data: Provider[], check?: { budgetSpent: boolean, message?: string } }} ProvidersAnswer
 * @typedef {{ answer?: ProvidersAnswer, refused?: string }} ProviderRead
 */

/** GET /v1/providers with `headers`: its answer, or why the server refused the headers. @param {Record<string, string>} headers @param {boolean} check @returns {Promise<ProviderRead>} */
async function readProviders(headers, check) {
  const response = await freeway(check ? '/v1/providers?check=1' : '/v1/providers', {}, headers);
  if (response.status === 400) return { refused: await errorMessage(response) };
  if (!response.ok) throw new Error(await errorMessage(response));
  return { answer: /** @type {ProvidersAnswer} */ (await response.json()) };
}

/**
 * Reads the keys' states: all headers in one request, and when the server refuses one, each provider's
 * header on its own, so that a malformed key is flagged in its own card and the others are still read.
 * @param {boolean} check ask the providers now (`?check=1`)
 * @returns {Promise<{ keys: number, budgetMessage?: string }>}
 */
async function readStates(check) {
  const keys = currentKeys();
  /** @type {Map<string, string>} */
  const refused = new Map();
  /** @type {Array<[Provider, string]>} */
  const entered = [];
  for (const provider of state.providers) {
    const key = keys[provider.id];
    // A header value the browser would not even send: said here, as the server would say it.
    if (key !== undefined && !PRINTABLE_ASCII.test(key)) refused.set(provider.id, `${provider.header} must contain only printable ASCII characters.`);
    else if (key !== undefined) entered.push([provider, key]);
  }
  const all = Object.fromEntries(entered.map(([provider, key]) => [provider.header, key]));
  const together = await readProviders(all, check);
  /** @type {Array<ProvidersAnswer>} */
  const answers = [];
  if (together.answer) answers.push(together.answer);
  else {
    const alone = await Promise.all(entered.map(([provider, key]) => readProviders({ [provider.header]: key }, check)));
    alone.forEach((read, i) => {
      const provider = /** @type {[Provider, string]} */ (entered[i])[0];
      if (read.answer) answers.push(read.answer);
      else refused.set(provider.id, read.refused ?? 'refused');
    });
  }
  state.keyStates = new Map();
  for (const answer of answers) for (const provider of answer.data) if (provider.keys) state.keyStates.set(provider.id, provider.keys);
  state.refused = refused;
  announce('states');
  const spent = answers.find((answer) => answer.check?.budgetSpent);
  return { keys: [...state.keyStates.values()].reduce((sum, list) => sum + list.length, 0), budgetMessage: spent?.check?.message };
}

/** Reads the states again without asking the providers (after a playground request, on Refresh). */
export async function refreshStates() {
  if (Object.keys(currentKeys()).length === 0) {
    state.keyStates = new Map();
    state.refused = new Map();
    announce('states');
    return;
  }
  await readStates(false);
}

/** @param {() => Promise<void>} [afterCheck] what to read again once the keys are checked (the models) */
async function checkKeys(afterCheck) {
  const status = byId('keys-status');
  saveKeys();
  if (Object.keys(currentKeys()).length === 0) {
    status.textContent = 'Enter a key first: paste it into its provider\'s field.';
    return;
  }
  status.textContent = 'Checking…';
  const { keys, budgetMessage } = await readStates(true);
  const refused = [...state.refused.keys()].map((id) => state.providers.find((provider) => provider.id === id)?.name ?? id);
  const checked = `Checked ${counted(keys, 'key')}.`;
  const one = refused.length === 1;
  const notChecked = refused.length > 0 ? ` ${listed(refused)}: ${one ? 'its field' : 'their fields'} cannot be sent as ${one ? 'it is' : 'they are'} (see the ${one ? 'card' : 'cards'}).` : '';
  status.textContent = budgetMessage ?? `${checked}${notChecked}`;
  if (afterCheck) await afterCheck();
}

/**
 * Wires the buttons of the keys section.
 * @param {{ afterCheck: () => Promise<void> }} hooks
 */
export function wireKeys(hooks) {
  const status = byId('keys-status');
  byId('check-keys').addEventListener('click', () => checkKeys(hooks.afterCheck).catch((error) => (status.textContent = `The check failed: ${messageOf(error)}`)));
  byId('remember').addEventListener('change', saveKeys);
  byId('try-keyless').addEventListener('change', () => {
    saveKeys();
    announce('keys');
  });
  byId('forget-keys').addEventListener('click', forgetKeys);
}

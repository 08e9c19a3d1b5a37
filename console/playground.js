// @ts-check
// The playground: a conversation of several turns with a model or an alias, on the client API the
// person picks, streamed, each answer with its provider, model, attempts, times and tokens.
import { CLIENT_APIS, readEvents } from './apis.js';
import { curlHeaders, setupHeaders } from './connect.js';
import { keyHeaders, refreshStates, usedProviders } from './keys.js';
import { isChatModel, qualityText } from './models.js';
import { byId, buttonById, copyButton, counted, el, errorMessage, freeway, inputById, messageOf, onChange, selectById, shellQuote, state, textAreaById } from './shared.js';

/**
 * @typedef {import('./apis.js').Turn} Turn
 * @typedef {import('./apis.js').ClientApi} ClientApi
 * @typedef {import('./apis.js').TokenUsage} TokenUsage
 * @typedef {{ provider: string, model: string, attempts: string, firstTokenMs?: number, totalMs?: number, usage?: TokenUsage }} AnswerMeta
 */

/** The conversation so far, as sent with the next message. @type {Turn[]} */
let history = [];
/** Counts the conversations started: an answer that ends after "New conversation" is not kept. */
let conversation = 0;
/** @type {AbortController | undefined} */
let running;
/** The last request, for "Copy as curl". @type {{ path: string, body: Record<string, unknown> } | undefined} */
let lastRequest;

const META_IDS = ['meta-provider', 'meta-model', 'meta-attempts', 'meta-ttft', 'meta-total', 'meta-usage'];

/** @param {TokenUsage} usage */
const usageText = (usage) => `${usage.input} in, ${usage.output} out, ${usage.total} total tokens`;

// --- The model picker -----------------------------------------------------------------------

/** Aliases, then per provider with a key the chat models it can use now, each with its tier and quality. */
function renderPicker() {
  const picker = selectById('model');
  const chosen = picker.value || 'free:auto';
  const keyed = usedProviders();
  const chats = (/** @type {import('./shared.js').Model} */ model) => !model.capabilities.includes('embedding') && !model.capabilities.includes('transcription');
  const aliases = el('optgroup', { label: 'Aliases' }, ...state.models.filter((model) => model.owned_by === 'freeway' && chats(model)).map((alias) => el('option', { value: alias.id, text: alias.id })));
  const groups = state.providers
    .filter((provider) => keyed.size === 0 || keyed.has(provider.id))
    .map((provider) => {
      const options = state.models
        .filter((model) => model.owned_by === provider.id && isChatModel(model) && model.available !== false)
        .map((model) => el('option', { value: model.id, text: [model.id, model.tier ?? provider.tier, qualityText(model)].filter(Boolean).join(' · ') }));
      return options.length > 0 ? el('optgroup', { label: `${provider.name} (${provider.tier})` }, ...options) : null;
    })
    .filter((group) => group !== null);
  picker.replaceChildren(aliases, ...groups);
  picker.value = chosen;
  if (picker.value === '') picker.value = 'free:auto';
}

// --- One request ----------------------------------------------------------------------------

/** @param {string} id @param {string} text */
const setMeta = (id, text) => {
  byId(id).textContent = text;
};

/** @param {AnswerMeta} meta */
function metaLine(meta) {
  const attempts = meta.attempts === '' ? 0 : meta.attempts.split(', ').length;
  return [
    meta.provider,
    meta.model,
    counted(attempts, 'attempt'),
    meta.firstTokenMs === undefined ? '' : `first token ${meta.firstTokenMs} ms`,
    meta.totalMs === undefined ? '' : `${meta.totalMs} ms in all`,
    meta.usage ? `${meta.usage.input} in, ${meta.usage.output} out tokens` : '',
  ]
    .filter(Boolean)
    .join(' · ');
}

/** @param {'user' | 'assistant'} role @param {string} text */
function turnElement(role, text) {
  const body = el('div', { class: 'turn-text', text });
  const item = el('li', { class: `turn turn-${role}` }, el('p', { class: 'turn-who', text: role === 'user' ? 'You' : 'Answer' }), body);
  byId('conversation').append(item);
  keepLatestInView();
  return { item, body };
}

/** The conversation scrolls with what comes in. */
function keepLatestInView() {
  const log = byId('conversation-log');
  log.scrollTop = log.scrollHeight;
}

/** @param {string} id @returns {number | undefined} */
function numberField(id) {
  const value = inputById(id).value.trim();
  return value === '' ? undefined : Number(value);
}

function currentApi() {
  return CLIENT_APIS.find((api) => api.id === selectById('client-api').value) ?? /** @type {ClientApi} */ (CLIENT_APIS[0]);
}

/**
 * Streams one answer into `answer`, filling `meta` as it comes; returns its text (what came before a failure too).
 * @param {{ api: ClientApi, path: string, body: Record<string, unknown>, answer: HTMLElement, meta: AnswerMeta, signal: AbortSignal }} call
 */
async function stream({ api, path, body, answer, meta, signal }) {
  const started = performance.now();
  let text = '';
  const error = byId('play-error');
  const response = await freeway(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal }, keyHeaders());
  meta.provider = response.headers.get('X-Freeway-Provider') ?? '';
  meta.model = response.headers.get('X-Freeway-Model') ?? '';
  meta.attempts = response.headers.get('X-Freeway-Attempts') ?? '';
  setMeta('meta-provider', meta.provider || '–');
  setMeta('meta-model', meta.model || '–');
  setMeta('meta-attempts', meta.attempts || '–');
  if (!response.ok || !response.body) {
    error.textContent = await errorMessage(response);
    return text;
  }
  await readEvents(response.body, (event, data) => {
    const step = api.read(event, data);
    if (step.error) error.textContent = step.error;
    if (step.text) {
      if (meta.firstTokenMs === undefined) {
        meta.firstTokenMs = Math.round(performance.now() - started);
        setMeta('meta-ttft', `${meta.firstTokenMs} ms`);
      }
      text += step.text;
      answer.append(step.text);
      keepLatestInView();
    }
    if (step.usage) meta.usage = step.usage;
  });
  if (meta.usage) setMeta('meta-usage', usageText(meta.usage));
  return text;
}

/** @param {boolean} busy */
function setBusy(busy) {
  buttonById('send').disabled = busy;
  buttonById('stop').disabled = !busy;
  byId('conversation-log').setAttribute('aria-busy', busy ? 'true' : 'false');
}

async function send() {
  if (running) return;
  const message = textAreaById('message');
  const text = message.value.trim();
  const error = byId('play-error');
  error.textContent = '';
  if (text === '') {
    error.textContent = 'Write a message first.';
    return;
  }
  for (const id of META_IDS) setMeta(id, '–');
  const api = currentApi();
  history.push({ role: 'user', content: text });
  turnElement('user', text);
  message.value = '';
  const answer = turnElement('assistant', '');
  const settings = { model: selectById('model').value || 'free:auto', system: textAreaById('system-prompt').value.trim(), temperature: numberField('temperature'), maxTokens: numberField('max-tokens') };
  const body = api.body([...history], settings);
  const path = api.path(settings);
  lastRequest = { path, body };
  buttonById('copy-curl').disabled = false;
  const controller = new AbortController();
  const mine = conversation;
  running = controller;
  setBusy(true);
  const started = performance.now();
  /** @type {AnswerMeta} */
  const meta = { provider: '', model: '', attempts: '' };
  let answered = '';
  try {
    answered = await stream({ api, path, body, answer: answer.body, meta, signal: controller.signal });
  } catch (failure) {
    if (mine === conversation) error.textContent = controller.signal.aborted ? 'Stopped.' : `The request failed: ${messageOf(failure)}`;
  } finally {
    meta.totalMs = Math.round(performance.now() - started);
    setMeta('meta-total', `${meta.totalMs} ms`);
    running = undefined;
    setBusy(false);
  }
  if (mine === conversation) finishTurn(answered, answer, meta, text);
  await refreshStates().catch(() => {});
}

/**
 * Keeps an answer (even a stopped one) in the conversation; without one the message goes back to its box.
 * @param {string} answered @param {{ item: HTMLElement, body: HTMLElement }} answer @param {AnswerMeta} meta @param {string} asked
 */
function finishTurn(answered, answer, meta, asked) {
  if (answered !== '') {
    history.push({ role: 'assistant', content: answered });
    answer.item.append(el('p', { class: 'turn-meta', text: metaLine(meta) }));
    return;
  }
  history.pop();
  answer.item.remove();
  byId('conversation').lastElementChild?.remove();
  textAreaById('message').value = asked;
}

function newConversation() {
  if (running) running.abort();
  conversation += 1;
  history = [];
  byId('conversation').replaceChildren();
  byId('play-error').textContent = '';
  for (const id of META_IDS) setMeta(id, '–');
  textAreaById('message').focus();
}

/** The last request as a curl command, with the key headers as placeholders unless asked. */
function lastRequestAsCurl() {
  if (!lastRequest) return '';
  const { headers } = setupHeaders(inputById('curl-keys').checked);
  return [
    `curl -sN ${shellQuote(window.location.origin + lastRequest.path)} -H 'Content-Type: application/json' \\`,
    ...curlHeaders(headers).map((line) => `${line} \\`),
    `  -d ${shellQuote(JSON.stringify(lastRequest.body))}`,
  ].join('\n');
}

export function wirePlayground() {
  selectById('client-api').replaceChildren(...CLIENT_APIS.map((api) => el('option', { value: api.id, text: api.label })));
  byId('send').addEventListener('click', send);
  byId('stop').addEventListener('click', () => running?.abort());
  byId('new-conversation').addEventListener('click', newConversation);
  textAreaById('message').addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      send();
    }
  });
  copyButton(buttonById('copy-curl'), byId('curl-status'), lastRequestAsCurl);
  onChange('models', renderPicker);
  onChange('keys', renderPicker);
  renderPicker();
}

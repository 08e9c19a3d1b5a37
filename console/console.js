// Freeway's web console. Plain script, no dependencies, nothing loaded from elsewhere.
// Keys live in sessionStorage (localStorage too only with "Remember keys on this device")
// and leave the page only as X-<Provider>-Key headers of requests to this origin.
'use strict';

const STORE_KEY = 'freeway.keys';
const REMEMBER_KEY = 'freeway.remember';

const $ = (id) => document.getElementById(id);
let providers = [];
let lastStates = new Map();
let models = [];

function el(tag, attributes, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'text') node.textContent = value;
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) if (child !== undefined && child !== null) node.append(child);
  return node;
}

// --- Keys in the browser -------------------------------------------------------------

function remembered() {
  try {
    return localStorage.getItem(REMEMBER_KEY) === '1';
  } catch {
    return false;
  }
}

function loadKeys() {
  try {
    const raw = (remembered() ? localStorage.getItem(STORE_KEY) : null) ?? sessionStorage.getItem(STORE_KEY);
    const parsed = raw ? JSON.parse(raw) : {};
    return parsed && typeof parsed === 'object' ? parsed : {};
  } catch {
    return {};
  }
}

function currentKeys() {
  const keys = {};
  for (const provider of providers) {
    const input = $(`key-${provider.id}`);
    const value = input ? input.value.trim() : '';
    if (value !== '') keys[provider.id] = value;
  }
  return keys;
}

function saveKeys() {
  const text = JSON.stringify(currentKeys());
  try {
    sessionStorage.setItem(STORE_KEY, text);
    if ($('remember').checked) {
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
  for (const provider of providers) {
    const input = $(`key-${provider.id}`);
    if (input) input.value = '';
  }
  $('remember').checked = false;
  lastStates = new Map();
  renderStates();
  $('keys-status').textContent = 'Keys forgotten: none are stored in this browser.';
}

/** The headers that carry the keys: one per provider with a key, to this origin only. */
function keyHeaders() {
  const headers = {};
  const keys = currentKeys();
  for (const provider of providers) if (keys[provider.id]) headers[provider.header] = keys[provider.id];
  return headers;
}

async function freeway(path, init = {}) {
  const response = await fetch(path, { ...init, credentials: 'omit', cache: 'no-store', referrerPolicy: 'no-referrer', headers: { ...keyHeaders(), ...(init.headers || {}) } });
  return response;
}

async function errorMessage(response) {
  try {
    const body = await response.json();
    return body?.error?.message ?? `HTTP ${response.status}`;
  } catch {
    return `HTTP ${response.status}`;
  }
}

// --- Providers and key states --------------------------------------------------------

function renderKeyFields() {
  const saved = loadKeys();
  const grid = $('key-fields');
  grid.replaceChildren();
  for (const provider of providers) {
    const id = `key-${provider.id}`;
    const input = el('input', { id, type: 'password', autocomplete: 'off', spellcheck: 'false', 'aria-describedby': `${id}-state` });
    input.value = typeof saved[provider.id] === 'string' ? saved[provider.id] : '';
    input.addEventListener('input', saveKeys);
    const link = el('a', { href: provider.keyUrl, target: '_blank', rel: 'noopener noreferrer', text: 'Get a key' });
    link.append(el('span', { class: 'visually-hidden', text: ` for ${provider.name} (opens the provider's site)` }));
    grid.append(
      el(
        'div',
        { class: 'key-card' },
        el('label', { for: id, text: `${provider.name} key` }),
        input,
        el('p', { class: 'key-info' }, link, ` · ${provider.tier} · ${provider.models} models`),
        el('p', { id: `${id}-state`, class: 'key-state' }),
      ),
    );
  }
  $('remember').checked = remembered();
}

function stateLine(entry) {
  let text = `Key ${entry.position}: ${entry.state}`;
  if (entry.retryAfter !== null) text += ` (retry in ${entry.retryAfter} s)`;
  if (entry.state !== 'invalid_key' && entry.state !== 'no_credit') text += ` · ${entry.usableModels} models`;
  if (entry.usableAliases.length > 0) text += ` · ${entry.usableAliases.join(', ')}`;
  if (entry.check && entry.check.status !== 'checked' && entry.check.message) text += ` · ${entry.check.message}`;
  return text;
}

function quotaText(quota) {
  if (!quota) return '–';
  const parts = [];
  if (quota.remainingRequests !== undefined) parts.push(`${quota.remainingRequests} requests`);
  if (quota.remainingTokens !== undefined) parts.push(`${quota.remainingTokens} tokens`);
  return parts.length > 0 ? `${parts.join(', ')} left` : '–';
}

function renderStates() {
  for (const provider of providers) {
    const line = $(`key-${provider.id}-state`);
    if (!line) continue;
    line.replaceChildren();
    const entries = lastStates.get(provider.id) || [];
    for (const entry of entries) line.append(el('span', { class: `state state-${entry.state}`, text: stateLine(entry) }));
  }
  const body = $('health-table').tBodies[0];
  body.replaceChildren();
  for (const provider of providers) {
    for (const entry of lastStates.get(provider.id) || []) {
      body.append(
        el(
          'tr',
          {},
          el('td', { text: provider.name }),
          el('td', { text: String(entry.position) }),
          el('td', {}, el('span', { class: `state state-${entry.state}`, text: entry.state })),
          el('td', { text: entry.retryAfter === null ? '–' : `${entry.retryAfter} s` }),
          el('td', { text: quotaText(entry.quota) }),
          el('td', { text: `${entry.usableModels} models${entry.usableAliases.length ? `; ${entry.usableAliases.join(', ')}` : ''}` }),
          el('td', { text: entry.checkedAt === null ? 'never' : new Date(entry.checkedAt * 1000).toLocaleTimeString() }),
        ),
      );
    }
  }
  if (body.rows.length === 0) body.append(el('tr', {}, el('td', { colspan: '7', text: 'No keys entered.' })));
}

async function loadProviders(check, status) {
  const response = await freeway(check ? '/v1/providers?check=1' : '/v1/providers');
  if (!response.ok) {
    status.textContent = await errorMessage(response);
    return false;
  }
  const body = await response.json();
  lastStates = new Map();
  for (const provider of body.data) if (provider.keys) lastStates.set(provider.id, provider.keys);
  if (providers.length === 0) providers = body.data;
  renderStates();
  const count = [...lastStates.values()].reduce((sum, entries) => sum + entries.length, 0);
  if (check) status.textContent = body.check?.budgetSpent ? body.check.message : `Checked ${count} ${count === 1 ? 'key' : 'keys'}.`;
  else status.textContent = count === 0 ? 'No keys entered.' : `${count} ${count === 1 ? 'key' : 'keys'} shown.`;
  return true;
}

// --- Models ---------------------------------------------------------------------------

const CAPABILITIES = ['fast', 'reasoning', 'long-context', 'vision', 'tool-use', 'pdf'];

function renderModels() {
  const alias = $('alias-filter').value;
  const capability = $('capability-filter').value;
  const aliasCapability = alias === '' || alias === 'free:auto' ? '' : alias.slice('free:'.length);
  const keyed = new Set(Object.keys(currentKeys()));
  const usable = (providerId) => {
    const entries = lastStates.get(providerId);
    return !entries || entries.some((entry) => entry.usableModels > 0);
  };
  const tiers = new Map(providers.map((provider) => [provider.id, provider.tier]));
  const rows = models.filter(
    (model) =>
      model.owned_by !== 'freeway' &&
      !model.deprecated &&
      keyed.has(model.owned_by) &&
      usable(model.owned_by) &&
      (aliasCapability === '' || model.capabilities.includes(aliasCapability)) &&
      (capability === '' || model.capabilities.includes(capability)),
  );
  const body = $('models-table').tBodies[0];
  body.replaceChildren();
  for (const model of rows) {
    body.append(
      el(
        'tr',
        {},
        el('td', {}, el('code', { text: model.id })),
        el('td', { text: model.capabilities.join(', ') || '–' }),
        el('td', { text: model.context_window ? model.context_window.toLocaleString('en') : '–' }),
        el('td', { text: tiers.get(model.owned_by) || '–' }),
      ),
    );
  }
  $('models-status').textContent =
    keyed.size === 0 ? 'Enter a key to see the models it can use.' : `${rows.length} ${rows.length === 1 ? 'model' : 'models'}.`;
}

async function loadModels() {
  const response = await freeway('/v1/models');
  if (!response.ok) {
    $('models-status').textContent = await errorMessage(response);
    return;
  }
  models = (await response.json()).data;
  const picker = $('model');
  const chosen = picker.value || 'free:auto';
  picker.replaceChildren();
  const aliases = models.filter((model) => model.owned_by === 'freeway');
  // The playground chats: embedding and transcription models and aliases, and what the keys cannot use now, are left out.
  const chats = (model) => !model.capabilities.includes('embedding') && !model.capabilities.includes('transcription');
  const aliasGroup = el('optgroup', { label: 'Aliases' });
  for (const alias of aliases) if (chats(alias)) aliasGroup.append(el('option', { value: alias.id, text: alias.id }));
  const modelGroup = el('optgroup', { label: 'Models' });
  for (const model of models) {
    if (model.owned_by !== 'freeway' && !model.deprecated && model.available !== false && chats(model)) modelGroup.append(el('option', { value: model.id, text: model.id }));
  }
  picker.append(aliasGroup, modelGroup);
  picker.value = chosen;
  const aliasFilter = $('alias-filter');
  if (aliasFilter.options.length === 1) for (const alias of aliases) aliasFilter.append(el('option', { value: alias.id, text: alias.id }));
  renderModels();
}

// --- Playground -----------------------------------------------------------------------

let running;

function setMeta(id, text) {
  $(id).textContent = text;
}

function resetAnswer() {
  $('answer').textContent = '';
  $('play-error').textContent = '';
  for (const id of ['meta-provider', 'meta-model', 'meta-attempts', 'meta-ttft', 'meta-total', 'meta-usage']) setMeta(id, '–');
}

async function send() {
  if (running) return;
  resetAnswer();
  const controller = new AbortController();
  running = controller;
  $('send').disabled = true;
  $('stop').disabled = false;
  const started = performance.now();
  let firstAt;
  let usage;
  try {
    const response = await freeway('/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: $('model').value || 'free:auto',
        messages: [{ role: 'user', content: $('message').value }],
        stream: true,
        stream_options: { include_usage: true },
      }),
      signal: controller.signal,
    });
    setMeta('meta-provider', response.headers.get('X-Freeway-Provider') || '–');
    setMeta('meta-model', response.headers.get('X-Freeway-Model') || '–');
    setMeta('meta-attempts', response.headers.get('X-Freeway-Attempts') || '–');
    if (!response.ok) {
      $('play-error').textContent = await errorMessage(response);
      return;
    }
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += value;
      let end;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        for (const line of event.split('\n')) {
          if (!line.startsWith('data:')) continue;
          const data = line.slice(5).trim();
          if (data === '[DONE]') continue;
          let chunk;
          try {
            chunk = JSON.parse(data);
          } catch {
            continue;
          }
          if (chunk.error) {
            $('play-error').textContent = chunk.error.message || 'The stream failed.';
            continue;
          }
          const text = chunk.choices?.[0]?.delta?.content;
          if (text) {
            if (firstAt === undefined) {
              firstAt = performance.now();
              setMeta('meta-ttft', `${Math.round(firstAt - started)} ms`);
            }
            $('answer').append(text);
          }
          if (chunk.usage) usage = chunk.usage;
        }
      }
    }
    if (usage) setMeta('meta-usage', `${usage.prompt_tokens} in, ${usage.completion_tokens} out, ${usage.total_tokens} total tokens`);
  } catch (error) {
    $('play-error').textContent = controller.signal.aborted ? 'Stopped.' : `The request failed: ${error.message}`;
  } finally {
    setMeta('meta-total', `${Math.round(performance.now() - started)} ms`);
    running = undefined;
    $('send').disabled = false;
    $('stop').disabled = true;
  }
}

function stop() {
  if (running) running.abort();
}

/** A click handler that says what went wrong (a key the browser cannot send as a header, Freeway unreachable) in `status`. */
function guarded(status, action) {
  return () =>
    Promise.resolve()
      .then(action)
      .catch((error) => {
        status.textContent = `The request failed: ${error.message}`;
      });
}

// --- Start ----------------------------------------------------------------------------

async function start() {
  for (const capability of CAPABILITIES) $('capability-filter').append(el('option', { value: capability, text: capability }));
  // The provider list needs no keys; the fields do not exist yet, so none are sent.
  const response = await freeway('/v1/providers');
  if (!response.ok) throw new Error(await errorMessage(response));
  providers = (await response.json()).data;
  renderKeyFields();
  await loadProviders(false, $('health-status'));
  $('check-keys').addEventListener('click', guarded($('keys-status'), async () => {
    saveKeys();
    $('keys-status').textContent = 'Checking…';
    if (await loadProviders(true, $('keys-status'))) renderModels();
  }));
  $('remember').addEventListener('change', saveKeys);
  $('forget-keys').addEventListener('click', forgetKeys);
  $('refresh-health').addEventListener('click', guarded($('health-status'), () => loadProviders(false, $('health-status'))));
  $('load-models').addEventListener('click', guarded($('models-status'), loadModels));
  $('alias-filter').addEventListener('change', renderModels);
  $('capability-filter').addEventListener('change', renderModels);
  $('send').addEventListener('click', send);
  $('stop').addEventListener('click', stop);
  await loadModels();
}

start().catch((error) => {
  $('keys-status').textContent = `The console could not start: ${error.message}`;
});

// @ts-check
// What every part of the console shares: the data the server reported, DOM helpers, requests to
// this Freeway, and copying. Nothing is loaded from anywhere else; keys leave the page only as
// X-<Provider>-Key headers of requests to this origin (keys.js builds them).

/**
 * @typedef {{ cardRequired: boolean, source: string, checked: string }} SignUp
 * @typedef {{ limits: string, privacy: string, source: string, checked: string }} AnonymousAccess
 * @typedef {{ model: string, requests: number, answers: number, failures: Record<string, number>, inputTokens: number, outputTokens: number, cacheHits?: number }} ModelUsage
 * @typedef {{ day: string, models: ModelUsage[] }} UsageDay
 * @typedef {{ days: UsageDay[] }} Usage
 * @typedef {{ remainingRequests?: number, requestsResetAt?: string, remainingTokens?: number, tokensResetAt?: string }} Quota
 * @typedef {{ status: string, message?: string }} CheckNote
 * @typedef {{
 *   position: number, state: string, retryAfter: number | null, quota: Quota | null, checkedAt: number | null,
 *   usableModels: number, usableAliases: string[], consecutiveFailures?: number, reason?: string | null,
 *   check?: CheckNote, usage?: Usage
 * }} KeyEntry
 * @typedef {{
 *   id: string, name: string, header: string, keyUrl: string, tier: string, tierSource: string, tierChecked: string,
 *   aliases: string[], models: number, checkable: boolean, keyHint?: string | null, signUp?: SignUp | null,
 *   anonymous?: AnonymousAccess | null, keys?: KeyEntry[]
 * }} Provider
 * @typedef {{
 *   id: string, owned_by: string, capabilities: string[], context_window: number | null, deprecated?: boolean,
 *   tier?: string, available?: boolean, reason?: string, kind?: string, quality?: number | null, quality_source?: string
 * }} Model
 */

/** What the server last said; each part of the page renders from it. */
export const state = {
  /** @type {Provider[]} */
  providers: [],
  /** Provider id -> its keys, by position, as the server last reported them. @type {Map<string, KeyEntry[]>} */
  keyStates: new Map(),
  /** Provider id -> why the server refused that provider's key header (its 400 message). @type {Map<string, string>} */
  refused: new Map(),
  /** What GET /v1/models answered for the keys. @type {Model[]} */
  models: [],
};

/**
 * `keys`: a key field changed; `states`: the key states (and usage) were read again; `models`: the
 * model list was read again.
 */
const changes = new EventTarget();

/** @param {'keys' | 'states' | 'models'} what */
export function announce(what) {
  changes.dispatchEvent(new Event(what));
}

/** @param {'keys' | 'states' | 'models'} what @param {() => void} render */
export function onChange(what, render) {
  changes.addEventListener(what, render);
}

/** @param {string} id @returns {HTMLElement} */
export function byId(id) {
  const found = document.getElementById(id);
  if (!found) throw new Error(`the page has no #${id}`);
  return found;
}

/** @param {string} id @returns {HTMLInputElement} */
export const inputById = (id) => /** @type {HTMLInputElement} */ (byId(id));
/** @param {string} id @returns {HTMLSelectElement} */
export const selectById = (id) => /** @type {HTMLSelectElement} */ (byId(id));
/** @param {string} id @returns {HTMLTextAreaElement} */
export const textAreaById = (id) => /** @type {HTMLTextAreaElement} */ (byId(id));
/** @param {string} id @returns {HTMLButtonElement} */
export const buttonById = (id) => /** @type {HTMLButtonElement} */ (byId(id));

/**
 * @typedef {Record<string, string | number | boolean | null | undefined>} Attributes
 * @typedef {Node | string | null | undefined | false} Child
 */

/**
 * An element with attributes (`text` sets its text) and children; false, null and undefined are left out.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag @param {Attributes} [attributes] @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, attributes = {}, ...children) {
  return fill(document.createElement(tag), attributes, children);
}

const SVG = 'http://www.w3.org/2000/svg';

/**
 * An SVG element, drawn with attributes (never a style attribute: the page's policy forbids inline style).
 * @param {string} tag @param {Attributes} [attributes] @param {...Child} children
 * @returns {SVGElement}
 */
export function svg(tag, attributes = {}, ...children) {
  return fill(/** @type {SVGElement} */ (document.createElementNS(SVG, tag)), attributes, children);
}

/**
 * @template {Element} E
 * @param {E} node @param {Attributes} attributes @param {Child[]} children @returns {E}
 */
function fill(node, attributes, children) {
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'text') node.textContent = String(value);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) if (child !== undefined && child !== null && child !== false) node.append(child);
  return node;
}

/** `1 key`, `3 keys`. @param {number} count @param {string} word @param {string} [plural] */
export function counted(count, word, plural = `${word}s`) {
  return `${count.toLocaleString('en')} ${count === 1 ? word : plural}`;
}

/** `a`, `a and b`, `a, b and c`. @param {string[]} items */
export function listed(items) {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** Local time `14:05` of a moment `seconds` from now. @param {number} seconds */
export function clockIn(seconds) {
  return new Date(Date.now() + seconds * 1000).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

/**
 * A request to this Freeway with `headers` (the key headers the caller chose): never credentials,
 * never a referrer, never cached.
 * @param {string} path @param {RequestInit} [init] @param {Record<string, string>} [headers]
 */
export function freeway(path, init = {}, headers = {}) {
  return fetch(path, {
    ...init,
    credentials: 'omit',
    cache: 'no-store',
    referrerPolicy: 'no-referrer',
    headers: { ...headers, .../** @type {Record<string, string>} */ (init.headers ?? {}) },
  });
}

/** The message of Freeway's error body (OpenAI's or Anthropic's shape), else the status. @param {Response} response */
export async function errorMessage(response) {
  try {
    const body = await response.json();
    const message = body?.error?.message;
    return typeof message === 'string' ? message : `HTTP ${response.status}`;
  } catch {
    return `HTTP ${response.status}`;
  }
}

/** @param {unknown} error */
export const messageOf = (error) => (error instanceof Error ? error.message : String(error));

/**
 * Puts `text` on the clipboard: the Clipboard API where the browser allows it (https, localhost), else a
 * selected text area and the copy command, which also work on a plain-http address. True when copied.
 * @param {string} text
 */
async function copyText(text) {
  try {
    if (window.isSecureContext && navigator.clipboard) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // Refused (no permission, no focus): the fallback below.
  }
  const back = document.activeElement;
  const area = el('textarea', { class: 'copy-buffer', readonly: true, 'aria-hidden': 'true', tabindex: '-1' });
  area.value = text;
  document.body.append(area);
  area.select();
  let copied = false;
  try {
    copied = document.execCommand('copy');
  } catch {
    copied = false;
  }
  area.remove();
  if (back instanceof HTMLElement) back.focus();
  return copied;
}

/**
 * A button that copies what `text()` returns and says so in `status`.
 * @param {HTMLButtonElement} button @param {HTMLElement} status @param {() => string} text
 */
export function copyButton(button, status, text) {
  button.addEventListener('click', async () => {
    const copied = await copyText(text());
    status.textContent = copied ? 'Copied.' : 'This browser refused to copy: select the text and copy it yourself.';
  });
}

/** One argument of a POSIX shell command, in single quotes. @param {string} text */
export function shellQuote(text) {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/** A chat model of a provider (not an alias, an embedding or a transcription model). @param {Model} model */
export function isChatModel(model) {
  return model.owned_by !== 'freeway' && !model.deprecated && !model.capabilities.includes('embedding') && !model.capabilities.includes('transcription') && (model.kind ?? 'chat') === 'chat';
}

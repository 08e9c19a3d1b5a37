// @ts-check
// Usage: per key and model, today and the last seven days, as GET /v1/providers reports it for the
// keys of the request. The chart is SVG drawn with attributes and CSS classes: the page's policy
// allows no inline style.
import { currentKeys } from './keys.js';
import { byId, counted, el, onChange, state, svg } from './shared.js';

/**
 * @typedef {import('./shared.js').KeyEntry} KeyEntry
 * @typedef {import('./shared.js').ModelUsage} ModelUsage
 * @typedef {{ requests: number, answers: number, failures: number, inputTokens: number, outputTokens: number, cacheHits: number }} Totals
 */

const DAY_MS = 86_400_000;
const CHART = { dayWidth: 48, barWidth: 30, top: 18, barHeight: 96, bottom: 22 };

/** The last seven UTC days, oldest first, today last. */
function lastSevenDays() {
  const now = Date.now();
  return Array.from({ length: 7 }, (_, i) => new Date(now - (6 - i) * DAY_MS).toISOString().slice(0, 10));
}

/** @param {Record<string, number>} failures */
const failureCount = (failures) => Object.values(failures).reduce((sum, count) => sum + count, 0);

/** @param {ModelUsage[]} models @returns {Totals} */
function totals(models) {
  const sum = { requests: 0, answers: 0, failures: 0, inputTokens: 0, outputTokens: 0, cacheHits: 0 };
  for (const model of models) {
    sum.cacheHits += model.cacheHits ?? 0;
    sum.requests += model.requests;
    sum.answers += model.answers;
    sum.failures += failureCount(model.failures);
    sum.inputTokens += model.inputTokens;
    sum.outputTokens += model.outputTokens;
  }
  return sum;
}

/** `Mon 23`, or `today`. @param {string} day @param {string} today */
function dayLabel(day, today) {
  if (day === today) return 'today';
  return new Date(`${day}T12:00:00Z`).toLocaleDateString('en', { weekday: 'short', day: 'numeric', timeZone: 'UTC' });
}

/** Failures by kind in words: `rate limited 1, timeout 2`. @param {Record<string, number>} failures */
function failureKinds(failures) {
  return Object.entries(failures)
    .filter(([, count]) => count > 0)
    .map(([kind, count]) => `${kind.replaceAll('_', ' ')} ${count}`)
    .join(', ');
}

/**
 * Requests per day as stacked bars (answered below, failed above), with the figures written out for
 * people who do not see the chart.
 * @param {string[]} days @param {Map<string, Totals>} perDay @param {string} name
 */
function chart(days, perDay, name) {
  const today = days[days.length - 1] ?? '';
  const most = Math.max(1, ...days.map((day) => Math.max(perDay.get(day)?.requests ?? 0, (perDay.get(day)?.answers ?? 0) + (perDay.get(day)?.failures ?? 0))));
  const height = CHART.top + CHART.barHeight + CHART.bottom;
  const spoken = days.map((day) => {
    const sum = perDay.get(day);
    return `${dayLabel(day, today)} ${sum ? `${sum.requests} (${sum.answers} answered, ${sum.failures} failed)` : 0}`;
  });
  const label = `Requests per day, last seven days, ${name}: ${spoken.join('; ')}`;
  const drawing = svg('svg', { class: 'chart', viewBox: `0 0 ${days.length * CHART.dayWidth} ${height}`, role: 'img', 'aria-label': label }, svg('title', { text: label }));
  const baseline = CHART.top + CHART.barHeight;
  days.forEach((day, i) => {
    const sum = perDay.get(day) ?? { requests: 0, answers: 0, failures: 0, inputTokens: 0, outputTokens: 0, cacheHits: 0 };
    const x = i * CHART.dayWidth + (CHART.dayWidth - CHART.barWidth) / 2;
    const answered = (sum.answers / most) * CHART.barHeight;
    const failed = (sum.failures / most) * CHART.barHeight;
    const group = svg('g', { class: day === today ? 'chart-day chart-today' : 'chart-day' });
    group.append(
      svg('rect', { class: 'bar-answers', x, y: baseline - answered, width: CHART.barWidth, height: answered }),
      svg('rect', { class: 'bar-failures', x, y: baseline - answered - failed, width: CHART.barWidth, height: failed }),
      svg('text', { class: 'chart-value', x: x + CHART.barWidth / 2, y: baseline - answered - failed - 4, 'text-anchor': 'middle', text: String(sum.requests) }),
      svg('text', { class: 'chart-label', x: x + CHART.barWidth / 2, y: height - 6, 'text-anchor': 'middle', text: dayLabel(day, today) }),
    );
    drawing.append(group);
  });
  drawing.append(svg('line', { class: 'chart-axis', x1: 0, x2: days.length * CHART.dayWidth, y1: baseline, y2: baseline }));
  return drawing;
}

/** One row per model used in the seven days: today's figures and the week's. @param {KeyEntry} entry @param {string[]} days @param {string} caption */
function modelTable(entry, days, caption) {
  const today = days[days.length - 1];
  /** @type {Map<string, { today?: ModelUsage, week: ModelUsage[] }>} */
  const byModel = new Map();
  for (const day of entry.usage?.days ?? []) {
    if (!days.includes(day.day)) continue;
    for (const model of day.models) {
      const row = byModel.get(model.model) ?? { week: [] };
      row.week.push(model);
      if (day.day === today) row.today = model;
      byModel.set(model.model, row);
    }
  }
  const head = ['Model', 'Requests today', 'Answered today', 'Failed today', 'Tokens in today', 'Tokens out today', 'Requests, 7 days', 'Tokens in, 7 days', 'Tokens out, 7 days'];
  const number = (/** @type {number} */ value) => el('td', { class: 'number', text: value.toLocaleString('en') });
  const rows = [...byModel].map(([model, row]) => {
    const week = totals(row.week);
    const day = row.today;
    return el(
      'tr',
      {},
      el('th', { scope: 'row' }, el('code', { text: model })),
      number(day?.requests ?? 0),
      number(day?.answers ?? 0),
      el('td', { class: 'number', text: day ? `${failureCount(day.failures)}${failureKinds(day.failures) ? ` (${failureKinds(day.failures)})` : ''}` : '0' }),
      number(day?.inputTokens ?? 0),
      number(day?.outputTokens ?? 0),
      number(week.requests),
      number(week.inputTokens),
      number(week.outputTokens),
    );
  });
  return el(
    'div',
    { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': caption },
    el('table', { class: 'usage-table' }, el('caption', { text: caption }), el('thead', {}, el('tr', {}, ...head.map((text) => el('th', { scope: 'col', text })))), el('tbody', {}, ...rows)),
  );
}

/** @param {string} providerName @param {KeyEntry} entry */
function keyUsage(providerName, entry) {
  const name = `${providerName}, key ${entry.position}`;
  const block = el('div', { class: 'usage-key' }, el('h3', { text: name }));
  const days = lastSevenDays();
  const recorded = (entry.usage?.days ?? []).filter((day) => days.includes(day.day));
  if (recorded.length === 0) {
    block.append(el('p', { class: 'note', text: 'No usage yet.' }));
    return block;
  }
  /** @type {Map<string, Totals>} */
  const perDay = new Map(recorded.map((day) => [day.day, totals(day.models)]));
  const today = perDay.get(days[days.length - 1] ?? '') ?? totals([]);
  const week = totals(recorded.flatMap((day) => day.models));
  block.append(
    el('p', { class: 'usage-summary', text: `Today: ${counted(today.requests, 'request')}, ${today.answers} answered, ${today.failures} failed; ${today.inputTokens.toLocaleString('en')} tokens in, ${today.outputTokens.toLocaleString('en')} out${today.cacheHits > 0 ? `; ${counted(today.cacheHits, 'answer')} from the response cache` : ''}. Seven days: ${counted(week.requests, 'request')}, ${week.inputTokens.toLocaleString('en')} tokens in, ${week.outputTokens.toLocaleString('en')} out.` }),
    chart(days, perDay, name),
    el('p', { class: 'legend', 'aria-hidden': 'true' }, el('span', { class: 'swatch swatch-answers' }), ' answered ', el('span', { class: 'swatch swatch-failures' }), ' failed'),
    modelTable(entry, days, `${name}, by model`),
  );
  return block;
}

function renderUsage() {
  const view = byId('usage-view');
  if (Object.keys(currentKeys()).length === 0) {
    view.replaceChildren(el('p', { class: 'note', text: 'Enter a key to see how much of it went where.' }));
    return;
  }
  const blocks = state.providers.flatMap((provider) => (state.keyStates.get(provider.id) ?? []).map((entry) => ({ provider, entry })));
  if (blocks.length === 0 || blocks.every(({ entry }) => entry.usage === undefined)) {
    view.replaceChildren(el('p', { class: 'note', text: 'No usage yet.' }));
    return;
  }
  view.replaceChildren(...blocks.map(({ provider, entry }) => keyUsage(provider.name, entry)));
}

export function wireUsage() {
  onChange('states', renderUsage);
  onChange('keys', renderUsage);
  renderUsage();
}

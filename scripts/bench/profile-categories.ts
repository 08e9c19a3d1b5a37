/**
 * Sums a V8 .cpuprofile's self time by where the code lives (Freeway, the AI
 * SDK, Node's web streams, ...), to show where a request's CPU goes.
 *
 *   node --cpu-prof dist/server/main.js   # drive it with load, then stop it
 *   node scripts/bench/profile-categories.ts CPU.*.cpuprofile
 */
import { readFileSync } from 'node:fs';

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
export interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const express =
  /node_modules\/(express|router|body-parser|raw-body|cors|express-rate-limit|finalhandler|send|on-finished|content-type|mime-types|mime-db|qs|path-to-regexp|depd|statuses|http-errors|iconv-lite|type-is|vary|accepts|negotiator|encodeurl|escape-html|parseurl|fresh|etag|range-parser|media-typer|proxy-addr|forwarded|ipaddr\.js|setprototypeof|debug|ms)\//;

function category(url: string, name: string): string | undefined {
  if (!url) return name === '(idle)' ? 'idle' : name === '(garbage collector)' ? 'garbage collection' : undefined;
  if (/node_modules\/(@ai-sdk|zod|eventsource-parser|secure-json-parse)\//.test(url)) return 'AI SDK (provider-utils, provider packages, zod)';
  if (express.test(url)) return 'Express and its middleware packages';
  if (/node_modules\/(pino|sonic-boom|thread-stream|quick-format-unescaped|safe-stable-stringify|atomic-sleep|on-exit-leak-free)\//.test(url)) return 'pino';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return `package ${pkg[1]}`;
  if (url.startsWith('file://')) return 'Freeway';
  if (url.includes('webstreams')) return 'Node web streams';
  if (url.includes('undici')) return 'undici (Headers, Response)';
  if (/_http|node:http|net|stream_base|streams\/|node:stream/.test(url)) return 'Node http, net and streams';
  if (/task_queues|timers|events|async_hooks|diagnostics/.test(url)) return 'Node events, timers, microtasks';
  return 'Node, other';
}

const profile = JSON.parse(readFileSync(process.argv[2] ?? '', 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
const totals = new Map<string, number>();
profile.samples.forEach((id, i) => {
  let node = byId.get(id);
  let where = node ? category(node.callFrame.url, node.callFrame.functionName) : undefined;
  // Native frames (runMicrotasks, writev, ...) count for the nearest JavaScript caller.
  let up = parent.get(id);
  while (where === undefined && up !== undefined) {
    node = byId.get(up);
    if (node?.callFrame.url) where = category(node.callFrame.url, node.callFrame.functionName);
    up = parent.get(up);
  }
  const key = where ?? 'V8, other';
  totals.set(key, (totals.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
const busy = [...totals].reduce((sum, [key, t]) => (key === 'idle' ? sum : sum + t), 0);
for (const [key, t] of [...totals].sort((a, b) => b[1] - a[1])) {
  if (key !== 'idle') console.log(`${((100 * t) / busy).toFixed(1).padStart(5)}%  ${key}`);
}

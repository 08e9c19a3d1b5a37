/**
 * `npm run attack`: runs every attack in scripts/attack/ (each module that
 * exports `run(): Promise<AttackResult>`) against Freeway in a child process on
 * 127.0.0.1, one after the other, and prints what each one held. Exits 1 when a
 * bound was broken. Loopback only; each attack stops itself, and the whole run
 * is stopped after `--budget` seconds (300).
 *
 *   npm run attack                          all attacks on this checkout
 *   npm run attack -- slow-readers          only the named ones
 *   npm run attack -- --root /path/to/checkout   another checkout of Freeway (figures "before")
 *   npm run attack -- --json                results as JSON, one line each
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { AttackResult } from './attack/types.ts';

interface AttackModule {
  run(options?: { root?: string }): Promise<AttackResult>;
}

const folder = fileURLToPath(new URL('./attack/', import.meta.url));

function parseArgs(argv: readonly string[]): { root: string | undefined; only: string[]; json: boolean; budgetS: number } {
  let root: string | undefined;
  let json = false;
  let budgetS = 300;
  const only: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--root') root = argv[++i];
    else if (arg === '--json') json = true;
    else if (arg === '--budget') budgetS = Number(argv[++i]);
    else only.push(arg.replace(/\.ts$/, ''));
  }
  return { root, only, json, budgetS };
}

/** The attack modules: every .ts file in scripts/attack/ whose module exports `run`. */
async function attacks(only: readonly string[]): Promise<Array<[string, AttackModule]>> {
  const found: Array<[string, AttackModule]> = [];
  for (const file of readdirSync(folder).filter((name) => name.endsWith('.ts')).sort()) {
    const name = file.slice(0, -3);
    if (only.length > 0 && !only.includes(name)) continue;
    const module = (await import(`${folder}${file}`)) as Partial<AttackModule>;
    if (typeof module.run === 'function') found.push([name, module as AttackModule]);
  }
  return found;
}

function table(result: AttackResult, seconds: number): string {
  const rows: Array<[string, string]> = [
    ['held', result.held ? 'yes' : 'NO'],
    ...Object.entries(result.figures).map(([key, value]): [string, string] => [key, String(value)]),
    ['attack seconds', seconds.toFixed(1)],
  ];
  const width = Math.max(...rows.map(([key]) => key.length));
  const line = '-'.repeat(width + 2);
  return [`== ${result.name}`, ...rows.map(([key, value]) => `  ${key.padEnd(width)}  ${value}`), line].join('\n');
}

const { root, only, json, budgetS } = parseArgs(process.argv.slice(2));
const budget = setTimeout(() => {
  process.stderr.write(`attack: stopped after the budget of ${budgetS} s\n`);
  process.exit(2);
}, budgetS * 1000);
budget.unref();

const selected = await attacks(only);
if (selected.length === 0) {
  process.stderr.write(`attack: no attack named ${only.join(', ')} in scripts/attack/\n`);
  process.exit(2);
}
const results: AttackResult[] = [];
const started = performance.now();
for (const [name, module] of selected) {
  const begun = performance.now();
  let result: AttackResult;
  try {
    result = await module.run(root ? { root } : undefined);
  } catch (error) {
    result = { name, held: false, figures: { error: error instanceof Error ? error.message : String(error) } };
  }
  results.push(result);
  const seconds = (performance.now() - begun) / 1000;
  process.stdout.write(json ? `${JSON.stringify({ ...result, seconds: Math.round(seconds * 10) / 10 })}\n` : `${table(result, seconds)}\n`);
}
const broken = results.filter((result) => !result.held).map((result) => result.name);
process.stdout.write(
  `${results.length} attacks in ${((performance.now() - started) / 1000).toFixed(1)} s${root ? ` against ${root}` : ''}: ` +
    (broken.length === 0 ? 'every bound held\n' : `bounds broken by ${broken.join(', ')}\n`),
);
clearTimeout(budget);
process.exit(broken.length === 0 ? 0 : 1);

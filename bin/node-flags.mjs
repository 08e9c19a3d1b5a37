// The Node.js flags Freeway's server runs with, for the `freeway` command and for the
// scripts that measure it. Plain JavaScript, as the command must parse on any Node.
import { totalmem } from 'node:os';

/**
 * V8 sizes its young generation from the memory Node may use: semi-spaces of a
 * 32nd of the old generation (half the memory, at most 4 GB), up to 64 MB. So on
 * any machine with more than 2 GB, a busy Freeway fills and keeps 128 MB of young
 * generation, RSS for garbage. In an interleaved A/B (scripts/bench/young-generation.ts)
 * 32 MB semi-spaces took 60 MB off the peak under 1000 streams and 58 MB under a
 * flood of new clients, for the same garbage-collection time per request (143 µs
 * against 140); 16 MB took 40 MB more but cost 25 to 35 µs of collection per request.
 */
export const youngGeneration = '--max-semi-space-size=32';

/** At 2 GB or less V8 already chooses 32 MB semi-spaces or smaller. */
const youngGenerationFromBytes = 2 * 1024 ** 3;

const youngGenerationFlag = /--max[-_]semi[-_]space[-_]size\b/;

/** The memory V8 sizes its heap from, as Node gives it: the machine's, or the cgroup's limit when lower. */
export function memoryForNode() {
  const total = totalmem();
  const constrained = typeof process.constrainedMemory === 'function' ? process.constrainedMemory() : 0;
  return constrained > 0 ? Math.min(total, constrained) : total;
}

/**
 * The flags to add to a server started with these Node arguments and this
 * environment: none when the user chose a young generation size already (on the
 * command line or in NODE_OPTIONS), or when V8's own choice is no larger.
 */
export function serverNodeFlags(execArgv, env, memoryBytes = memoryForNode()) {
  const chosen = execArgv.some((arg) => youngGenerationFlag.test(arg)) || youngGenerationFlag.test(env.NODE_OPTIONS ?? '');
  return chosen || memoryBytes <= youngGenerationFromBytes ? [] : [youngGeneration];
}

// The Node.js flags Freeway's server runs with, for the `freeway` command and for the
// scripts that measure it. Plain JavaScript, as the command must parse on any Node.
import { totalmem } from 'node:os';

/**
 * V8 sizes its young generation from the memory Node may use: semi-spaces of a
 * 32nd of the old generation (half the memory, at most 4 GB), up to 64 MB. So on
 * any machine with more than 2 GB, a busy Freeway fills and keeps 128 MB of young
 * generation, RSS for garbage. In an interleaved A/B (scripts/bench/heap-flags.ts)
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
 * V8 allocates straight into the old generation at the places in the code whose
 * objects it has seen outlive young collections ("pretenuring"). A busy Freeway
 * has many requests in flight at each collection, so V8 comes to pretenure the
 * per-request objects of the upstream call (the AI SDK's web streams and parsed
 * chunks): they then die in the old generation, and keep the young objects they
 * point to alive through every young collection until a full one. On one core
 * against a mock upstream, without pretenuring a request moves 11.5 kB into the
 * old generation instead of 19 at 16 connections, and 13 instead of 32 to 38
 * streaming at 64; in an interleaved A/B (scripts/bench/heap-flags.ts, four
 * rounds) collection took 63 µs a request instead of 85 at both, CPU per request
 * was 3.7% and 8% lower (medians of the rounds' ratios), and the peak under 1000
 * streams 266 MB against 259.
 */
export const noPretenuring = '--no-allocation-site-pretenuring';

const pretenuringFlag = /--(no[-_])?allocation[-_]site[-_]pretenuring\b/;

/**
 * The flags to add to a server started with these Node arguments and this
 * environment. The young generation size: none when the user chose one already
 * (on the command line or in NODE_OPTIONS), or when V8's own choice is no larger.
 * No pretenuring, unless the user chose either way on the command line (Node does
 * not take the flag in NODE_OPTIONS).
 */
export function serverNodeFlags(execArgv, env, memoryBytes = memoryForNode()) {
  const onCommandLine = (flag) => execArgv.some((arg) => flag.test(arg));
  const flags = [];
  if (!onCommandLine(youngGenerationFlag) && !youngGenerationFlag.test(env.NODE_OPTIONS ?? '') && memoryBytes > youngGenerationFromBytes) flags.push(youngGeneration);
  if (!onCommandLine(pretenuringFlag)) flags.push(noPretenuring);
  return flags;
}

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// A full collection on demand, without starting mocha under --expose-gc: the flag
// set now gives every context created afterwards a `gc` function.
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

/** MB of JavaScript heap in use after full collections: what is really kept. */
export function heapKeptMb(): number {
  collect();
  collect();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

// Freeway's entry point. Node's on-disk compile cache makes every start after
// the first skip most parsing and compiling; it has to be on before the rest loads.
import { enableCompileCache } from 'node:module';

enableCompileCache?.();
await import('./serve.ts');

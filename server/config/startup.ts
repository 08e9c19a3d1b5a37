/** A start-up failure: one line on stderr, exit code 1, never a stack trace. */
export function cannotStart(reason: string): never {
  process.stderr.write(`Freeway cannot start: ${reason}\n`);
  process.exit(1);
}

const listenErrors: Readonly<Record<string, string>> = {
  EADDRINUSE: 'the port is already in use',
  EACCES: 'permission denied (ports below 1024 need privileges)',
  EADDRNOTAVAIL: 'the address is not one of this machine\'s',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name does not resolve',
  EAI_NONAME: 'the host name does not resolve',
};

/** Why listening on host:port failed, in words, for `Freeway cannot start: ...`. */
export function listenFailure(error: unknown, host: string, port: number, settings: string): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const why = (code && listenErrors[code]) ?? (error instanceof Error ? error.message : String(error));
  return `cannot listen on ${host}:${port} (${settings}): ${why}${code ? ` (${code})` : ''}`;
}

/**
 * Key formats that belong to no single provider plugin (tokens a caller may
 * paste by mistake, or that an upstream echoes back). Provider-specific
 * patterns live in each plugin's `keyPatterns`.
 */
export const sharedKeyPatterns: readonly RegExp[] = [
  /github_pat_[A-Za-z0-9_]+/,
  /ghp_[A-Za-z0-9]+/,
];

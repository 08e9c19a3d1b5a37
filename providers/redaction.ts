/**
 * Key formats that belong to no single provider plugin (tokens a caller may
 * paste by mistake, or that an upstream echoes back), and those of providers
 * Freeway has no plugin for (GitHub's, Hugging Face's): a caller may still send
 * one, and an upstream may quote it. Provider-specific patterns live in each
 * plugin's `keyPatterns`.
 */
export const sharedKeyPatterns: readonly RegExp[] = [
  /github_pat_[A-Za-z0-9_]+/,
  /ghp_[A-Za-z0-9]+/,
  // Hugging Face's user access tokens: `hf_` and 34 letters and digits (https://huggingface.co/docs/hub/security-tokens).
  // Not inside a word or after a hyphen, and eight or more, so that no model id (`…-hf_quantized`) is taken for one.
  /(?<![\w-])hf_[A-Za-z0-9]{8,}/,
];

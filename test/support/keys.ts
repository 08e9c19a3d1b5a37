/**
 * One realistic-looking key per provider, each in the provider's own format
 * where it has one, so that redaction and log tests search for real shapes.
 * Like real keys they are random: no word of a message (a provider's name)
 * is a run of 8 characters of one, which redaction would take out.
 */
export const testKeys: Readonly<Record<string, string>> = {
  groq: 'gsk_Q7vT2mXp9LcR4wZk8bNf3HjY6sDa1Ue5',
  google: 'AIzaSyB4xK9mQ2vL7pT3wR8nZ5cJ1hF6gD0sE-k',
  openrouter: 'sk-or-v1-8f3a9c2e7b1d4f6a0c5e9b3d7f1a4c8e',
  cloudflare: 'a1b2c3d4e5f60718293a4b5c6d7e8f90:CFq8Zt3Lm7Xw2Rk9Pv4Nj6Hb1Yc5Td0Gs',
  nvidia: 'nvapi-Xk4Tq9Lm2Zp7Rw3Nv8Bj5Hc1Yf6Gd0Ss-Ua',
  cerebras: 'csk-m4x9q2w7e5r8t3y6u1i0o4p7a2s5d8f3g6',
  together: 'tgp_v1_Zq3Xw8Ec5Rv2Tb7Yn4Um9Ik1Ol6Pa0Sd',
  fireworks: 'fw_Bv7Nc2Mx5Lz8Ka3Js6Hd9Gf1Ds4Ap0Qw',
  mistral: 'Wq8Er3Ty6Ui1Op4As7Df2Gh5Jk9Lz0Xc',
  sambanova: '6f1d2a7c-3b8e-4f90-a5c1-d2e7f3a8b4c9',
  deepseek: 'sk-7c2e9a4f1b6d3e8a5c0f2b7d4e9a1c6f',
  deepinfra: 'Mn4Bv9Cx2Zl7Kj3Hg8Fd5Sa1Qw6Er0TyUi',
  cohere: 'Pk7Ol2Ij9Uh4Yg8Tf3Rd6Es1Wa5Qz0XcVbNm',
};

export const headerFor = (provider: string): string => `X-${provider.charAt(0).toUpperCase()}${provider.slice(1)}-Key`;

/** Headers that send the keys of the given providers. */
export function keyHeaders(...providers: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const provider of providers) {
    const key = testKeys[provider];
    if (!key) throw new Error(`no test key for ${provider}`);
    headers[headerFor(provider)] = key;
  }
  return headers;
}

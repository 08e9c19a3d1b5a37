import type { ProviderFixtures } from '../types.ts';

const API_GUIDE = 'https://docs.sea-lion.ai/guides/inferencing/api';

const fixtures: ProviderFixtures = {
  // The key format is not documented: a made-up random value.
  sampleKey: 'Qz4Wm8Rk2Tn6Vx1Bp9Hc3Jf7Ld5Gs0Ya',
  listing: {
    // `curl 'https://api.sea-lion.ai/v1/models' -H 'Authorization: Bearer YOUR_API_KEY'`: OpenAI's list (API_GUIDE).
    source: `${API_GUIDE} (Step 1. Find the Available Models)`,
    body: {
      object: 'list',
      data: [
        { id: 'aisingapore/Gemma-SEA-LION-v4-27B-IT', object: 'model' },
        { id: 'aisingapore/Llama-SEA-LION-v3.5-70B-R', object: 'model' },
      ],
    },
    expected: [
      { id: 'aisingapore/Gemma-SEA-LION-v4-27B-IT', kind: 'chat', free: true },
      { id: 'aisingapore/Llama-SEA-LION-v3.5-70B-R', kind: 'chat', free: true },
    ],
  },
  errors: [
    {
      // The guide's Rate Limits section: 10 requests a minute; no body or Retry-After quoted.
      source: `${API_GUIDE} (Rate Limits)`,
      name: 'per-minute rate limit',
      status: 429,
      body: '',
      kind: 'rate_limited',
      retryAfter: 60,
    },
    {
      // A missing or wrong Bearer key; no body quoted.
      source: `${API_GUIDE} (How To Use Your API Key)`,
      name: 'invalid key',
      status: 401,
      body: '',
      kind: 'invalid_key',
    },
  ],
};

export default fixtures;

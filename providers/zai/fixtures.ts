import type { ProviderFixtures } from '../types.ts';
import { CONCURRENCY_WAIT_MS } from './index.ts';

/** Z.AI's error page: "a top-level error object that includes a `code` and `message` value" (read 2026-11-27). */
const errors = 'https://docs.z.ai/api-reference/api-code';

/** Z.AI's documented error shape. */
const zaiError = (code: string, message: string): unknown => ({ error: { code, message } });

const fixtures: ProviderFixtures = {
  // 32 hexadecimal characters, a dot, 16 letters and digits, as keys are publicly shown.
  sampleKey: '4f9a2c7e1b8d4e3fa6c05d9e2b7f1a83.Tq7Lm2Xw9Rk4Zp6V',
  // The end user goes as `user_id`, Z.AI's name for it; no parallel-call switch is documented.
  wire: { omittedFields: ['user', 'parallel_tool_calls'] },
  errors: [
    {
      // A second request while the free model's one slot is taken.
      source: `${errors} (1302); body quoted in https://github.com/kaitranntt/ccs/issues/402`,
      name: 'concurrency limit (1302): a short wait',
      status: 429,
      body: zaiError('1302', 'High concurrency usage of this API, please reduce concurrency or contact customer service to increase limits'),
      kind: 'rate_limited',
      retryAfter: CONCURRENCY_WAIT_MS / 1000,
    },
    {
      // The free glm-4.7-flash on the general endpoint, as a user measured it (2026-08-29).
      source: `${errors} (1305); body quoted in https://github.com/NousResearch/hermes-agent/pull/98111`,
      name: 'service overloaded (1305)',
      status: 429,
      body: zaiError('1305', 'The service may be temporarily overloaded, please try again later'),
      kind: 'server',
    },
    {
      // A paid model with an empty balance; the same key still serves the free Flash models.
      source: `${errors} (1113); body quoted in https://github.com/zai-org/GLM-5/issues/49 and https://github.com/zai-org/GLM-5/issues/148`,
      name: 'no balance for a paid model (1113)',
      status: 429,
      body: zaiError('1113', 'Insufficient balance or no resource package. Please recharge.'),
      kind: 'model_unavailable',
    },
    {
      source: `${errors} (1211); HTTP 400 with this code and message in https://github.com/JailbrokenAI/wallbreaker/issues/20 and https://github.com/VladoIvankovic/Codeep/releases/tag/v2.11.1`,
      name: 'unknown model (1211)',
      status: 400,
      body: zaiError('1211', 'Unknown Model, please check the model code.'),
      kind: 'model_unavailable',
    },
    {
      source: 'https://docs.bigmodel.cn/cn/api/api-code (1261); body quoted in https://github.com/zeroclaw-labs/zeroclaw/issues/4124',
      name: 'prompt exceeds max length (1261)',
      status: 400,
      body: zaiError('1261', 'Prompt exceeds max length'),
      kind: 'context_too_long',
    },
    {
      // The page's own example: "401 is the HTTP status code and 1002 is the business error code".
      source: `${errors} (Error Example)`,
      name: 'invalid token (1002)',
      status: 401,
      body: zaiError('1002', 'Authorization Token is invalid, please ensure that the Authorization Token is correctly provided.'),
      kind: 'invalid_key',
    },
    {
      source: 'message quoted in https://github.com/autohandai/code-cli/issues/206; the `"code":"401"` envelope in https://github.com/zhipuai/zhipuai-sdk-python/issues/25',
      name: 'token expired or incorrect',
      status: 401,
      body: zaiError('401', 'token expired or incorrect'),
      kind: 'invalid_key',
    },
  ],
};

export default fixtures;

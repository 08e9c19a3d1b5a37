import type { ProviderFixtures } from '../types.ts';

const topUp = 'https://vercel.com/d?to=%2F%5Bteam%5D%2F%7E%2Fai%3Fmodal%3Dtop-up';
const restricted = `Free credits temporarily have restricted access due to abuse. We are working on a resolution. Paid credits continue to have unrestricted access. Purchase credits at ${topUp}`;

/** One entry of GET /v1/models, with the fields Roo Code's fetcher reads (RooCodeInc/Roo-Code, src/api/providers/fetchers/vercel-ai-gateway.ts). */
const listed = (id: string, type: string, extra: Record<string, unknown>): unknown => ({
  id,
  object: 'model',
  created: 1787443200,
  owned_by: id.split('/')[0],
  name: id.split('/')[1],
  description: '',
  type,
  ...extra,
});

const fixtures: ProviderFixtures = {
  sampleKey: 'vck_EfWkM7EK4BJf6Ku5AJ7GkExJnHB9tSjqun7Pkol3nrewRTp2OzRYYEg0',
  listing: {
    // The answer's shape as Roo Code's fetcher and tests read it; the first two entries' windows, output
    // limits and prices as the public listing gave them on 2026-08-23 (0xzr/freellmpool
    // docs/VERCEL_ACCEPTANCE_2026-08-23.md: DeepSeek V4 Flash 0731 at $0.076 / $0.153 per 1M tokens,
    // Laguna S 2.1 Free with every price zero).
    source:
      'https://vercel.com/docs/ai-gateway/sdks-and-apis/rest-api; entries as read in https://github.com/0xzr/freellmpool/blob/main/docs/VERCEL_ACCEPTANCE_2026-08-23.md and https://github.com/RooCodeInc/Roo-Code/blob/main/src/api/providers/fetchers/vercel-ai-gateway.ts',
    body: {
      object: 'list',
      data: [
        listed('deepseek/deepseek-v4-flash-0731', 'language', {
          context_window: 1000000,
          max_tokens: 384000,
          tags: ['reasoning', 'tool-use', 'implicit-caching'],
          pricing: { input: '0.000000076', output: '0.000000153' },
        }),
        listed('poolside/laguna-s-2.1-free', 'language', { context_window: 256000, max_tokens: 32768, tags: ['tool-use'], pricing: { input: '0', output: '0' } }),
        listed('openai/text-embedding-3-small', 'embedding', { context_window: 8192, max_tokens: 0, pricing: { input: '0.00000002' } }),
        listed('openai/gpt-image-1', 'image', { pricing: {} }),
      ],
    },
    expected: [
      { id: 'deepseek/deepseek-v4-flash-0731', kind: 'chat', free: false },
      { id: 'poolside/laguna-s-2.1-free', kind: 'chat', free: true },
      { id: 'openai/text-embedding-3-small', kind: 'embedding', free: false },
      { id: 'openai/gpt-image-1', kind: 'other', free: false },
    ],
  },
  errors: [
    {
      // The same body reached Claude Code through the gateway's Anthropic endpoint with a $0 balance.
      source: 'body quoted in https://community.vercel.com/t/vercel-ai-gateway-billing-credits-instead-of-claude-max-subscription-pass-through-in-claude-code/37001/5 and https://github.com/kuangquanshuisn/blink2api/issues/1 (HTTP 402)',
      name: 'credit spent (HTTP 402 insufficient_funds)',
      status: 402,
      body: {
        error: {
          message: `Insufficient funds. Please add credits to your account to continue using AI services. Visit https://vercel.com/d?to=%2F%5Bteam%5D%2F%7E%2Fai%3Fmodal%3Dtop-up to top up your credits.`,
          type: 'insufficient_funds',
        },
      },
      kind: 'no_credit',
    },
    {
      // The type is quoted in 0xzr/freellmpool docs/VERCEL_ACCEPTANCE_2026-08-23.md (HTTP 403); the message, which
      // @ai-sdk/gateway passes on as a GatewayInternalServerError, in arlanrakh/talk-to-girlfriend-ai#6.
      source: 'https://github.com/arlanrakh/talk-to-girlfriend-ai/issues/6 and https://github.com/0xzr/freellmpool/blob/main/docs/VERCEL_ACCEPTANCE_2026-08-23.md',
      name: 'no card on file (HTTP 403 customer_verification_required)',
      status: 403,
      body: {
        error: {
          message: 'AI Gateway requires a valid credit card on file to service requests. Please visit https://vercel.com/d?to=%2F%5Bteam%5D%2F%7E%2Fai%3Fmodal%3Dadd-credit-card to add a card and unlock your free credits.',
          type: 'customer_verification_required',
        },
      },
      kind: 'no_credit',
    },
    {
      source: 'body quoted in https://community.vercel.com/t/why-vercel-ai-gateway-returns-restrictedmodelserror-for-gemini-3-on-free-tier/38132 (HTTP 403, google/gemini-3 models, 2026-04-10)',
      name: 'model restricted on the free credit (HTTP 403 RestrictedModelsError)',
      status: 403,
      body: { error: { message: restricted, type: 'no_providers_available', param: { error: restricted, type: 'no_providers_available', statusCode: 403, name: 'RestrictedModelsError', message: restricted } } },
      kind: 'model_unavailable',
    },
    {
      source: 'body quoted in https://community.vercel.com/t/ai-gateway-returns-403-forbidden-despite-valid-payment-method-and-free-credits/42526 (HTTP 403, deepseek/deepseek-v4-flash, 2026-05-25)',
      name: 'model not on the free tier (HTTP 403, "Free tier users do not have access to this model")',
      status: 403,
      body: {
        error: {
          message: 'Free tier users do not have access to this model. Upgrade to paid credits at Vercel for unrestricted access.',
          type: 'no_providers_available',
          param: {
            error: 'Free tier users do not have access to this model. Upgrade to paid credits at Vercel for unrestricted access.',
            type: 'no_providers_available',
            statusCode: 403,
            name: 'RestrictedModelsError',
            message: 'Free tier users do not have access to this model. Upgrade to paid credits at Vercel for unrestricted access.',
          },
        },
      },
      kind: 'model_unavailable',
    },
    {
      // The message as @ai-sdk/gateway's GatewayRateLimitError carries it (error type rate_limit_exceeded).
      source: 'message quoted in https://community.vercel.com/t/free-credits-temporarily-have-restricted-access-due-to-abuse/21461; https://vercel.com/docs/ai-gateway/rate-limits',
      name: 'free credit rate limited (HTTP 429)',
      status: 429,
      body: {
        error: {
          message: `Free credits temporarily have rate limits in place due to abuse. We are working on a resolution. Try again later, or pay for credits which continue to have unrestricted access. Purchase credits at ${topUp}`,
          type: 'rate_limit_exceeded',
        },
      },
      kind: 'rate_limited',
      retryAfter: 60,
    },
    {
      // The raw body is not quoted publicly: the message as the AI SDK reports it (nuxt/ui#6376), in the
      // gateway's envelope with the type @ai-sdk/gateway reads as an authentication failure.
      source: 'https://github.com/nuxt/ui/issues/6376 (AI Gateway authentication failed: Invalid API key); type from @ai-sdk/gateway src/errors/create-gateway-error.ts',
      name: 'invalid API key (HTTP 401)',
      status: 401,
      body: { error: { message: 'Invalid API key', type: 'authentication_error' } },
      kind: 'invalid_key',
    },
  ],
};

export default fixtures;

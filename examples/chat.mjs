// A chat completion through Freeway with the official openai SDK.
//   npm install openai
//   GROQ_API_KEY=gsk_... node examples/chat.mjs
import OpenAI from 'openai';

const baseURL = `${process.env.FREEWAY_URL ?? 'http://localhost:3000'}/v1`;
// Freeway reads provider keys from X-<Provider>-Key headers; send those you have.
const keyHeaders = Object.fromEntries(
  [
    ['X-Groq-Key', process.env.GROQ_API_KEY],
    ['X-Cerebras-Key', process.env.CEREBRAS_API_KEY],
    ['X-Google-Key', process.env.GOOGLE_API_KEY],
  ].filter(([, key]) => key),
);

// Freeway has no key of its own: the SDK's apiKey is a placeholder it ignores.
const client = new OpenAI({ baseURL, apiKey: 'unused', defaultHeaders: keyHeaders });

const { data: completion, response } = await client.chat.completions
  .create({ model: 'free:auto', messages: [{ role: 'user', content: 'Say hello in five words.' }] })
  .withResponse();

console.log(completion.choices[0].message.content);
console.log(`answered by ${response.headers.get('x-freeway-model')} (attempts: ${response.headers.get('x-freeway-attempts')})`);
console.log(`tokens: ${completion.usage.prompt_tokens} in, ${completion.usage.completion_tokens} out`);

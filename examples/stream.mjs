// A streamed chat completion through Freeway with the official openai SDK.
//   npm install openai
//   GROQ_API_KEY=gsk_... node examples/stream.mjs
import OpenAI from 'openai';

const baseURL = `${process.env.FREEWAY_URL ?? 'http://localhost:3000'}/v1`;
const keyHeaders = Object.fromEntries(
  [
    ['X-Groq-Key', process.env.GROQ_API_KEY],
    ['X-Cerebras-Key', process.env.CEREBRAS_API_KEY],
    ['X-Google-Key', process.env.GOOGLE_API_KEY],
  ].filter(([, key]) => key),
);
const client = new OpenAI({ baseURL, apiKey: 'unused', defaultHeaders: keyHeaders });

const stream = await client.chat.completions.create({
  model: 'free:fast',
  stream: true,
  stream_options: { include_usage: true },
  messages: [{ role: 'user', content: 'Count from 1 to 5.' }],
});

let usage;
for await (const chunk of stream) {
  process.stdout.write(chunk.choices[0]?.delta?.content ?? '');
  usage = chunk.usage ?? usage;
}
process.stdout.write('\n');
if (usage) console.log(`tokens: ${usage.prompt_tokens} in, ${usage.completion_tokens} out`);

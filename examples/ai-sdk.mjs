// Freeway as a provider of the AI SDK (https://ai-sdk.dev), through @ai-sdk/openai-compatible.
//   npm install ai @ai-sdk/openai-compatible
//   GROQ_API_KEY=gsk_... node examples/ai-sdk.mjs
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, streamText } from 'ai';

const freeway = createOpenAICompatible({
  name: 'freeway',
  baseURL: `${process.env.FREEWAY_URL ?? 'http://localhost:3000'}/v1`,
  headers: Object.fromEntries(
    [
      ['X-Groq-Key', process.env.GROQ_API_KEY],
      ['X-Cerebras-Key', process.env.CEREBRAS_API_KEY],
      ['X-Google-Key', process.env.GOOGLE_API_KEY],
    ].filter(([, key]) => key),
  ),
  // Streams end with a usage chunk (stream_options.include_usage), so streamed calls report tokens too.
  includeUsage: true,
  // response_format json_schema is passed on to the providers, which honour it.
  supportsStructuredOutputs: true,
});

const { text, usage } = await generateText({ model: freeway('free:auto'), prompt: 'Why is the sky blue? One sentence.' });
console.log(text);
console.log(`tokens: ${usage.inputTokens} in, ${usage.outputTokens} out`);

const streamed = streamText({ model: freeway('free:fast'), prompt: 'Name three colours.' });
for await (const piece of streamed.textStream) process.stdout.write(piece);
process.stdout.write('\n');
const streamedUsage = await streamed.usage;
console.log(`streamed tokens: ${streamedUsage.inputTokens} in, ${streamedUsage.outputTokens} out`);

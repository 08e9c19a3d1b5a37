/**
 * `POST /v1/responses` with the clients whose default is the Responses API:
 * the AI SDK's `openai(model)` from @ai-sdk/openai and @openai/agents' default
 * model, each pointed at Freeway on 127.0.0.1 as the README shows, with a fake
 * OpenAI-compatible upstream behind it.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { Agent, run, setDefaultOpenAIClient, setTracingDisabled, tool as agentTool } from '@openai/agents';
import { generateText, Output, stepCountIs, streamText, tool } from 'ai';
import { expect } from 'chai';
import OpenAI from 'openai';
import { z } from 'zod';
import type { RunningFreeway } from '../support/freeway.ts';
import { keyHeaders } from '../support/keys.ts';
import { freewayOverOneUpstream } from '../support/suite.ts';
import { openAISSE, openAIText, openAIToolCall, usage, type FakeUpstream, type SeenRequest, type UpstreamHandler } from '../support/upstream.ts';

type Message = { role: string; content: unknown; tool_calls?: unknown; tool_call_id?: string };
const messagesOf = (request: SeenRequest | undefined): Message[] => (request?.body?.messages ?? []) as Message[];

/** First a tool call, then, once the tool's result is in the conversation, a text answer. */
function toolThenText(name: string, args: string, text: string): UpstreamHandler {
  return (req, res) => {
    if (messagesOf(req).some((message) => message.role === 'tool')) openAIText(res, text, req);
    else openAIToolCall(res, name, args);
  };
}

describe('POST /v1/responses with the AI SDK and @openai/agents', function () {
  let upstream: FakeUpstream;
  let freeway: RunningFreeway;

  const suite = freewayOverOneUpstream(['cerebras']);
  before(function () {
    ({ upstream, freeway } = suite);
  });

  describe("AI SDK: createOpenAI's default model (Responses API)", function () {
    const freewayProvider = () => createOpenAI({ baseURL: `${freeway.url}/v1`, apiKey: 'unused', headers: keyHeaders('cerebras') });

    it('generateText returns the text and the usage', async function () {
      const result = await generateText({ model: freewayProvider()('free:auto'), system: 'Be brief.', prompt: 'Say hello', temperature: 0.2, maxOutputTokens: 64 });
      expect(result.text).to.equal('Hello there friend');
      expect(result.finishReason).to.equal('stop');
      expect(result.usage.inputTokens).to.equal(7);
      expect(result.usage.outputTokens).to.equal(3);
      expect(result.response.modelId).to.equal('free:auto');
      expect(result.response.headers?.['x-freeway-provider']).to.equal('cerebras');
      const request = upstream.requests[0];
      expect(messagesOf(request)).to.deep.equal([
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Say hello' },
      ]);
      expect(request?.body?.temperature).to.equal(0.2);
      expect(request?.body?.max_tokens).to.equal(64);
    });

    it('streamText streams the text deltas and finishes', async function () {
      const result = streamText({ model: freewayProvider()('free:auto'), prompt: 'Say hello' });
      const deltas: string[] = [];
      for await (const delta of result.textStream) deltas.push(delta);
      expect(deltas.join('')).to.equal('Hello there friend');
      expect(deltas.length).to.be.greaterThan(1);
      expect(await result.finishReason).to.equal('stop');
      expect((await result.usage).outputTokens).to.equal(3);
    });

    it('generateText with a tool runs the tool and answers from its result over two requests', async function () {
      upstream.handle(toolThenText('weather', '{"city":"Paris"}', 'It is sunny in Paris.'));
      let called: unknown;
      const result = await generateText({
        model: freewayProvider()('free:tool-use'),
        providerOptions: { openai: { store: false } },
        tools: {
          weather: tool({
            description: 'Weather in a city',
            inputSchema: z.object({ city: z.string() }),
            execute: async (input) => {
              called = input;
              return 'Sunny, 21 degrees';
            },
          }),
        },
        stopWhen: stepCountIs(3),
        prompt: 'What is the weather in Paris?',
      });
      expect(called).to.deep.equal({ city: 'Paris' });
      expect(result.text).to.equal('It is sunny in Paris.');
      expect(result.steps).to.have.length(2);
      expect(upstream.requests).to.have.length(2);
      const tools = upstream.requests[0]?.body?.tools as Array<{ function: { name: string; parameters: { properties: Record<string, unknown> } } }>;
      expect(tools.map((t) => t.function.name)).to.deep.equal(['weather']);
      expect(Object.keys(tools[0]?.function.parameters.properties ?? {})).to.deep.equal(['city']);
      const second = messagesOf(upstream.requests[1]);
      expect(second.map((message) => message.role)).to.deep.equal(['user', 'assistant', 'tool']);
      expect(second[1]?.tool_calls).to.deep.equal([{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }]);
      expect(second[2]).to.deep.include({ tool_call_id: 'call_1' });
      expect(String(second[2]?.content)).to.include('Sunny, 21 degrees');
    });

    describe('a step that says something before its tool call', function () {
      /** "Let me check." and a tool call in one answer, then the final text. */
      const textAndCall: UpstreamHandler = (req, res) => {
        if (messagesOf(req).some((message) => message.role === 'tool')) {
          openAIText(res, 'Sunny in Paris.', req);
          return;
        }
        openAISSE(res, [
          { choices: [{ index: 0, delta: { role: 'assistant', content: 'Let me check.' }, finish_reason: null }] },
          { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_7', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }] }, finish_reason: null }] },
          { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }], usage },
        ]);
      };
      const weather = tool({ inputSchema: z.object({ city: z.string() }), execute: async () => 'Sunny' });

      it('with store: false the AI SDK sends the whole message back and the run completes', async function () {
        upstream.handle(textAndCall);
        const result = await generateText({
          model: freewayProvider()('free:tool-use'),
          providerOptions: { openai: { store: false } },
          tools: { weather },
          stopWhen: stepCountIs(3),
          prompt: 'Weather in Paris?',
        });
        expect(result.text).to.equal('Sunny in Paris.');
        const second = messagesOf(upstream.requests[1]);
        expect(second[1]).to.deep.include({ role: 'assistant', content: 'Let me check.' });
        expect(second[1]?.tool_calls).to.have.length(1);
      });

      it("with the AI SDK's default it refers to the stored message by id, which Freeway refuses by name", async function () {
        upstream.handle(textAndCall);
        let message = '';
        try {
          await generateText({ model: freewayProvider()('free:tool-use'), tools: { weather }, stopWhen: stepCountIs(3), prompt: 'Weather in Paris?', maxRetries: 0 });
        } catch (error) {
          message = (error as Error).message;
        }
        expect(message).to.include('Freeway keeps no state').and.include('providerOptions.openai.store');
        expect(upstream.requests).to.have.length(1);
      });
    });

    it('streamText with a tool streams the call, runs it and streams the answer', async function () {
      upstream.handle(toolThenText('weather', '{"city":"Rome"}', 'Rome is warm.'));
      const result = streamText({
        model: freewayProvider()('free:tool-use'),
        tools: { weather: tool({ inputSchema: z.object({ city: z.string() }), execute: async ({ city }) => `Warm in ${city}` }) },
        stopWhen: stepCountIs(3),
        prompt: 'Weather in Rome?',
      });
      const parts: string[] = [];
      for await (const part of result.fullStream) parts.push(part.type);
      expect(parts).to.include('tool-call');
      expect(parts).to.include('tool-result');
      expect(await result.text).to.equal('Rome is warm.');
      expect(upstream.requests).to.have.length(2);
    });

    it('structured output with a zod schema goes upstream as json_schema', async function () {
      upstream.handle((req, res) => openAIText(res, '{"city":"Paris"}', req));
      const result = await generateText({
        model: freewayProvider()('free:auto'),
        output: Output.object({ schema: z.object({ city: z.string() }) }),
        prompt: 'Capital of France?',
      });
      expect(result.output).to.deep.equal({ city: 'Paris' });
      const format = upstream.requests[0]?.body?.response_format as { type: string };
      expect(['json_schema', 'json_object']).to.include(format.type);
    });

    it('an AI SDK error from Freeway names the refused field', async function () {
      const result = generateText({
        model: freewayProvider()('free:auto'),
        providerOptions: { openai: { previousResponseId: 'resp_1' } },
        prompt: 'Continue',
        maxRetries: 0,
      });
      let message = '';
      try {
        await result;
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).to.include('previous_response_id: Freeway keeps no state');
    });
  });

  describe('@openai/agents with its default (Responses) model', function () {
    before(function () {
      setTracingDisabled(true);
    });

    it('an Agent run calls a function tool and answers from its result', async function () {
      upstream.handle(toolThenText('get_weather', '{"city":"Paris"}', 'Paris is sunny today.'));
      setDefaultOpenAIClient(new OpenAI({ baseURL: `${freeway.url}/v1`, apiKey: 'unused', defaultHeaders: keyHeaders('cerebras'), maxRetries: 0 }));
      let called: unknown;
      const weather = agentTool({
        name: 'get_weather',
        description: 'Weather in a city',
        parameters: z.object({ city: z.string() }),
        execute: async (input) => {
          called = input;
          return 'Sunny, 21 degrees';
        },
      });
      const agent = new Agent({ name: 'Assistant', instructions: 'Use the tools.', model: 'free:tool-use', tools: [weather] });
      const result = await run(agent, 'What is the weather in Paris?');
      expect(called).to.deep.equal({ city: 'Paris' });
      expect(result.finalOutput).to.equal('Paris is sunny today.');
      expect(upstream.requests).to.have.length(2);
      const second = messagesOf(upstream.requests[1]);
      expect(second.map((message) => message.role)).to.deep.equal(['system', 'user', 'assistant', 'tool']);
      expect(second[0]?.content).to.equal('Use the tools.');
      expect(second[3]).to.deep.include({ tool_call_id: 'call_1' });
      expect(String(second[3]?.content)).to.include('Sunny, 21 degrees');
    });

    it('a streamed Agent run streams the answer text', async function () {
      setDefaultOpenAIClient(new OpenAI({ baseURL: `${freeway.url}/v1`, apiKey: 'unused', defaultHeaders: keyHeaders('cerebras'), maxRetries: 0 }));
      const agent = new Agent({ name: 'Assistant', model: 'free:auto' });
      const result = await run(agent, 'Say hello', { stream: true });
      const text: string[] = [];
      for await (const chunk of result.toTextStream()) text.push(chunk);
      await result.completed;
      expect(text.join('')).to.equal('Hello there friend');
      expect(result.finalOutput).to.equal('Hello there friend');
    });
  });
});

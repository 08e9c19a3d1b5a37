/**
 * `POST /v1/responses` with the tool list Codex CLI sends by default: function
 * tools, a `namespace` tool grouping functions, and OpenAI's hosted
 * `web_search`. The model is offered every function (namespaced ones as
 * `<namespace>__<name>`), calls come back under the client's own name and
 * namespace, and the hosted tool is left out (X-Freeway-Dropped-Tools) or, with
 * HOSTED_TOOLS=reject, refused.
 */
import { Ajv } from 'ajv';
import { expect } from 'chai';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { keyHeaders } from '../support/keys.ts';
import { freewayOverOneUpstream } from '../support/suite.ts';
import { checkAgainstSDKTypes, postResponses } from '../support/responses.ts';
import { responseEvents } from '../support/sse.ts';
import { openAIText, openAIToolCall, startUpstream, type FakeUpstream, type SeenRequest } from '../support/upstream.ts';

/*
 * The tools as codex-cli 0.169.0 sent them (`codex exec`, captured on
 * 2026-11-25 against a local server), cut to one function, the `multi_agent_v1`
 * namespace with two of its functions, and `web_search`. Their shapes are those
 * of openai/codex codex-rs/tools/src/tool_spec.rs (`ToolSpec::Namespace`,
 * `ToolSpec::WebSearch`) and responses_api.rs (`ResponsesApiNamespace`).
 */
const execCommand = {
  type: 'function',
  name: 'exec_command',
  description: 'Runs a command in a PTY, returning output or a session ID for ongoing interaction.',
  strict: false,
  parameters: {
    type: 'object',
    properties: { cmd: { type: 'string', description: 'Shell command to execute.' }, workdir: { type: 'string', description: 'Working directory for the command. Defaults to the turn cwd.' } },
    required: ['cmd'],
    additionalProperties: false,
  },
};
const multiAgent = {
  type: 'namespace',
  name: 'multi_agent_v1',
  description: 'Tools for spawning and managing sub-agents.',
  tools: [
    {
      type: 'function',
      name: 'close_agent',
      description: 'Close an agent and any open descendants when they are no longer needed.',
      strict: false,
      parameters: { type: 'object', properties: { target: { type: 'string', description: 'Agent id to close (from spawn_agent).' } }, required: ['target'], additionalProperties: false },
    },
    {
      type: 'function',
      name: 'resume_agent',
      description: 'Resume a previously closed agent by id so it can receive send_input and wait_agent calls.',
      strict: false,
      parameters: { type: 'object', properties: { id: { type: 'string', description: 'Agent id to resume.' } }, required: ['id'], additionalProperties: false },
    },
  ],
};
const webSearch = { type: 'web_search', external_web_access: false };
const codexTools = [execCommand, multiAgent, webSearch];

/** A hosted MCP server as OpenAI's `Tool.Mcp` describes it, with a bearer token that must go nowhere. */
const mcpToken = 'mcp-secret-token-0123456789abcdef';
const hostedMcp = { type: 'mcp', server_label: 'deepwiki', server_url: 'https://mcp.example/sse', authorization: mcpToken, require_approval: 'never' };

/*
 * `response.function_call_arguments.done` as OpenAI's published OpenAPI schema
 * states it (quoted by docs.rs/agentsdk-openai, ResponseFunctionCallArgumentsDoneEvent,
 * read 2026-11-25): `name` is required, as are the other five fields.
 */
const argumentsDoneSchema = {
  type: 'object',
  required: ['arguments', 'item_id', 'name', 'output_index', 'sequence_number', 'type'],
  properties: {
    arguments: { type: 'string' },
    item_id: { type: 'string' },
    name: { type: 'string' },
    output_index: { type: 'integer' },
    sequence_number: { type: 'integer' },
    type: { type: 'string', enum: ['response.function_call_arguments.done'] },
  },
};
const validateArgumentsDone = new Ajv({ strict: false }).compile(argumentsDoneSchema);

const seen = (upstream: FakeUpstream, index = 0): SeenRequest => {
  const request = upstream.requests[index];
  if (!request) throw new Error(`the upstream saw no request #${index}`);
  return request;
};

/** The function names the upstream was offered. */
const offered = (request: SeenRequest): string[] =>
  ((request.body?.tools ?? []) as Array<{ function: { name: string } }>).map((tool) => tool.function.name);

/** The request's log line (JSON). */
function logLine(freeway: RunningFreeway, path: RegExp): Record<string, unknown> {
  const line = freeway.logs.filter((text) => path.test(text)).at(-1);
  if (line === undefined) throw new Error(`no log line matches ${path}`);
  return JSON.parse(line) as Record<string, unknown>;
}

describe("Codex CLI's default tools on /v1/responses", function () {
  const suite = freewayOverOneUpstream(['cerebras']);
  const headers = keyHeaders('cerebras');

  it('answers 200: the functions of the namespace are offered, web_search is left out and named in X-Freeway-Dropped-Tools', async function () {
    const reply = await postResponses(suite.freeway.url, { model: 'free:tool-use', input: 'List the files', tools: codexTools }, headers);
    expect(reply.status, reply.text).to.equal(200);
    expect(reply.headers.get('x-freeway-dropped-tools')).to.equal('web_search');
    expect(offered(seen(suite.upstream))).to.deep.equal(['exec_command', 'multi_agent_v1__close_agent', 'multi_agent_v1__resume_agent']);
    const sent = (seen(suite.upstream).body?.tools ?? []) as Array<{ function: { description: string; parameters: unknown } }>;
    expect(sent[2]?.function.description).to.equal(multiAgent.tools[1]?.description);
    expect(sent[2]?.function.parameters).to.deep.equal(multiAgent.tools[1]?.parameters);
    // The Response echoes the function and namespace tools it took, not the dropped one.
    expect(reply.json.tools.map((tool: { type: string; name: string }) => `${tool.type}:${tool.name}`)).to.deep.equal(['function:exec_command', 'namespace:multi_agent_v1']);
    expect(reply.json.tools[1].tools.map((tool: { name: string }) => tool.name)).to.deep.equal(['close_agent', 'resume_agent']);
  });

  it("a call of a namespaced function comes back under the client's name and namespace", async function () {
    suite.upstream.handle((_req, res) => openAIToolCall(res, 'multi_agent_v1__resume_agent', '{"id":"agent-7"}'));
    const reply = await postResponses(suite.freeway.url, { model: 'free:tool-use', input: 'Resume agent 7', tools: codexTools }, headers);
    expect(reply.status, reply.text).to.equal(200);
    const call = reply.json.output.find((item: { type: string }) => item.type === 'function_call');
    expect(call).to.include({ type: 'function_call', name: 'resume_agent', namespace: 'multi_agent_v1', arguments: '{"id":"agent-7"}', call_id: 'call_1', status: 'completed' });
  });

  it('a top-level function call carries no namespace', async function () {
    suite.upstream.handle((_req, res) => openAIToolCall(res, 'exec_command', '{"cmd":"ls"}'));
    const reply = await postResponses(suite.freeway.url, { model: 'free:tool-use', input: 'List the files', tools: codexTools }, headers);
    const call = reply.json.output.find((item: { type: string }) => item.type === 'function_call');
    expect(call.name).to.equal('exec_command');
    expect(call).to.not.have.property('namespace');
  });

  it('streamed: the items and events name the namespace, and the arguments done event matches OpenAI\'s schema', async function () {
    this.timeout(30_000);
    suite.upstream.handle((_req, res) => openAIToolCall(res, 'multi_agent_v1__close_agent', '{"target":"agent-3"}'));
    const reply = await postResponses(suite.freeway.url, { model: 'free:tool-use', input: 'Close agent 3', tools: codexTools, stream: true }, headers);
    expect(reply.status).to.equal(200);
    expect(reply.headers.get('x-freeway-dropped-tools')).to.equal('web_search');
    const events = responseEvents(reply.text);
    const added = events.find((event) => event.type === 'response.output_item.added' && event.item.type === 'function_call');
    expect(added.item).to.include({ name: 'close_agent', namespace: 'multi_agent_v1', status: 'in_progress' });
    const done = events.find((event) => event.type === 'response.function_call_arguments.done');
    expect(validateArgumentsDone(done), JSON.stringify(validateArgumentsDone.errors)).to.equal(true);
    expect(done).to.include({ name: 'close_agent', arguments: '{"target":"agent-3"}' });
    const completed = events.at(-1);
    expect(completed.type).to.equal('response.completed');
    expect(completed.response.output.at(-1)).to.include({ type: 'function_call', name: 'close_agent', namespace: 'multi_agent_v1' });
    expect(await checkAgainstSDKTypes(events)).to.equal('');
  });

  it('the schema check does catch an arguments done event without name', function () {
    const without = { type: 'response.function_call_arguments.done', item_id: 'fc_1', output_index: 0, sequence_number: 3, arguments: '{}' };
    expect(validateArgumentsDone(without)).to.equal(false);
  });

  it('a namespaced call sent back in the history reaches the upstream under the name the model knows', async function () {
    const input = [
      { role: 'user', content: 'Resume agent 7' },
      { type: 'function_call', call_id: 'call_9', name: 'resume_agent', namespace: 'multi_agent_v1', arguments: '{"id":"agent-7"}' },
      { type: 'function_call_output', call_id: 'call_9', output: 'resumed' },
    ];
    const reply = await postResponses(suite.freeway.url, { model: 'free:tool-use', input, tools: codexTools }, headers);
    expect(reply.status, reply.text).to.equal(200);
    const messages = seen(suite.upstream).body?.messages as Array<{ role: string; tool_calls?: Array<{ function: { name: string } }>; tool_call_id?: string }>;
    const assistant = messages.find((message) => message.role === 'assistant');
    expect(assistant?.tool_calls?.[0]?.function.name).to.equal('multi_agent_v1__resume_agent');
    expect(messages.find((message) => message.role === 'tool')?.tool_call_id).to.equal('call_9');
  });

  it('tool_choice naming a namespaced function forces it under the name the model knows', async function () {
    const reply = await postResponses(
      suite.freeway.url,
      { model: 'free:tool-use', input: 'Close it', tools: codexTools, tool_choice: { type: 'function', name: 'close_agent', namespace: 'multi_agent_v1' } },
      headers,
    );
    expect(reply.status, reply.text).to.equal(200);
    expect(seen(suite.upstream).body?.tool_choice).to.deep.equal({ type: 'function', function: { name: 'multi_agent_v1__close_agent' } });
  });

  it('several hosted tools are listed comma-separated, each once; the warn log line names them and never their configuration', async function () {
    const tools = [execCommand, webSearch, hostedMcp, { type: 'file_search', vector_store_ids: ['vs_1'] }, { type: 'web_search' }];
    const reply = await postResponses(suite.freeway.url, { model: 'free:tool-use', input: 'Hi', tools }, headers);
    expect(reply.status, reply.text).to.equal(200);
    expect(reply.headers.get('x-freeway-dropped-tools')).to.equal('web_search, mcp, file_search');
    expect(offered(seen(suite.upstream))).to.deep.equal(['exec_command']);
    expect(JSON.stringify(seen(suite.upstream).body)).to.not.include(mcpToken);
    const line = logLine(suite.freeway, /POST \/v1\/responses 200/);
    expect(line.level).to.equal(40);
    expect(line.note).to.equal('tools left out of the upstream call (hosted tools Freeway cannot run): web_search, mcp, file_search');
    expect(suite.freeway.logs.join('\n')).to.not.include(mcpToken);
    expect(suite.freeway.logs.join('\n')).to.not.include('mcp.example');
    expect(reply.text).to.not.include(mcpToken);
  });

  it('a request without hosted tools has no X-Freeway-Dropped-Tools and an info log line', async function () {
    const reply = await postResponses(suite.freeway.url, { model: 'free:tool-use', input: 'Hi', tools: [execCommand] }, headers);
    expect(reply.status).to.equal(200);
    expect(reply.headers.get('x-freeway-dropped-tools')).to.equal(null);
    const line = logLine(suite.freeway, /POST \/v1\/responses 200/);
    expect(line.level).to.equal(30);
    expect(line).to.not.have.property('note');
  });

  it('CORS lets a browser read X-Freeway-Dropped-Tools', async function () {
    const reply = await fetch(`${suite.freeway.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://app.example', ...headers },
      body: JSON.stringify({ model: 'free:tool-use', input: 'Hi', tools: codexTools }),
    });
    await reply.arrayBuffer();
    const exposed = (reply.headers.get('access-control-expose-headers') ?? '').split(',').map((name) => name.trim().toLowerCase());
    expect(exposed).to.include('x-freeway-dropped-tools');
    expect(exposed).to.include.members(['ratelimit', 'ratelimit-policy']);
  });

  const refused: Array<[string, Record<string, unknown>, string]> = [
    [
      'tool_choice forcing a hosted tool',
      { tools: codexTools, tool_choice: { type: 'web_search_preview' } },
      'Validation failed: tool_choice.type: forces web_search_preview, a hosted tool, which Freeway cannot run; force a function tool, or use auto, none or required',
    ],
    ['tool_choice forcing a hosted MCP server', { tools: [hostedMcp], tool_choice: { type: 'mcp', server_label: 'deepwiki' } }, 'Validation failed: tool_choice.type: forces mcp, a hosted tool, which Freeway cannot run; force a function tool, or use auto, none or required'],
    ['tool_choice naming a function no namespace offers', { tools: codexTools, tool_choice: { type: 'function', name: 'spawn_agent', namespace: 'multi_agent_v1' } }, 'Validation failed: tool_choice: names spawn_agent in namespace multi_agent_v1, which tools do not offer'],
    [
      'a namespace function that clashes with a top-level one',
      { tools: [{ ...execCommand, name: 'multi_agent_v1__close_agent' }, multiAgent] },
      "Validation failed: tools: two functions are offered to the model as multi_agent_v1__close_agent (a namespaced function's name joins its namespace and name with __)",
    ],
    [
      'a namespaced name longer than 64 characters',
      { tools: [{ ...multiAgent, name: 'n'.repeat(40), tools: [{ ...multiAgent.tools[0], name: 'f'.repeat(30) }] }] },
      `Validation failed: tools.0.tools.0.name: with its namespace (${'n'.repeat(40)}__${'f'.repeat(30)}) must be at most 64 characters, the most a model's tool name may have`,
    ],
    ['a namespace without tools', { tools: [{ type: 'namespace', name: 'crm', description: 'CRM' }] }, 'Validation failed: tools.0.tools: is required'],
    ['a custom tool inside a namespace', { tools: [{ type: 'namespace', name: 'crm', description: 'CRM', tools: [{ type: 'custom', name: 'x' }] }] }, 'Validation failed: tools.0.tools.0.type: custom tools are not supported in a namespace; Freeway offers only function tools'],
  ];
  for (const [name, body, message] of refused) {
    it(`400: ${name}`, async function () {
      const reply = await postResponses(suite.freeway.url, { model: 'free:tool-use', input: 'Hi', ...body }, headers);
      expect(reply.status, reply.text).to.equal(400);
      expect(reply.json).to.deep.equal({ error: { message, type: 'invalid_request_error', code: 400 } });
      expect(suite.upstream.requests).to.have.length(0);
      expect(reply.text).to.not.include(mcpToken);
    });
  }
});

describe('HOSTED_TOOLS=reject', function () {
  let upstream: FakeUpstream;
  let freeway: RunningFreeway;

  before(async function () {
    upstream = await startUpstream((req, res) => openAIText(res, 'Hello', req));
    freeway = await startFreeway({ env: { CEREBRAS_BASE_URL: upstream.url, HOSTED_TOOLS: 'reject' } });
  });
  after(async function () {
    await freeway.close();
    await upstream.close();
  });

  it("keeps the 400 for Codex's tool list, naming the hosted tool and the setting", async function () {
    const reply = await postResponses(freeway.url, { model: 'free:tool-use', input: 'Hi', tools: codexTools }, keyHeaders('cerebras'));
    expect(reply.status).to.equal(400);
    expect(reply.json).to.deep.equal({
      error: {
        message: 'Validation failed: tools.2.type: web_search is a hosted tool, which Freeway cannot run; it offers only function tools (with HOSTED_TOOLS=drop, the default, hosted tools are left out)',
        type: 'invalid_request_error',
        code: 400,
      },
    });
    expect(reply.headers.get('x-freeway-dropped-tools')).to.equal(null);
    expect(upstream.requests).to.have.length(0);
  });

  it('still takes namespace tools', async function () {
    const reply = await postResponses(freeway.url, { model: 'free:tool-use', input: 'Hi', tools: [execCommand, multiAgent] }, keyHeaders('cerebras'));
    expect(reply.status, reply.text).to.equal(200);
    expect(offered(seen(upstream))).to.deep.equal(['exec_command', 'multi_agent_v1__close_agent', 'multi_agent_v1__resume_agent']);
  });
});

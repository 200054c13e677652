// The embedded model with a real GGUF (SmolLM2-135M-Instruct): its OpenAI-compatible endpoint as
// vLLM clients see it, and the whole bot (Slack emulator) answering through it. One file, so only
// one model is loaded at a time; the describes run one after another. Assertions are about
// structure and behaviour, never about what the model says.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { asCodedError, isVllmContextLengthMessage } from '../../src/llm/classify-error.ts';
import { type EmbeddedModel, startEmbeddedModel } from '../../src/llm/embedded/index.ts';
import { postTokenize, serverRootOf } from '../../src/llm/token-count/tokenize-endpoint.ts';
import { createLogger } from '../../src/log/logger.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { botReplies, callsTo } from '../support/slack-helpers.ts';
import { TEST_CONTEXT, TEST_THREADS, testModelPath } from './test-model.ts';

const TURN_MS = 120_000;

const SEARCH_TOOL = {
  type: 'function' as const,
  function: {
    name: 'search_attachment',
    description: 'Search the files shared in this conversation',
    parameters: {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { query: { type: 'string', description: 'What to look for' } },
      required: ['query'],
      additionalProperties: false,
    },
  },
};
const TIME_TOOL = {
  type: 'function' as const,
  function: {
    name: 'current_time',
    description: 'The current time in a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
    },
  },
};

/** About `words` tokens of filler (one short word is one or two tokens). */
function filler(words: number): string {
  return Array.from({ length: words }, (_, i) => `w${i % 97}`).join(' ');
}

/**
 * The outcome of the turn a message started. A mention arrives twice (`message` and
 * `app_mention`): one delivery is the turn, the other is ignored or a duplicate.
 */
async function turnOutcome(h: Harness, ts: string) {
  for (let deliveries = 1; deliveries <= 2; deliveries++) {
    const events = await h.handled(ts, deliveries, TURN_MS);
    for (const e of events) if (e.handled.status === 'turn') return e.handled.outcome;
  }
  throw new Error(`message ${ts} started no turn`);
}

async function postJson(url: string, body: unknown) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('the embedded endpoint (OpenAI-compatible, vLLM-shaped)', () => {
  let model: EmbeddedModel;
  let dataDir: string;
  let client: OpenAI;
  let root: string;

  before(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'tm-embedded-'));
    model = await startEmbeddedModel({
      model: testModelPath(),
      dataDir,
      threads: TEST_THREADS,
      contextSize: TEST_CONTEXT,
      port: 0,
      log: createLogger('silent'),
    });
    client = new OpenAI({ baseURL: model.baseUrl, apiKey: 'not-needed', maxRetries: 0 });
    root = serverRootOf(model.baseUrl);
  });
  after(async () => {
    await model?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('GET /v1/models lists the model with the context size in use as max_model_len', async () => {
    const res = await fetch(`${model.baseUrl}/models`);
    const body = (await res.json()) as { data: { id: string; max_model_len: number }[] };
    assert.equal(res.status, 200);
    assert.equal(body.data.length, 1);
    assert.equal(body.data[0]?.id, model.engine.id);
    assert.equal(body.data[0]?.max_model_len, TEST_CONTEXT);
  });

  test('a streamed answer arrives in pieces, ends with a stop reason, and the last chunk carries usage', async () => {
    const stream = await client.chat.completions.create({
      model: model.engine.id,
      messages: [{ role: 'user', content: 'Tell me about the sea in two sentences.' }],
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 100,
      temperature: 0,
      // Ends at the first space: a natural stop, whatever the model writes.
      stop: [' '],
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const finishes = chunks.flatMap((c) => c.choices.map((ch) => ch.finish_reason)).filter(Boolean);
    assert.deepEqual(finishes, ['stop']);
    const last = chunks.at(-1);
    assert.deepEqual(last?.choices, [], 'usage comes in a last chunk without choices');
    assert.ok(last?.usage && last.usage.prompt_tokens > 0 && last.usage.completion_tokens > 0);
    assert.ok(last.usage.completion_tokens < 100, 'stopped by the stop string, not the budget');
    assert.equal(chunks[0]?.choices[0]?.delta.role, 'assistant');
  });

  test('a reply cut by max_tokens ends with finish_reason "length" after exactly that many tokens', async () => {
    const stream = await client.chat.completions.create({
      model: model.engine.id,
      messages: [{ role: 'user', content: 'Write a long story about a lighthouse.' }],
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 6,
    });
    let text = '';
    let finish: string | null = null;
    let completion = -1;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) completion = chunk.usage.completion_tokens;
    }
    assert.equal(finish, 'length');
    assert.equal(completion, 6);
    assert.ok(text.length > 0);
  });

  test('/tokenize counts exactly the prompt_tokens the engine reports for the same request', async () => {
    const messages = [
      { role: 'system' as const, content: 'You are a careful assistant. 회의록을 요약해 주세요.' },
      { role: 'user' as const, content: 'What does the budget file say about travel?' },
      {
        role: 'assistant' as const,
        content: '',
        tool_calls: [
          {
            id: 'call_1',
            type: 'function' as const,
            function: { name: 'search_attachment', arguments: '{"query":"travel budget"}' },
          },
        ],
      },
      {
        role: 'tool' as const,
        tool_call_id: 'call_1',
        content: 'budget.xlsx: travel is 4,000 EUR',
      },
    ];
    const tools = [SEARCH_TOOL, TIME_TOOL];
    const counted = await postJson(`${root}/tokenize`, {
      model: model.engine.id,
      messages,
      tools,
      add_generation_prompt: true,
    });
    assert.equal(counted.status, 200);
    assert.equal(counted.body.max_model_len, TEST_CONTEXT);
    assert.equal((counted.body.tokens as number[]).length, counted.body.count);
    const reply = await client.chat.completions.create({
      model: model.engine.id,
      messages,
      tools,
      tool_choice: 'none',
      max_tokens: 2,
    });
    assert.equal(reply.usage?.prompt_tokens, counted.body.count);

    // The bot's own counting path gets the same number.
    const viaBot = await postTokenize(
      { serverRoot: root, model: model.engine.id, timeoutMs: 10_000, fetch },
      { messages, tools },
    );
    assert.deepEqual(viaBot, { kind: 'count', tokens: counted.body.count });

    const plain = await postJson(`${root}/tokenize`, {
      model: model.engine.id,
      prompt: 'hello world',
    });
    assert.equal(plain.status, 200);
    assert.ok((plain.body.count as number) >= 2);
  });

  test('a tool_choice naming a function yields a call to it whose arguments match its schema', async () => {
    const reply = await client.chat.completions.create({
      model: model.engine.id,
      messages: [{ role: 'user', content: 'What does the handbook say about annual leave?' }],
      tools: [TIME_TOOL, SEARCH_TOOL],
      tool_choice: { type: 'function', function: { name: 'search_attachment' } },
      // Greedy, so every run makes the same call; room for a long query argument.
      temperature: 0,
      max_tokens: 200,
    });
    const choice = reply.choices[0];
    assert.equal(choice?.finish_reason, 'tool_calls');
    const calls = choice?.message.tool_calls ?? [];
    assert.ok(calls.length >= 1);
    for (const call of calls) {
      assert.equal(call.type, 'function');
      if (call.type !== 'function') continue;
      assert.equal(call.function.name, 'search_attachment');
      assert.match(call.id, /\S/);
      const args = JSON.parse(call.function.arguments) as Record<string, unknown>;
      assert.equal(typeof args.query, 'string');
    }
  });

  test('tool_choice "required" forces a call to one of the tools; "none" forbids calls', async () => {
    const required = await client.chat.completions.create({
      model: model.engine.id,
      messages: [{ role: 'user', content: 'Hello there.' }],
      tools: [TIME_TOOL, SEARCH_TOOL],
      tool_choice: 'required',
      temperature: 0,
      max_tokens: 200,
    });
    assert.equal(required.choices[0]?.finish_reason, 'tool_calls');
    const names = (required.choices[0]?.message.tool_calls ?? []).map((c) =>
      c.type === 'function' ? c.function.name : c.type,
    );
    assert.ok(
      names.length >= 1 && names.every((n) => n === 'search_attachment' || n === 'current_time'),
    );

    const none = await client.chat.completions.create({
      model: model.engine.id,
      messages: [{ role: 'user', content: 'What time is it in Seoul?' }],
      tools: [TIME_TOOL],
      tool_choice: 'none',
      max_tokens: 12,
    });
    assert.equal(none.choices[0]?.message.tool_calls, undefined);
    assert.notEqual(none.choices[0]?.finish_reason, 'tool_calls');
  });

  test('a tool call streams as a tool_calls delta and ends with finish_reason "tool_calls"', async () => {
    const stream = await client.chat.completions.create({
      model: model.engine.id,
      messages: [{ role: 'user', content: 'Search the files for the budget.' }],
      tools: [SEARCH_TOOL],
      tool_choice: { type: 'function', function: { name: 'search_attachment' } },
      stream: true,
      temperature: 0,
      max_tokens: 200,
    });
    const deltas: OpenAI.Chat.Completions.ChatCompletionChunk.Choice.Delta.ToolCall[] = [];
    let finish: string | null = null;
    for await (const chunk of stream) {
      deltas.push(...(chunk.choices[0]?.delta.tool_calls ?? []));
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    assert.equal(finish, 'tool_calls');
    assert.equal(deltas[0]?.index, 0);
    assert.equal(deltas[0]?.function?.name, 'search_attachment');
    assert.doesNotThrow(() => JSON.parse(deltas[0]?.function?.arguments ?? ''));
  });

  test("a prompt longer than the context gets vLLM's 400, which the bot classifies as context_too_long", async () => {
    const long = filler(3000);
    const raw = await postJson(`${model.baseUrl}/chat/completions`, {
      model: model.engine.id,
      messages: [{ role: 'user', content: long }],
    });
    assert.equal(raw.status, 400);
    const error = raw.body.error as { message: string; type: string; code: number };
    assert.equal(error.type, 'BadRequestError');
    assert.equal(error.code, 400);
    assert.ok(isVllmContextLengthMessage(error.message), error.message);

    const err = await client.chat.completions
      .create({ model: model.engine.id, messages: [{ role: 'user', content: long }] })
      .then(
        () => assert.fail('expected a 400'),
        (e: unknown) => e,
      );
    assert.ok(err instanceof OpenAI.BadRequestError);
    const coded = asCodedError(err);
    assert.equal(coded.code, 'context_too_long');

    // A reply budget that does not fit beside the prompt is refused the same way.
    const tooMuch = await postJson(`${model.baseUrl}/chat/completions`, {
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: TEST_CONTEXT,
    });
    assert.equal(tooMuch.status, 400);
    assert.ok(isVllmContextLengthMessage((tooMuch.body.error as { message: string }).message));
  });

  test('bad requests get a 4xx naming the problem, and the server keeps serving', async () => {
    const notJson = await postJson(`${model.baseUrl}/chat/completions`, '{"messages": [');
    assert.equal(notJson.status, 400);
    assert.match((notJson.body.error as { message: string }).message, /not valid JSON/);

    const noMessages = await postJson(`${model.baseUrl}/chat/completions`, { messages: [] });
    assert.equal(noMessages.status, 400);
    assert.match((noMessages.body.error as { message: string }).message, /messages/);

    const wrongModel = await postJson(`${model.baseUrl}/chat/completions`, {
      model: 'gpt-7',
      messages: [{ role: 'user', content: 'hi' }],
    });
    assert.equal(wrongModel.status, 404);
    assert.match((wrongModel.body.error as { message: string }).message, /gpt-7/);

    const image = await postJson(`${model.baseUrl}/chat/completions`, {
      messages: [
        {
          role: 'user',
          content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }],
        },
      ],
    });
    assert.equal(image.status, 400);
    assert.match((image.body.error as { message: string }).message, /text-only/);

    const orphan = await postJson(`${model.baseUrl}/chat/completions`, {
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'tool', tool_call_id: 'nope', content: 'x' },
      ],
    });
    assert.equal(orphan.status, 400);
    assert.match((orphan.body.error as { message: string }).message, /nope/);

    const unknownTool = await postJson(`${model.baseUrl}/chat/completions`, {
      messages: [{ role: 'user', content: 'hi' }],
      tools: [SEARCH_TOOL],
      tool_choice: { type: 'function', function: { name: 'delete_everything' } },
    });
    assert.equal(unknownTool.status, 400);
    assert.match((unknownTool.body.error as { message: string }).message, /delete_everything/);

    const ok = await client.chat.completions.create({
      messages: [{ role: 'user', content: 'hi' }],
      model: model.engine.id,
      max_tokens: 2,
    });
    assert.ok(ok.choices[0]?.finish_reason);
  });

  test('requests that arrive together are all answered, one generation at a time', async () => {
    const replies = await Promise.all(
      [1, 2, 3].map((i) =>
        client.chat.completions.create({
          model: model.engine.id,
          messages: [{ role: 'user', content: `Count to ${i}.` }],
          max_tokens: 3,
        }),
      ),
    );
    for (const r of replies) assert.equal(r.usage?.completion_tokens, 3);
    assert.equal(model.engine.queued, 0);
  });

  test('a client that goes away mid-stream does not hold up the next request', async () => {
    const aborter = new AbortController();
    const res = await fetch(`${model.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        messages: [{ role: 'user', content: 'Write a very long poem.' }],
        stream: true,
        max_tokens: 1500,
      }),
      signal: aborter.signal,
    });
    const reader = res.body?.getReader();
    assert.ok(reader);
    const first = await reader.read();
    assert.match(Buffer.from(first.value ?? []).toString('utf8'), /^data: /);
    aborter.abort();
    const next = await client.chat.completions.create({
      model: model.engine.id,
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 2,
    });
    assert.equal(next.usage?.completion_tokens, 2);
    assert.equal(model.engine.queued, 0);
  });
});

interface Recorded {
  messages: { role: string; content?: unknown; tool_calls?: { function: { name: string } }[] }[];
  tool_choice?: unknown;
}

/**
 * A pass-through in front of the embedded server that turns the first model call of each turn
 * into a forced `search_attachment` call (tool_choice naming it) and, when asked, reports a larger
 * max_model_len than the engine has (a misconfigured server), so the bot's request overflows.
 * Responses pass through untouched.
 */
async function startForcingProxy(target: string) {
  const requests: Recorded[] = [];
  let inflateWindow = false;
  const server: Server = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      let body = Buffer.concat(chunks).toString('utf8');
      const route = new URL(req.url ?? '/', 'http://x').pathname;
      if (route === '/v1/chat/completions') {
        const parsed = JSON.parse(body) as Recorded & { tools?: { function: { name: string } }[] };
        const forcing =
          parsed.messages.at(-1)?.role === 'user' &&
          (parsed.tools ?? []).some((t) => t.function.name === 'search_attachment');
        if (forcing) {
          parsed.tool_choice = { type: 'function', function: { name: 'search_attachment' } };
          // Greedy: the same call every run, whatever the bot's own temperature.
          (parsed as { temperature?: number }).temperature = 0;
        }
        requests.push(parsed);
        body = JSON.stringify(parsed);
      }
      const upstream = await fetch(`${target}${req.url ?? '/'}`, {
        method: req.method ?? 'GET',
        headers: { 'content-type': 'application/json' },
        ...(req.method === 'POST' ? { body } : {}),
      });
      if (route === '/v1/models' && inflateWindow) {
        const models = (await upstream.json()) as { data: { max_model_len: number }[] };
        for (const m of models.data) m.max_model_len = 32_768;
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(models));
        return;
      }
      res.writeHead(upstream.status, {
        'content-type': upstream.headers.get('content-type') ?? 'application/json',
      });
      if (upstream.body) for await (const piece of upstream.body) res.write(piece);
      res.end();
    })().catch((err: unknown) => {
      res.destroy(err instanceof Error ? err : new Error(String(err)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    inflate(on: boolean) {
      inflateWindow = on;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe('the whole bot on the embedded model: tool calls and context overflow', () => {
  let model: EmbeddedModel;
  let dataDir: string;
  let proxy: Awaited<ReturnType<typeof startForcingProxy>>;
  let h: Harness;

  before(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'tm-embedded-bot-'));
    model = await startEmbeddedModel({
      model: testModelPath(),
      dataDir,
      threads: TEST_THREADS,
      contextSize: TEST_CONTEXT,
      port: 0,
      log: createLogger('silent'),
    });
    proxy = await startForcingProxy(serverRootOf(model.baseUrl));
    h = await startHarness({
      env: { LLM_TEXT_BASE_URL: proxy.baseUrl },
      overrides: {
        llm: { text: { maxReplyTokens: 96 } },
        agent: { maxToolRounds: 2 },
      },
    });
  });
  after(async () => {
    await h?.close();
    await proxy?.close();
    await model?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('a forced search_attachment call from the real model is executed over the uploaded file', async () => {
    const file = h.slack.uploadFile({
      name: 'handbook.txt',
      bytes: Buffer.from('Annual leave is 25 days per year, booked in the HR portal.\n'),
    });
    const drop = await h.slack.postUserMessage({
      channel: 'C1',
      user: 'U1',
      text: '',
      files: [file],
    });
    await h.slack.waitFor(() =>
      callsTo(h.slack, 'reactions.add').find(
        (c) => c.args.timestamp === drop.ts && c.args.name === 'white_check_mark',
      ),
    );
    const ask = await h.slack.postUserMessage({
      channel: 'C1',
      user: 'U2',
      text: `<@${h.slack.botUserId}> how many days of annual leave do we get?`,
    });
    const outcome = await turnOutcome(h, ask.ts);
    assert.equal(outcome.status, 'answered');

    // The model's call, then the tool's result sent back to it: the agent ran the tool.
    const withResult = proxy.requests.find((r) => r.messages.some((m) => m.role === 'tool'));
    assert.ok(withResult, 'a request carried the tool result back to the model');
    const call = withResult.messages.find((m) => m.role === 'assistant' && m.tool_calls?.length);
    assert.equal(call?.tool_calls?.[0]?.function.name, 'search_attachment');
    const result = String(withResult.messages.find((m) => m.role === 'tool')?.content);
    assert.match(result, /handbook\.txt/, 'the search ran over the uploaded file');
    assert.ok(botReplies(h.slack, 'C1', ask.ts).some((m) => !m.streaming && m.text.trim() !== ''));
  });

  test('a question longer than the real context gets the context_too_long message in the thread', async () => {
    proxy.inflate(true);
    await h.restart();
    try {
      const ask = await h.slack.postUserMessage({
        channel: 'C2',
        user: 'U1',
        text: `<@${h.slack.botUserId}> ${filler(3000)}`,
      });
      const outcome = await turnOutcome(h, ask.ts);
      assert.ok(outcome.status === 'failed', `the turn failed: ${JSON.stringify(outcome)}`);
      assert.equal(outcome.code, 'context_too_long');
      assert.match(outcome.userMessage, /too long/);
      const texts = botReplies(h.slack, 'C2', ask.ts).map((m) => m.text);
      assert.ok(
        texts.some((t) => t.includes(outcome.userMessage.slice(0, 40))),
        `the person is told: ${texts.join(' | ')}`,
      );
    } finally {
      proxy.inflate(false);
    }
  });
});

describe('LLM_TEXT_BASE_URL=embedded: the bot runs the model in-process', () => {
  let h: Harness;

  before(async () => {
    h = await startHarness({
      env: {
        LLM_TEXT_BASE_URL: 'embedded',
        LLM_LOCAL_MODEL: testModelPath(),
        LLM_LOCAL_THREADS: String(TEST_THREADS),
        LLM_LOCAL_CONTEXT: String(TEST_CONTEXT),
        // Not configured: the embedded model is text-only.
        LLM_VISION_BASE_URL: '',
      },
      overrides: {
        llm: { text: { maxReplyTokens: 64 } },
        memory: { summaryMaxTokens: 64 },
        agent: { maxToolRounds: 1 },
      },
    });
  });
  after(async () => {
    await h?.close();
  });

  async function ask(channel: string, text: string, threadTs?: string) {
    const msg = await h.slack.postUserMessage({
      channel,
      user: 'U1',
      text,
      ...(threadTs ? { thread_ts: threadTs } : {}),
    });
    return { msg, outcome: await turnOutcome(h, msg.ts) };
  }

  test('a mention gets a streamed answer from the real model in its thread', async () => {
    const { msg, outcome } = await ask('C10', `<@${h.slack.botUserId}> what is a lighthouse?`);
    assert.equal(outcome.status, 'answered');
    const replies = botReplies(h.slack, 'C10', msg.ts).filter((m) => !m.streaming);
    assert.ok(
      replies.some((m) => m.text.trim() !== ''),
      'an answer is posted',
    );
    assert.ok(
      h.llm.requests.length === 0,
      'the emulator is never asked: the text model is the embedded one',
    );
  });

  test('"@threadmind summarize" returns a summary written by the real model', async () => {
    const first = await ask('C11', `<@${h.slack.botUserId}> our team meets on Mondays.`);
    await ask('C11', 'We also ship on Fridays.', first.msg.ts);
    await h.slack.postUserMessage({
      channel: 'C11',
      user: 'U1',
      thread_ts: first.msg.ts,
      text: `<@${h.slack.botUserId}> summarize`,
    });
    const replies = await h.slack.waitFor(() => {
      const found = botReplies(h.slack, 'C11', first.msg.ts).filter(
        (m) => !m.streaming && m.text.includes('Summary of this thread'),
      );
      return found.length > 0 ? found : undefined;
    }, TURN_MS);
    const summary = replies.at(-1)?.text ?? '';
    const body = summary.slice(summary.indexOf('Summary of this thread') + 40).trim();
    assert.ok(body.length > 0, `the summary has text after its header: ${summary}`);
  });
});

// asCodedError classifies what a model call really throws: the errors come from the real
// @langchain/openai client (and the OpenAI SDK under it) talking to a tiny server on 127.0.0.1
// that answers the way vLLM does, fails, drops the connection or never answers.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { MessageChannel } from 'node:worker_threads';
import { ContextOverflowError } from '@langchain/core/errors';
import { HumanMessage } from '@langchain/core/messages';
import { OpenAIClient } from '@langchain/openai';
import { AttachmentError } from '../../src/attachments/types.ts';
import { createChatModel } from '../../src/llm/chat-model.ts';
import { asCodedError, isVllmContextLengthMessage } from '../../src/llm/classify-error.ts';
import { type ErrorWire, ThreadmindError } from '../../src/model/errors.ts';

// vLLM's wording (vllm/entrypoints/openai): the classic chat check, _validate_input for a prompt
// that alone does not fit, and the max_tokens check.
const VLLM_CONTEXT_MESSAGES = [
  "This model's maximum context length is 32768 tokens. However, you requested 33000 tokens (32000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
  "This model's maximum context length is 4096 tokens. However, your request has 5000 input tokens. Please reduce the length of the input messages.",
  "'max_tokens' or 'max_completion_tokens' is too large: 1024. This model's maximum context length is 4096 tokens and your request has 3500 input tokens (1024 > 4096 - 3500).",
];

function vllmError(message: string, type: string, code: number) {
  return { error: { message, type, param: null, code } };
}

type Behaviour = (req: IncomingMessage, res: ServerResponse) => void;

function json(status: number, body: unknown): Behaviour {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
}

const BEHAVIOURS: Record<string, Behaviour> = {
  context: json(400, vllmError(VLLM_CONTEXT_MESSAGES[1] ?? '', 'BadRequestError', 400)),
  'bad-request': json(
    400,
    vllmError("[{'type': 'missing', 'loc': ('body', 'messages')}]", 'BadRequestError', 400),
  ),
  unauthorized: json(401, vllmError('Unauthorized', 'Unauthorized', 401)),
  'rate-limited': json(429, vllmError('Too many requests', 'RateLimitError', 429)),
  'server-error': json(
    500,
    vllmError('EngineCore encountered an issue', 'InternalServerError', 500),
  ),
  'service-unavailable': json(503, vllmError('loading', 'ServiceUnavailable', 503)),
  'closes-socket': (req) => req.socket.destroy(),
  'never-answers': () => undefined,
  // vLLM reports a failure inside a running stream as an SSE event carrying the status in `code`.
  'stream-error': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = {
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      created: 0,
      model: 'm',
      choices: [{ index: 0, delta: { role: 'assistant', content: 'Hel' }, finish_reason: null }],
    };
    res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    res.end(`data: ${JSON.stringify(vllmError('engine dead', 'InternalServerError', 500))}\n\n`);
  },
};

let server: Server;
let base: string;
let refusedBase: string;

before(async () => {
  server = createServer((req, res) => {
    const behaviour = BEHAVIOURS[(req.url ?? '').split('/')[1] ?? ''];
    req.resume();
    req.on('end', () => (behaviour ? behaviour(req, res) : json(404, {})(req, res)));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // A port nobody listens on: bind one, then let it go.
  const spare = createServer();
  await new Promise<void>((r) => spare.listen(0, '127.0.0.1', r));
  refusedBase = `http://127.0.0.1:${(spare.address() as AddressInfo).port}/v1`;
  await new Promise<void>((r) => spare.close(() => r()));
});

after(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

function model(baseUrl: string, timeoutMs = 5_000) {
  return createChatModel({
    baseUrl,
    model: 'm',
    temperature: 0,
    maxTokens: 16,
    timeoutMs,
    maxRetries: 0,
  });
}

/** What the real client throws when asked through `behaviour`. */
async function thrownBy(
  behaviour: string,
  o: { timeoutMs?: number; signal?: AbortSignal; baseUrl?: string } = {},
): Promise<unknown> {
  const chat = model(o.baseUrl ?? `${base}/${behaviour}/v1`, o.timeoutMs);
  try {
    await chat.invoke([new HumanMessage('hi')], o.signal ? { signal: o.signal } : {});
  } catch (err) {
    return err;
  }
  assert.fail(`${behaviour}: the call did not fail`);
}

describe('model-call failures, as the real client throws them', () => {
  test('vLLM\'s 400 "maximum context length" → context_too_long (LangChain\'s ContextOverflowError)', async () => {
    const err = await thrownBy('context');
    assert.ok(
      ContextOverflowError.isInstance(err),
      'LangChain rethrows it as ContextOverflowError',
    );
    const coded = asCodedError(err);
    assert.equal(coded.code, 'context_too_long');
    assert.equal(coded.retryable, false);
    assert.match(coded.userMessage, /too long/);
    assert.equal(coded.cause, err);
  });

  test('the same 400 straight from the OpenAI SDK (no LangChain wrapper) → context_too_long', async () => {
    const client = new OpenAIClient({ baseURL: `${base}/context/v1`, apiKey: 'x', maxRetries: 0 });
    const err = await client.chat.completions
      .create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })
      .then(
        () => assert.fail('no error'),
        (e: unknown) => e,
      );
    assert.ok(err instanceof OpenAIClient.BadRequestError);
    assert.equal(asCodedError(err).code, 'context_too_long');
  });

  test('any other 400 → model_rejected', async () => {
    const coded = asCodedError(await thrownBy('bad-request'));
    assert.equal(coded.code, 'model_rejected');
    assert.equal(coded.retryable, false);
  });

  test('429 → rate_limited (LangChain marks it MODEL_RATE_LIMIT)', async () => {
    const err = await thrownBy('rate-limited');
    assert.equal((err as { lc_error_code?: unknown }).lc_error_code, 'MODEL_RATE_LIMIT');
    const coded = asCodedError(err);
    assert.equal(coded.code, 'rate_limited');
    assert.equal(coded.retryable, true);
  });

  test('401 → model_unavailable, not retryable', async () => {
    const coded = asCodedError(await thrownBy('unauthorized'));
    assert.equal(coded.code, 'model_unavailable');
    assert.equal(coded.retryable, false);
  });

  test('500 and 503 → model_unavailable, retryable', async () => {
    for (const behaviour of ['server-error', 'service-unavailable']) {
      const coded = asCodedError(await thrownBy(behaviour));
      assert.equal(coded.code, 'model_unavailable', behaviour);
      assert.equal(coded.retryable, true, behaviour);
    }
  });

  test('an error event inside the stream (status in its code) → model_unavailable', async () => {
    const err = await thrownBy('stream-error');
    assert.ok(err instanceof OpenAIClient.APIError);
    assert.equal(err.status, undefined);
    assert.equal(asCodedError(err).code, 'model_unavailable');
  });

  test('the server closes the socket → model_unavailable', async () => {
    const err = await thrownBy('closes-socket');
    assert.ok(err instanceof OpenAIClient.APIConnectionError);
    assert.equal(asCodedError(err).code, 'model_unavailable');
  });

  test('nobody listens (ECONNREFUSED) → model_unavailable', async () => {
    const err = await thrownBy('refused', { baseUrl: refusedBase });
    assert.equal(asCodedError(err).code, 'model_unavailable');
  });

  test('the server never answers: the client timeout → model_timeout', async () => {
    const err = await thrownBy('never-answers', { timeoutMs: 200 });
    assert.equal((err as Error).name, 'TimeoutError');
    const coded = asCodedError(err);
    assert.equal(coded.code, 'model_timeout');
    assert.equal(coded.retryable, true);
  });

  test("an aborted call: the signal's ThreadmindError reason is the answer", async () => {
    const controller = new AbortController();
    const deadline = new ThreadmindError('turn_timeout', 'turn exceeded 100 ms', 'I stopped.');
    setTimeout(() => controller.abort(deadline), 100);
    const err = await thrownBy('never-answers', { signal: controller.signal });
    assert.equal(asCodedError(err, controller.signal), deadline);
    // Without the signal, the abort alone still reads as the model being too slow.
    assert.equal(asCodedError(err).code, 'model_timeout');
  });

  test('AbortSignal.timeout() on fetch (DOMException TimeoutError) → model_timeout', async () => {
    const err = await fetch(`${base}/never-answers/v1/models`, {
      signal: AbortSignal.timeout(100),
    }).then(
      () => assert.fail('no error'),
      (e: unknown) => e,
    );
    assert.equal((err as Error).name, 'TimeoutError');
    assert.equal(asCodedError(err).code, 'model_timeout');
    const aborted = new AbortController();
    aborted.abort();
    assert.equal(asCodedError(aborted.signal.reason).code, 'model_timeout');
  });

  test('a Node system error code deep in the cause chain decides', async () => {
    const refused = await new Promise<Error>((resolve) => {
      const socket = connect(Number(new URL(refusedBase).port), '127.0.0.1');
      socket.on('error', resolve);
    });
    assert.equal((refused as NodeJS.ErrnoException).code, 'ECONNREFUSED');
    const wrapped = new Error('summary failed', {
      cause: new Error('request failed', { cause: refused }),
    });
    assert.equal(asCodedError(wrapped).code, 'model_unavailable');
  });
});

describe('what is not read from text', () => {
  test('a plain Error that merely says "maximum context length" (no 400) is internal', () => {
    const coded = asCodedError(new Error("This model's maximum context length is 10 tokens."));
    assert.equal(coded.code, 'internal');
    assert.equal(asCodedError(new Error('connection timed out')).code, 'internal');
    assert.equal(asCodedError('a string').code, 'internal');
  });

  test("isVllmContextLengthMessage knows vLLM's wordings, and nothing else", () => {
    for (const m of VLLM_CONTEXT_MESSAGES) assert.ok(isVllmContextLengthMessage(m), m);
    assert.ok(isVllmContextLengthMessage(`400 ${VLLM_CONTEXT_MESSAGES[0]}`), 'with the SDK prefix');
    for (const m of [
      'The model `m` does not exist.',
      'context length',
      'Please reduce the length of the messages.',
      "'messages' is a required property",
    ])
      assert.ok(!isVllmContextLengthMessage(m), m);
  });
});

describe('ThreadmindError', () => {
  test('defaults retryable from its code; options override it', () => {
    assert.equal(new ThreadmindError('lock_lost', 'm', 'u').retryable, true);
    assert.equal(new ThreadmindError('session_busy', 'm', 'u').retryable, true);
    assert.equal(new ThreadmindError('context_too_long', 'm', 'u').retryable, false);
    assert.equal(new ThreadmindError('internal', 'm', 'u', { retryable: true }).retryable, true);
  });

  test('asCodedError returns a ThreadmindError as it is, also from inside a cause chain', () => {
    const own = new ThreadmindError('queue_full', 'queue full', 'Too many questions.');
    assert.equal(asCodedError(own), own);
    assert.equal(asCodedError(new Error('wrapped', { cause: own })), own);
  });

  test('survives structuredClone of its wire form, and a real postMessage', async () => {
    const cause = new TypeError('fetch failed');
    const err = new ThreadmindError('model_unavailable', 'cannot list models', 'Try later.', {
      cause,
    });
    const wire = structuredClone(err.toWire());
    assert.deepEqual(wire, {
      name: 'ThreadmindError',
      code: 'model_unavailable',
      message: 'cannot list models',
      userMessage: 'Try later.',
      retryable: true,
      cause: 'TypeError: fetch failed',
    });
    assert.ok(ThreadmindError.isWire(wire));
    const back = ThreadmindError.fromWire(wire);
    assert.ok(ThreadmindError.isInstance(back));
    assert.ok(back instanceof Error);
    assert.deepEqual(
      [back.name, back.code, back.message, back.userMessage, back.retryable],
      ['ThreadmindError', 'model_unavailable', 'cannot list models', 'Try later.', true],
    );
    assert.equal((back.cause as Error).message, 'TypeError: fetch failed');
    // The error object itself loses its class (and marker) when cloned: that is why there is a wire.
    assert.ok(!ThreadmindError.isInstance(structuredClone(err)));

    const { port1, port2 } = new MessageChannel();
    const received = new Promise<unknown>((r) => port2.once('message', r));
    port1.postMessage(err.toWire());
    const posted = await received;
    port1.close();
    assert.ok(ThreadmindError.isWire(posted));
    assert.equal(ThreadmindError.fromWire(posted).code, 'model_unavailable');
  });

  test('isWire refuses what is not a wire form', () => {
    assert.ok(!ThreadmindError.isWire(null));
    assert.ok(!ThreadmindError.isWire({ code: 'internal', message: 'x' }));
    assert.ok(!ThreadmindError.isWire(new Error('x')));
  });

  test('AttachmentError is a ThreadmindError, and crosses the wire as an AttachmentError', () => {
    const err = new AttachmentError('too_complex', 'big.docx', 'it has 90,000 parts', {
      cause: new RangeError('Invalid string length'),
    });
    assert.ok(ThreadmindError.isInstance(err));
    assert.ok(AttachmentError.isInstance(err));
    assert.ok(err instanceof ThreadmindError);
    assert.ok(!AttachmentError.isInstance(new ThreadmindError('internal', 'm', 'u')));
    assert.equal(err.retryable, false);
    assert.equal(new AttachmentError('download_failed', 'a.pdf').retryable, true);

    const wire: ErrorWire = structuredClone(err.toWire());
    const back = AttachmentError.fromWire(wire);
    assert.ok(AttachmentError.isInstance(back));
    assert.ok(back instanceof AttachmentError);
    assert.deepEqual(
      [back.code, back.filename, back.detail, back.message, back.userMessage],
      [err.code, err.filename, err.detail, err.message, err.userMessage],
    );
    assert.equal((back.cause as Error).message, 'RangeError: Invalid string length');
    // The base's fromWire keeps the name and code, enough to recognise it.
    const generic = ThreadmindError.fromWire(wire);
    assert.deepEqual([generic.name, generic.code], ['AttachmentError', 'too_complex']);
    // A wire that is not an attachment failure becomes 'corrupt', with it as the cause.
    const other = AttachmentError.fromWire(
      new ThreadmindError('internal', 'x', 'y').toWire(),
      'a.pdf',
    );
    assert.equal(other.code, 'corrupt');
    assert.ok(ThreadmindError.isInstance(other.cause));
  });

  test('an AttachmentError reaching asCodedError keeps what it tells the user', () => {
    const err = new AttachmentError('encrypted', 'secret.pdf');
    const coded = asCodedError(err);
    assert.equal(coded.code, 'internal');
    assert.equal(coded.userMessage, err.userMessage);
  });
});

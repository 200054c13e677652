// The turn pipeline (TurnRunner) against the in-memory port, a scripted model and mocked timers:
// what a person sees when the session is busy, the bot is full or restarting, the lock is lost, the
// server finds the thread too long, or new messages arrive while a follow-up is already answered.
// The clock only moves when a test moves it, so no outcome here depends on the machine's speed.
import assert from 'node:assert/strict';
import { syncBuiltinESMExports } from 'node:module';
import { afterEach, beforeEach, describe, mock, test } from 'node:test';
import { ContextOverflowError } from '@langchain/core/errors';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { ToolRegistry } from '../../src/agent/tool-registry.ts';
import { messages } from '../../src/core/messages.ts';
import { lockLostError, SessionState } from '../../src/core/session-state.ts';
import type { CaughtUp } from '../../src/core/thread-context.ts';
import { ThreadOutput } from '../../src/core/thread-output.ts';
import {
  type TurnInput,
  type TurnOutcome,
  TurnRunner,
  type TurnRunnerDeps,
} from '../../src/core/turn-runner.ts';
import type { ModelEndpoint } from '../../src/llm/model-endpoint.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { createMetrics } from '../../src/log/metrics.ts';
import { ContextManager } from '../../src/memory/context-manager.ts';
import { estimatePromptTokens } from '../../src/memory/prompt-counter.ts';
import type { IncomingMessage } from '../../src/model/incoming.ts';
import { sessionKey, type ThreadRef } from '../../src/model/thread-ref.ts';
import { SessionHistory } from '../../src/store/session-history.ts';
import { SessionLock } from '../../src/store/session-lock.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import { MockPort, REF } from '../support/mock-port.ts';
import { gate, ScriptedChatModel, type Step } from '../support/scripted-chat-model.ts';

const TURN_MS = 60_000;
const SILENCE_MS = 20_000;
const LOCK_TTL_MS = 3000;
/** How often a held lock is renewed (SessionLock: a third of the TTL, at least a second). */
const RENEW_MS = 1000;

/** Lets the pipeline's promises run (a real macrotask: the mocked clock does not move). */
const settle = async (rounds = 5) => {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
};

/** Moves the mocked clock forward in steps, letting async work run between them. */
async function advance(ms: number, step = 50): Promise<void> {
  for (let t = 0; t < ms; t += step) {
    await settle(2);
    mock.timers.tick(Math.min(step, ms - t));
  }
  await settle();
}

/** Whether `p` has settled once the pipeline's pending work has run (the clock stays still). */
async function isSettled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(
    () => (done = true),
    () => (done = true),
  );
  for (let i = 0; i < 100 && !done; i++) await settle(1);
  return done;
}

/** The turn's outcome; fails at once (rather than hanging) when the turn is still running. */
async function outcome<T>(p: Promise<T>): Promise<T> {
  assert.equal(await isSettled(p), true, 'the turn is still running');
  return p;
}

interface Options {
  scripts: Step[][];
  summary?: string;
  maxConcurrentTurns?: number;
  maxQueuedPerSession?: number;
  budgets?: TurnRunnerDeps['budgets'];
  queueNoticeMs?: number;
  admission?: 'fair' | 'fifo';
}

function pipeline(o: Options) {
  const store = new SqliteStore(':memory:');
  const chat = new ScriptedChatModel(o.scripts);
  const summarizer = new ScriptedChatModel([], [o.summary ?? 'A summary.']);
  const llm = {
    resolve: async () => ({ chat, info: { id: 'scripted', maxModelLen: 8192 } }),
    variant: async () => summarizer,
  } as unknown as ModelEndpoint;
  const history = new SessionHistory(store, 100);
  const memory = new ContextManager({
    history,
    store,
    count: estimatePromptTokens,
    compressAtTokens: 4000,
    keepRecentTurns: 2,
    maxModelLenFallback: 8192,
    maxReplyTokens: 256,
    toolOutputMaxChars: 2000,
    postSummaries: true,
    summaryTimeoutMs: 10_000,
  });
  const lock = new SessionLock(store, {
    ttlMs: LOCK_TTL_MS,
    pollMs: 50,
    lostReason: lockLostError,
  });
  const state = new SessionState({ store, history, memory, lock, dedupeTtlMs: 60_000 });
  const metrics = createMetrics();
  const runner = new TurnRunner(
    {
      botName: 'threadmind',
      maxConcurrentTurns: o.maxConcurrentTurns ?? 4,
      maxQueuedPerSession: o.maxQueuedPerSession ?? 3,
      maxToolRounds: 2,
      maxReplyTokens: 256,
      summaryMaxTokens: 256,
      turnTimeoutMs: TURN_MS,
      firstTokenTimeoutMs: SILENCE_MS,
      historyTurnsInPrompt: 20,
      queueNoticeMs: o.queueNoticeMs,
      admission: o.admission,
    },
    {
      ...{ llm, tools: new ToolRegistry(), memory, history, state, metrics, log: silentLogger() },
      budgets: o.budgets,
    },
  );
  const ports = new Map<string, MockPort>();
  /** The thread of a session as its people see it. */
  const port = (ref: ThreadRef = REF) => {
    let p = ports.get(ref.sessionId);
    if (!p) {
      p = new MockPort();
      ports.set(ref.sessionId, p);
    }
    return p;
  };
  let seq = 0;
  const ask = (
    text: string,
    input: TurnInput = {},
    ref: ThreadRef = REF,
    summarize = false,
    fence?: IncomingMessage['fence'],
  ) => {
    const msg: IncomingMessage = {
      ...(fence ? { fence } : {}),
      ref,
      principal: 'U1',
      text,
      messageId: String(++seq),
      receivedAt: Date.now(),
      traceId: `trace-${seq}`,
    };
    const out = new ThreadOutput({
      port: port(ref),
      to: { ref, context: {} },
      log: silentLogger(),
      thinkingText: 'is thinking…',
      // Every edit at once: the throttle's waits are not what these tests are about.
      updateIntervalMs: 0,
      nativeStreaming: false,
    });
    return summarize ? runner.summarize(msg, out, input) : runner.submit(msg, out, input);
  };
  const stored = async (ref: ThreadRef = REF) =>
    (await history.load(sessionKey(ref))).map((m) => `${m.type}: ${String(m.content)}`);
  const restarts = async () => (await metrics.speculativeRestarts.get()).values[0]?.value ?? 0;
  return { store, chat, summarizer, history, runner, port, ask, stored, restarts };
}

/** A read of the thread that the test finishes when it chooses. */
function pendingRead() {
  let finish: (c: Omit<CaughtUp, 'commit'>) => void = () => undefined;
  const commits: number[] = [];
  const read = new Promise<CaughtUp>((resolve) => {
    finish = (c) => resolve({ ...c, commit: async () => void commits.push(1) });
  });
  return { context: () => read, finish, commits };
}

const answered = (outcome: TurnOutcome) => {
  assert.equal(outcome.status, 'answered', JSON.stringify(outcome));
  return outcome as Extract<TurnOutcome, { status: 'answered' }>;
};

// `import { setTimeout } from 'node:timers/promises'` (the lock's poll) is a binding taken at
// import time: syncing the builtins' ES exports points it at the mock, and back after.
beforeEach(() => {
  mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'] });
  syncBuiltinESMExports();
});
afterEach(() => {
  mock.timers.reset();
  syncBuiltinESMExports();
});

describe('turn pipeline: admission', () => {
  test('over a token budget: the asker is told which and when it resets; the model is not asked', async () => {
    const hit = { scope: 'person', period: 'daily', used: 1200, limit: 1000 } as const;
    const p = pipeline({
      scripts: [['Never sent.']],
      budgets: {
        check: async () => ({ status: 'over', hit: { ...hit, resetsAt: Date.UTC(2026, 11, 2) } }),
      },
    });
    const o = await outcome(p.ask('one more?'));
    assert.equal(o.status, 'failed');
    assert.equal(p.chat.prompts.length, 0);
    // The mock platform has no private messages: the refusal goes to the thread instead.
    assert.match(
      p.port().texts().join('\n'),
      /your daily token budget is used up \(1,200 of 1,000 tokens\)\. It resets 2026-12-02 00:00 UTC/,
    );
  });

  test('a session answers its messages in arrival order; one over the bound is refused and told', async () => {
    const first = gate();
    const p = pipeline({
      scripts: [['First ', first.wait, 'answer.'], ['Second answer.']],
      maxQueuedPerSession: 2,
    });
    const a = p.ask('one');
    const b = p.ask('two');
    const c = p.ask('three');
    assert.deepEqual(await outcome(c), { status: 'rejected', reason: 'queue_full' });
    assert.ok(
      p
        .port()
        .texts()
        .includes(messages.error(messages.queueFull(2))),
      p.port().texts().join('\n'),
    );
    await settle();
    assert.equal(p.chat.prompts.length, 1, 'the second message waits for the first');
    first.open();
    assert.equal(answered(await outcome(a)).text, 'First answer.');
    assert.equal(answered(await outcome(b)).text, 'Second answer.');
    assert.match(p.chat.promptText(1), /First answer\./, 'the second turn saw the first answer');
    assert.deepEqual(await p.stored(), [
      'human: (from U1)\none',
      'ai: First answer.',
      'human: (from U1)\ntwo',
      'ai: Second answer.',
    ]);
  });

  test('with every turn slot taken, another session waits for one', async () => {
    const first = gate();
    const p = pipeline({ scripts: [[first.wait, 'A.'], ['B.']], maxConcurrentTurns: 1 });
    const other = { ...REF, sessionId: '2.2' };
    const a = p.ask('in the first thread');
    const b = p.ask('in the second thread', {}, other);
    await settle();
    assert.equal(p.chat.prompts.length, 1);
    assert.equal(await isSettled(b), false, 'the second session has not started');
    first.open();
    assert.equal(answered(await outcome(a)).text, 'A.');
    assert.equal(answered(await outcome(b)).text, 'B.');
    assert.deepEqual(p.port(other).texts(), ['B.']);
  });

  test('a waiting question shows how many are ahead of it, and the count moves', async () => {
    const first = gate();
    const p = pipeline({
      scripts: [[first.wait, 'A.'], ['B.'], ['C.']],
      maxConcurrentTurns: 1,
      queueNoticeMs: 1000,
      admission: 'fair',
    });
    const [two, three] = [
      { ...REF, sessionId: '2.2' },
      { ...REF, channelId: 'C2', sessionId: '3.3' },
    ];
    const a = p.ask('first');
    const b = p.ask('second', {}, two);
    const c = p.ask('third', {}, three);
    await settle();
    const statuses = (ref: ThreadRef) =>
      p.port(ref).calls.flatMap((k) => (k.op === 'status' ? [k.text] : []));
    // C2 has used nothing yet, so the third question goes before the second (same channel as A);
    // the second's place is looked at again within a second.
    await advance(1000);
    assert.deepEqual(statuses(two), ['is thinking… (1 question ahead of yours)']);
    assert.deepEqual(statuses(three), []);
    first.open();
    assert.equal(answered(await outcome(a)).text, 'A.');
    assert.equal(answered(await outcome(c)).text, 'C.');
    await advance(1000);
    assert.equal(answered(await outcome(b)).text, 'B.');
    assert.equal(statuses(two).at(-1), 'is thinking…', 'its own turn started');
  });

  test('while shutting down a new message is refused and told; a running turn still finishes', async () => {
    const running = gate();
    const p = pipeline({ scripts: [[running.wait, 'Done.']] });
    const a = p.ask('before the restart');
    await settle();
    const drained = p.runner.drain(30_000);
    const late = await outcome(p.ask('during the restart', {}, { ...REF, sessionId: '3.3' }));
    assert.deepEqual(late, { status: 'rejected', reason: 'shutting_down' });
    assert.deepEqual(p.port({ ...REF, sessionId: '3.3' }).texts(), [
      messages.error(messages.shuttingDown),
    ]);
    assert.equal(await isSettled(drained), false, 'drain waits for the running turn');
    running.open();
    assert.equal(answered(await outcome(a)).text, 'Done.');
    assert.equal(await outcome(drained), true);
  });

  test('a thread another replica holds is waited for up to the turn timeout, then the person is told', async () => {
    const p = pipeline({ scripts: [['Never.']] });
    assert.ok(
      await p.store.leases.acquire(`lock:${sessionKey(REF)}`, 'other-replica', 10 * TURN_MS),
    );
    const a = p.ask('hello?');
    await advance(TURN_MS - 1000);
    assert.equal(await isSettled(a), false, 'still waiting for the lock');
    await advance(2000);
    assert.deepEqual(await outcome(a), {
      status: 'failed',
      code: 'session_busy',
      userMessage: messages.sessionBusy,
    });
    assert.deepEqual(p.port().texts(), [messages.error(messages.sessionBusy)]);
    assert.equal(p.chat.prompts.length, 0, 'the model was never asked');
  });
});

describe('turn pipeline: a lost lock', () => {
  test('a turn whose lock another replica took stops, says so, and writes no history', async () => {
    const stuck = gate();
    const p = pipeline({ scripts: [['Partial ', stuck.wait, 'never shown.']] });
    const a = p.ask('a long question');
    await settle();
    assert.equal(p.chat.prompts.length, 1);
    // Another replica takes the claim (as after an expiry); the next renewal finds it gone.
    const key = `lock:${sessionKey(REF)}`;
    const was = await p.store.leases.holder(key);
    await p.store.leases.release(key, was?.holder ?? '', was?.token ?? 0);
    assert.ok(await p.store.leases.acquire(key, 'other-replica', 10 * LOCK_TTL_MS));
    await advance(RENEW_MS);
    assert.deepEqual(await outcome(a), {
      status: 'failed',
      code: 'lock_lost',
      userMessage: messages.lockLost,
    });
    const thread = p.port().texts().join('\n');
    assert.match(thread, /Partial/);
    assert.ok(thread.includes(messages.lockLost), thread);
    assert.doesNotMatch(thread, /never shown/);
    assert.deepEqual(await p.stored(), [], 'no history written');
    assert.equal(
      (await p.store.leases.holder(key))?.holder,
      'other-replica',
      'the new holder keeps the lock',
    );
  });
});

describe('turn pipeline: a thread too long for the server', () => {
  const earlier = [
    new HumanMessage('old question one'),
    new AIMessage('old answer one'),
    new HumanMessage('old question two'),
    new AIMessage('old answer two'),
  ];
  const tooLong = () => ({ fail: new ContextOverflowError('maximum context length exceeded') });

  test('is compressed and asked once more: the summary is posted and the answer follows', async () => {
    const p = pipeline({ scripts: [[tooLong()], ['The answer.']], summary: 'EARLIER SUMMARY' });
    await p.history.save(sessionKey(REF), earlier);
    assert.equal(answered(await outcome(p.ask('new question'))).text, 'The answer.');
    assert.equal(p.chat.prompts.length, 2);
    const retry = p.chat.promptText(1);
    assert.match(retry, /EARLIER SUMMARY/, 'the retry carries the summary');
    assert.doesNotMatch(retry, /old question one/, 'and not the turns it replaced');
    const thread = p.port().texts();
    assert.ok(
      thread.some((t) => t.includes('EARLIER SUMMARY')),
      'the summary was posted',
    );
    assert.equal(thread.at(-1), 'The answer.');
  });

  test('a run whose fencing token is stale: its summary is not saved, nor posted', async () => {
    const p = pipeline({ scripts: [[tooLong()], ['Never sent.']], summary: 'STALE SUMMARY' });
    await p.history.save(sessionKey(REF), earlier);
    // This run's job lease (generation 1) was taken over by a newer run (generation 2).
    const stale = await p.store.leases.acquire('job:j1', 'stalled', 60_000);
    assert.equal(stale, 1);
    await p.store.leases.release('job:j1', 'stalled', 1);
    assert.equal(await p.store.leases.acquire('job:j1', 'newer', 60_000), 2);
    const ended = await outcome(
      p.ask('new question', {}, REF, false, { lease: 'job:j1', token: 1 }),
    );
    assert.equal(ended.status === 'failed' && ended.code, 'lock_lost');
    assert.deepEqual(
      await p.stored(),
      earlier.map((m) => `${m.type}: ${String(m.content)}`),
      'the history is as the newer run left it',
    );
    assert.deepEqual(await p.history.archived(sessionKey(REF)), [], 'nothing was archived');
    assert.ok(
      !p
        .port()
        .texts()
        .some((t) => t.includes('STALE SUMMARY')),
      'nor posted',
    );
  });

  test('too long again after compressing: the person is told, and the model was asked twice', async () => {
    const p = pipeline({ scripts: [[tooLong()], [tooLong()]] });
    await p.history.save(sessionKey(REF), earlier);
    const ended = await outcome(p.ask('new question'));
    assert.equal(ended.status === 'failed' && ended.code, 'context_too_long');
    assert.equal(p.chat.prompts.length, 2);
    const thread = p.port().texts();
    assert.ok(thread.at(-1)?.startsWith(messages.error('')), thread.join('\n'));
  });

  test('once words of the answer were shown it is not asked again', async () => {
    const p = pipeline({ scripts: [['Shown words ', tooLong()], ['Second try.']] });
    await p.history.save(sessionKey(REF), earlier);
    const ended = await outcome(p.ask('new question'));
    assert.equal(ended.status === 'failed' && ended.code, 'context_too_long');
    assert.equal(p.chat.prompts.length, 1);
    assert.doesNotMatch(p.port().texts().join('\n'), /Second try/);
  });
});

describe('turn pipeline: a follow-up answered while the thread is read', () => {
  const quoted = [{ id: '5', authorId: 'U2', authorName: 'Ana', at: 0, text: 'budget is 5k' }];

  test('new messages found: the held words never show, and the model starts again with them', async () => {
    const read = pendingRead();
    const stale = gate();
    const p = pipeline({ scripts: [['Stale words', stale.wait, ' more.'], ['Fresh answer.']] });
    const a = p.ask('what is the budget?', { speculate: true, context: read.context });
    await settle();
    await advance(100);
    assert.equal(p.chat.prompts.length, 1, 'the model started before the read was done');
    assert.doesNotMatch(p.port().texts().join('\n'), /Stale/, 'its words are held');
    read.finish({ quoted });
    assert.equal(answered(await outcome(a)).text, 'Fresh answer.');
    assert.equal(p.chat.prompts.length, 2);
    assert.match(p.chat.promptText(1), /budget is 5k/, 'the second run quotes the new message');
    assert.doesNotMatch(p.chat.promptText(0), /budget is 5k/);
    assert.doesNotMatch(p.port().texts().join('\n'), /Stale/);
    assert.equal(await p.restarts(), 1);
    assert.equal(read.commits.length, 1, 'the new messages are marked read');
  });

  test('nothing new: the held words are shown as soon as the read says so, and kept', async () => {
    const read = pendingRead();
    const rest = gate();
    const p = pipeline({ scripts: [['Early words', rest.wait, ' and the rest.']] });
    const a = p.ask('and then?', { speculate: true, context: read.context });
    await advance(100);
    assert.doesNotMatch(p.port().texts().join('\n'), /Early words/, 'held while reading');
    read.finish({ quoted: [] });
    await advance(100);
    assert.match(p.port().texts().join('\n'), /Early words/, 'released before the answer ends');
    rest.open();
    assert.equal(answered(await outcome(a)).text, 'Early words and the rest.');
    assert.equal(p.chat.prompts.length, 1);
    assert.equal(await p.restarts(), 0);
    assert.deepEqual(await p.stored(), [
      'human: (from U1)\nand then?',
      'ai: Early words and the rest.',
    ]);
  });
});

describe('turn pipeline: a summary on request', () => {
  test('an empty thread says so; a thread with history gets its summary and keeps its history', async () => {
    const p = pipeline({ scripts: [], summary: 'THE SUMMARY' });
    assert.equal(answered(await outcome(p.ask('summarize', {}, REF, true))).text, '');
    assert.deepEqual(p.port().texts(), [messages.nothingToSummarize]);
    const earlier = [new HumanMessage('q'), new AIMessage('a')];
    await p.history.save(sessionKey(REF), earlier);
    assert.equal(answered(await outcome(p.ask('summarize', {}, REF, true))).text, 'THE SUMMARY');
    assert.equal(p.port().texts().at(-1), messages.summary('THE SUMMARY', 'requested'));
    assert.deepEqual(await p.stored(), ['human: q', 'ai: a'], 'history untouched');
    assert.equal(p.chat.prompts.length, 0, 'no answer was asked for');
  });
});

describe('turn pipeline: deadlines', () => {
  test('a model silent past its deadline ends the turn with a message', async () => {
    const never = gate();
    const p = pipeline({ scripts: [[never.wait]] });
    const a = p.ask('anyone there?');
    await advance(SILENCE_MS - 1000, 500);
    assert.equal(await isSettled(a), false);
    await advance(2000, 500);
    const ended = await outcome(a);
    assert.equal(ended.status === 'failed' && ended.code, 'model_timeout');
    assert.ok(p.port().texts().at(-1)?.startsWith(messages.error('')));
    assert.deepEqual(await p.stored(), []);
  });
});

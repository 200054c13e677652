import { type BaseMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import { type AgentGraph, buildAgentGraph } from '../agent/agent-graph.ts';
import { systemPrompt, userTurnText } from '../agent/prompts.ts';
import { type AgentRunResult, runAgent } from '../agent/run-agent.ts';
import type { ToolRegistry } from '../agent/tool-registry.ts';
import type { ModelEndpoint } from '../llm/model-endpoint.ts';
import type { Logger } from '../log/logger.ts';
import type { Metrics } from '../log/metrics.ts';
import type { ContextManager, PromptCount } from '../memory/context-manager.ts';
import { asCodedError, ThreadmindError } from '../model/errors.ts';
import { ownersOf, sessionKey } from '../model/thread-ref.ts';
import { type Owner, runInScope } from '../scope/scope.ts';
import type { SessionHistory } from '../store/session-history.ts';
import type { SessionLock } from '../store/session-lock.ts';
import { KeyedQueue } from '../util/keyed-queue.ts';
import { Semaphore } from '../util/semaphore.ts';
import type { AnswerStream, IncomingMessage, ReplySink, TurnOutcome } from './types.ts';

/**
 * The last `max` messages, starting at a person's message: a window that opened on a tool result
 * or a tool call would be rejected by the server (a tool message must follow its call).
 */
export function recentHistory(history: BaseMessage[], max: number): BaseMessage[] {
  let start = Math.max(0, history.length - max);
  while (start < history.length && history[start]?.type !== 'human') start++;
  return history.slice(start);
}

const TRUNCATED_NOTE = 'The answer was cut off at the reply length limit. Ask me to continue.';

export interface TurnRunnerOptions {
  botName: string;
  maxConcurrentTurns: number;
  maxQueuedPerSession: number;
  maxToolRounds: number;
  maxReplyTokens: number;
  summaryMaxTokens: number;
  turnTimeoutMs: number;
  firstTokenTimeoutMs: number;
  historyTurnsInPrompt: number;
}

export interface TurnRunnerDeps {
  llm: ModelEndpoint;
  tools: ToolRegistry;
  memory: ContextManager;
  history: SessionHistory;
  lock: SessionLock;
  metrics: Metrics;
  log: Logger;
  now?: () => Date;
  /** What a turn should know about its owners' files: images in reach and a prompt section. */
  context?: (owners: readonly Owner[]) => Promise<TurnContext>;
}

export interface TurnContext {
  images: string[];
  section?: string;
}

/**
 * The turn pipeline: per-session FIFO, a global concurrency bound, the request scope, the agent,
 * streaming to the platform and persisting history. Never rejects: every failure ends as a message
 * in the thread and a log line with the trace id.
 */
export class TurnRunner {
  private readonly o: TurnRunnerOptions;
  private readonly d: TurnRunnerDeps;
  private readonly queue: KeyedQueue;
  private readonly slots: Semaphore;
  private readonly graphs = new WeakMap<object, AgentGraph>();
  private readonly running = new Set<Promise<TurnOutcome>>();
  private closing = false;

  constructor(o: TurnRunnerOptions, d: TurnRunnerDeps) {
    this.o = o;
    this.d = d;
    this.queue = new KeyedQueue(o.maxQueuedPerSession);
    this.slots = new Semaphore(o.maxConcurrentTurns);
  }

  get pendingTurns(): number {
    return this.queue.size;
  }

  /** Queues a message for its session; resolves when it has been answered (or failed visibly). */
  submit(msg: IncomingMessage, reply: ReplySink): Promise<TurnOutcome> {
    if (this.closing) return Promise.resolve({ status: 'rejected', reason: 'shutting_down' });
    const key = sessionKey(msg.ref);
    const traceId = msg.traceId;
    const log = this.d.log.child({ trace_id: traceId, platform: msg.ref.platform, session: key });
    const queued = this.queue.push(key, () => this.run(msg, reply, key, traceId, log));
    if (!queued) {
      log.warn({ pending: this.queue.pending(key) }, 'session queue full; message refused');
      this.d.metrics.errors.inc({ kind: 'queue_full' });
      const text = `I already have ${this.o.maxQueuedPerSession} messages waiting in this thread. Please wait for my answers before sending more.`;
      return reply.reportError(text).then(
        () => ({ status: 'rejected', reason: 'queue_full' }) as const,
        (err: unknown) => {
          log.error({ err }, 'could not tell the user the queue is full');
          return { status: 'rejected', reason: 'queue_full' } as const;
        },
      );
    }
    this.d.metrics.queueDepth.set(this.queue.size);
    log.debug({ pending: this.queue.pending(key) }, 'message queued');
    this.running.add(queued);
    void queued.finally(() => {
      this.running.delete(queued);
      this.d.metrics.queueDepth.set(this.queue.size);
    });
    return queued;
  }

  /** "summarize": posts a summary of the thread so far, in the session's order; history untouched. */
  summarize(msg: IncomingMessage, reply: ReplySink): Promise<TurnOutcome> {
    const key = sessionKey(msg.ref);
    const log = this.d.log.child({
      trace_id: msg.traceId,
      platform: msg.ref.platform,
      session: key,
    });
    const run = async (): Promise<TurnOutcome> => {
      try {
        const history = await this.d.history.load(key);
        if (history.length === 0) {
          await reply.postMessage('There is nothing to summarise in this thread yet.');
          return { status: 'answered', text: '' };
        }
        await reply.showStatus('summarizing').catch(() => undefined);
        const summary = await this.d.memory.summarizeOnDemand(
          history,
          await this.d.llm.variant(this.o.summaryMaxTokens),
        );
        if (!summary) throw new Error('the model returned an empty summary');
        await reply.postSummary(summary, 'requested');
        return { status: 'answered', text: summary };
      } catch (err) {
        const coded = asCodedError(err);
        log.error({ err, code: coded.code }, 'summary on request failed');
        await reply
          .reportError(
            coded.code === 'internal'
              ? 'I could not write a summary just now. Please try again.'
              : coded.userMessage,
          )
          .catch(() => undefined);
        return { status: 'failed', code: coded.code, userMessage: coded.userMessage };
      }
    };
    return (
      this.queue.push(key, run) ?? Promise.resolve({ status: 'rejected', reason: 'queue_full' })
    );
  }

  /** Stops taking messages and waits (bounded) for queued and running turns to finish. */
  async drain(timeoutMs: number): Promise<boolean> {
    this.closing = true;
    const all = Promise.allSettled([...this.running]).then(() => true);
    const timeout = new Promise<boolean>((r) => setTimeout(() => r(false), timeoutMs).unref());
    return Promise.race([all, timeout]);
  }

  private observeCount(count: PromptCount, actual: number | undefined, log: Logger): void {
    if (actual === undefined || actual <= 0) return;
    const error = Math.abs(count.tokens - actual) / actual;
    this.d.metrics.tokenEstimateError.observe({ source: count.source }, error);
    log.debug(
      { estimate: count.tokens, source: count.source, actual },
      'prompt token count vs server',
    );
  }

  private graphFor(model: object): AgentGraph {
    let g = this.graphs.get(model);
    if (!g) {
      g = buildAgentGraph({
        model: model as Parameters<typeof buildAgentGraph>[0]['model'],
        tools: this.d.tools.list(),
        maxToolRounds: this.o.maxToolRounds,
      });
      this.graphs.set(model, g);
    }
    return g;
  }

  private async run(
    msg: IncomingMessage,
    reply: ReplySink,
    key: string,
    traceId: string,
    log: Logger,
  ): Promise<TurnOutcome> {
    const release = await this.slots.acquire();
    const started = performance.now();
    this.d.metrics.turnsInFlight.inc();
    let answer: AnswerStream | undefined;
    const controller = new AbortController();
    const turnTimer = setTimeout(
      () =>
        controller.abort(
          new ThreadmindError(
            'turn_timeout',
            `turn exceeded ${this.o.turnTimeoutMs} ms`,
            `I could not finish within ${Math.round(this.o.turnTimeoutMs / 1000)} seconds, so I stopped. Please try a narrower question.`,
          ),
        ),
      this.o.turnTimeoutMs,
    );
    let idleTimer: NodeJS.Timeout | undefined;
    const armIdle = () => {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(
        () =>
          controller.abort(
            new ThreadmindError(
              'model_timeout',
              `no output from the model for ${this.o.firstTokenTimeoutMs} ms`,
              'The model did not respond in time. Please try again in a minute.',
            ),
          ),
        this.o.firstTokenTimeoutMs,
      );
    };
    let lock: { release(): Promise<void> } | undefined;
    try {
      lock = await this.d.lock.acquire(key, this.o.turnTimeoutMs);
      log.info({ principal: msg.principal, chars: msg.text.length }, 'turn started');
      // The status goes out while the turn gets ready; the reply sink orders what follows it.
      reply
        .showStatus('thinking')
        .catch((err: unknown) => log.warn({ err }, 'could not show status'));
      const owners = ownersOf(msg.ref);
      const [stored, model, context] = await Promise.all([
        this.d.history.load(key),
        this.d.llm.resolve(),
        this.d.context ? this.d.context(owners) : Promise.resolve<TurnContext>({ images: [] }),
      ]);
      const human = new HumanMessage(userTurnText(msg.principal, msg.text));
      const system = systemPrompt({
        botName: this.o.botName,
        platform: msg.ref.platform,
        now: (this.d.now ?? (() => new Date()))(),
        ...(context.section ? { sections: [context.section] } : {}),
      });
      const scope = {
        ref: msg.ref,
        principal: msg.principal,
        owners,
        images: context.images,
        traceId,
      };
      let history = stored;
      let result: AgentRunResult | undefined;
      // A server that still finds the request too long gets one retry after a forced compression.
      for (let attempt = 0; !result; attempt++) {
        const prepared = await this.d.memory.prepare({
          key,
          history,
          system: new SystemMessage(system),
          human,
          tools: this.d.tools.list(),
          maxModelLen: model.info.maxModelLen,
          summarizer: () => this.d.llm.variant(this.o.summaryMaxTokens),
          reply,
          log,
          force: attempt > 0,
        });
        history = prepared.history;
        if (prepared.compressed) reply.showStatus('thinking').catch(() => undefined);
        const prompt: BaseMessage[] = [
          ...recentHistory(history, this.o.historyTurnsInPrompt),
          human,
        ];
        armIdle();
        try {
          result = await runInScope(scope, () =>
            runAgent({
              graph: this.graphFor(model.chat),
              system,
              messages: prompt,
              signal: controller.signal,
              maxToolRounds: this.o.maxToolRounds,
              maxReplyTokens: this.o.maxReplyTokens,
              windowBudget: prepared.windowBudget,
              onText: (delta) => {
                answer ??= reply.beginAnswer();
                answer.append(delta);
              },
              onActivity: (phase) => (phase === 'model' ? armIdle() : clearTimeout(idleTimer)),
            }),
          );
          this.observeCount(prepared.count, result.usage.firstPromptTokens, log);
          await this.d.memory.remember(
            key,
            result.usage.lastPromptTokens,
            prompt.length + result.added.length,
          );
        } catch (err) {
          if (attempt > 0 || answer || asCodedError(err).code !== 'context_too_long') throw err;
          log.warn({ err }, 'the server found the request too long; compressing and retrying once');
        }
      }
      clearTimeout(idleTimer);
      let text =
        result.text.trim() ||
        '_The model returned an empty answer. Please rephrase your question._';
      answer ??= reply.beginAnswer();
      if (result.truncated) {
        // Nothing silent: say so when the reply budget cut the answer short.
        const note = `\n\n_(${TRUNCATED_NOTE})_`;
        answer.append(note);
        text += note;
      }
      await answer.finish(text);
      await this.d.history.save(key, this.d.memory.settle(history, human, result.added));
      this.d.metrics.tokens.inc({ direction: 'in' }, result.usage.inputTokens);
      this.d.metrics.tokens.inc({ direction: 'out' }, result.usage.outputTokens);
      this.d.metrics.turnSeconds.observe(
        { platform: msg.ref.platform, outcome: 'answered' },
        (performance.now() - started) / 1000,
      );
      log.info(
        { ms: Math.round(performance.now() - started), usage: result.usage, chars: text.length },
        'turn answered',
      );
      return { status: 'answered', text };
    } catch (err) {
      const coded = asCodedError(
        controller.signal.reason instanceof ThreadmindError ? controller.signal.reason : err,
      );
      log.error({ err, code: coded.code }, 'turn failed');
      this.d.metrics.errors.inc({ kind: coded.code });
      this.d.metrics.turnSeconds.observe(
        { platform: msg.ref.platform, outcome: 'failed' },
        (performance.now() - started) / 1000,
      );
      try {
        if (answer) await answer.fail(coded.userMessage);
        else await reply.reportError(coded.userMessage);
      } catch (postErr) {
        log.error({ err: postErr }, 'could not post the error message to the thread');
      }
      return { status: 'failed', code: coded.code, userMessage: coded.userMessage };
    } finally {
      clearTimeout(turnTimer);
      clearTimeout(idleTimer);
      await lock
        ?.release()
        .catch((err: unknown) => log.warn({ err }, 'could not release session lock'));
      this.d.metrics.turnsInFlight.dec();
      release();
    }
  }
}

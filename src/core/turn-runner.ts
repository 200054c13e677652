import { AIMessage, type BaseMessage, SystemMessage } from '@langchain/core/messages';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { type AgentGraph, buildAgentGraph } from '../agent/agent-graph.ts';
import { systemPrompt } from '../agent/prompts.ts';
import { type AgentRunResult, runAgent } from '../agent/run-agent.ts';
import type { ToolRegistry } from '../agent/tool-registry.ts';
import { asCodedError } from '../llm/classify-error.ts';
import type { ModelEndpoint } from '../llm/model-endpoint.ts';
import type { Logger } from '../log/logger.ts';
import type { Metrics } from '../log/metrics.ts';
import type { ContextManager, PromptCount } from '../memory/context-manager.ts';
import { fitQuoted, humanTurn } from '../memory/thread-messages.ts';
import type { AnswerFooter } from '../model/answer-extras.ts';
import { ThreadmindError } from '../model/errors.ts';
import type { TurnOutcome } from '../model/handled.ts';
import type { IncomingMessage } from '../model/incoming.ts';
import { type Owner, ownersOf, sessionKey } from '../model/thread-ref.ts';
import { runInScope } from '../scope/scope.ts';
import type { SessionHistory } from '../store/session-history.ts';
import type { HeldLock } from '../store/session-lock.ts';
import { settlesWithin } from '../util/deadline.ts';
import { KeyedQueue } from '../util/keyed-queue.ts';
import { Semaphore } from '../util/semaphore.ts';
import { answerSources } from './answer-sources.ts';
import type { AnswerWriter } from './answer-writer.ts';
import type { AnswerAudience } from './audience.ts';
import { type ChannelSettings, TOOL_GROUP_OF } from './channel-settings.ts';
import type { FeedbackService } from './feedback.ts';
import { messages } from './messages.ts';
import type { ProjectEraser } from './project-eraser.ts';
import type { SessionState } from './session-state.ts';
import type { CaughtUp } from './thread-context.ts';
import type { ThreadOutput } from './thread-output.ts';
import { TurnWatchdog } from './turn-watchdog.ts';

/**
 * The last `max` messages, starting at a person's message: a window that opened on a tool result
 * or a tool call would be rejected by the server (a tool message must follow its call).
 */
export function recentHistory(history: BaseMessage[], max: number): BaseMessage[] {
  let start = Math.max(0, history.length - max);
  while (start < history.length && history[start]?.type !== 'human') start++;
  return history.slice(start);
}

export type { TurnOutcome };

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
  state: SessionState;
  metrics: Metrics;
  log: Logger;
  now?: () => Date;
  /** What a turn should know about its owners' files: images in reach and a prompt section. */
  context?: (owners: readonly Owner[]) => Promise<TurnContext>;
  /** Records answered turns so people can vote on them; absent: answers carry no buttons. */
  feedback?: FeedbackService | undefined;
  /** Says whether the turn's project was erased while it ran (then its history is not kept). */
  erasures?: Pick<ProjectEraser, 'erasedSince'> | undefined;
}

export interface TurnContext {
  images: string[];
  section?: string;
}

/** What the conversation hands a turn besides the message: the channel's settings, its context. */
export interface TurnInput {
  settings?: ChannelSettings | undefined;
  /** Reads the thread's unread messages; runs under the session lock, so turns read in order. */
  context?: (() => Promise<CaughtUp>) | undefined;
  /**
   * A follow-up in a thread already read: usually nothing new was posted since, so the model starts
   * at once and the read runs beside it; its output is held until the read says nothing is new
   * (else the turn starts again with the new messages).
   */
  speculate?: boolean | undefined;
  /** The asker's name when known before the thread is read (the read also tells it). */
  askerName?: string | undefined;
  /** Decides whether knowledge evidence keeps the answer where everyone reads it. */
  audience?: AnswerAudience | undefined;
}

interface Admitted {
  msg: IncomingMessage;
  out: ThreadOutput;
  key: string;
  log: Logger;
  lock: HeldLock;
  input: TurnInput;
}

const NOTHING_NEW: CaughtUp = { quoted: [], commit: async () => undefined };

/** Share of the window the quoted thread messages of one turn may fill (in characters, ~3 a token). */
const QUOTED_WINDOW_SHARE = 0.4;
const CHARS_PER_TOKEN = 3;

/**
 * The turn pipeline: per-session FIFO, a global concurrency bound, the session lock, the request
 * scope, the agent, streaming to the thread and persisting history. Answers and summaries on
 * request go through the same admission. Never rejects: every failure ends as a message in the
 * thread and a log line with the trace id.
 */
export class TurnRunner {
  private readonly o: TurnRunnerOptions;
  private readonly d: TurnRunnerDeps;
  private readonly queue: KeyedQueue;
  private readonly slots: Semaphore;
  /** Built graphs by model, then by the tool set a channel allows. */
  private readonly graphs = new WeakMap<object, Map<string, AgentGraph>>();
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
  submit(msg: IncomingMessage, out: ThreadOutput, input: TurnInput = {}): Promise<TurnOutcome> {
    return this.admit(msg, out, input, (a) => this.answer(a));
  }

  /** "summarize": posts a summary of the thread so far, in the session's order; history untouched. */
  summarize(msg: IncomingMessage, out: ThreadOutput, input: TurnInput = {}): Promise<TurnOutcome> {
    return this.admit(msg, out, input, (a) => this.summary(a));
  }

  /** Stops taking messages and waits (bounded) for queued and running turns to finish. */
  async drain(timeoutMs: number): Promise<boolean> {
    this.closing = true;
    return settlesWithin(Promise.allSettled([...this.running]), timeoutMs);
  }

  private admit(
    msg: IncomingMessage,
    out: ThreadOutput,
    input: TurnInput,
    work: (a: Admitted) => Promise<TurnOutcome>,
  ): Promise<TurnOutcome> {
    const key = sessionKey(msg.ref);
    const log = this.d.log.child({
      trace_id: msg.traceId,
      platform: msg.ref.platform,
      session: key,
    });
    if (this.closing) {
      return this.refuse(out, log, messages.shuttingDown, 'shutting_down');
    }
    const enqueued = performance.now();
    const queued = this.queue.push(key, () =>
      this.inSlot({ msg, out, key, log, input }, enqueued, work),
    );
    if (!queued) {
      log.warn({ pending: this.queue.pending(key) }, 'session queue full; message refused');
      this.d.metrics.errors.inc({ kind: 'queue_full' });
      return this.refuse(out, log, messages.queueFull(this.o.maxQueuedPerSession), 'queue_full');
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

  private async refuse(
    out: ThreadOutput,
    log: Logger,
    text: string,
    reason: 'queue_full' | 'shutting_down',
  ): Promise<TurnOutcome> {
    await out.reportError(text).catch((err: unknown) => {
      log.error({ err }, 'could not tell the user the message was refused');
    });
    return { status: 'rejected', reason };
  }

  private async inSlot(
    a: Omit<Admitted, 'lock'>,
    enqueued: number,
    work: (a: Admitted) => Promise<TurnOutcome>,
  ): Promise<TurnOutcome> {
    const { msg, out, log } = a;
    const release = await this.slots.acquire();
    this.d.metrics.queueWaitSeconds.observe(
      { platform: msg.ref.platform },
      (performance.now() - enqueued) / 1000,
    );
    this.d.metrics.turnsInFlight.inc();
    let lock: HeldLock | undefined;
    try {
      try {
        lock = await this.d.state.lock(msg.ref, this.o.turnTimeoutMs);
      } catch (err) {
        log.error({ err }, 'could not get the session lock');
        this.d.metrics.errors.inc({ kind: 'session_busy' });
        await out.reportError(messages.sessionBusy).catch(() => undefined);
        return { status: 'failed', code: 'session_busy', userMessage: messages.sessionBusy };
      }
      return await work({ ...a, lock });
    } finally {
      await lock
        ?.release()
        .catch((err: unknown) => log.warn({ err }, 'could not release session lock'));
      out.close();
      this.d.metrics.turnsInFlight.dec();
      release();
    }
  }

  private async summary({ msg, out, key, log, lock, input }: Admitted): Promise<TurnOutcome> {
    try {
      const summarizer = () => this.d.llm.variant(this.o.summaryMaxTokens);
      const history = await this.d.memory.refreshSummary(
        key,
        await this.d.history.load(key),
        summarizer,
        log,
      );
      // The people's messages count too; they stay unread, so the next question still quotes them.
      const caught = await (input.context?.() ?? NOTHING_NEW);
      const unread =
        caught.quoted.length > 0
          ? [
              humanTurn({
                quoted: caught.quoted,
                omitted: 0,
                askerId: msg.principal,
                text: '',
              }),
            ]
          : [];
      if (history.length === 0 && unread.length === 0) {
        await out.post(messages.nothingToSummarize);
        return { status: 'answered', text: '' };
      }
      void out.showStatus('summarizing');
      const summary = await this.d.memory.summarizeOnDemand(
        [...history, ...unread],
        await summarizer(),
      );
      if (!summary) throw new Error('the model returned an empty summary');
      lock.signal.throwIfAborted();
      await out.postSummary(summary, 'requested');
      return { status: 'answered', text: summary };
    } catch (err) {
      const coded = asCodedError(lock.signal.aborted ? lock.signal.reason : err);
      log.error({ err, code: coded.code }, 'summary on request failed');
      const text = coded.code === 'internal' ? messages.summaryFailed : coded.userMessage;
      await out.reportError(text).catch(() => undefined);
      return { status: 'failed', code: coded.code, userMessage: text };
    }
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

  /** The tools a channel allows (all of them without settings). */
  private toolsFor(settings: ChannelSettings | undefined): StructuredToolInterface[] {
    const all = this.d.tools.list();
    if (!settings) return all;
    return all.filter((t) => {
      const group = TOOL_GROUP_OF[t.name];
      return group === undefined || settings.tools[group];
    });
  }

  private graphFor(model: object, tools: StructuredToolInterface[]): AgentGraph {
    let byTools = this.graphs.get(model);
    if (!byTools) {
      byTools = new Map();
      this.graphs.set(model, byTools);
    }
    const names = tools.map((t) => t.name).join(',');
    let g = byTools.get(names);
    if (!g) {
      g = buildAgentGraph({
        model: model as Parameters<typeof buildAgentGraph>[0]['model'],
        tools,
        maxToolRounds: this.o.maxToolRounds,
      });
      byTools.set(names, g);
    }
    return g;
  }

  /**
   * The answer to the asker alone; the thread keeps what it already showed (written before any
   * evidence) and a note saying where the answer went.
   */
  private async deliverPrivately(
    out: ThreadOutput,
    asker: string,
    text: string,
    shown: string,
    answer: AnswerWriter | undefined,
  ): Promise<void> {
    const sent = await out.postPrivate(asker, messages.privateAnswer(text));
    const note = sent ? messages.answeredPrivately : messages.privateUnavailable;
    if (answer) await answer.finish(`${shown.trimEnd()}\n\n${note}`);
    else await out.post(note);
  }

  /** The answer's sources and, once the turn is recorded, what its feedback buttons name. */
  private async footerOf(
    msg: IncomingMessage,
    model: string,
    settings: ChannelSettings | undefined,
    added: AgentRunResult['added'],
    log: Logger,
  ): Promise<Omit<AnswerFooter, 'sourcesText'>> {
    const sources = answerSources(added);
    const feedback = this.d.feedback;
    if (!feedback) return { sources };
    try {
      await feedback.recordTurn({
        id: msg.traceId,
        ref: msg.ref,
        model,
        settings,
        askedBy: msg.principal,
        at: Date.now(),
      });
      return { feedbackId: msg.traceId, sources };
    } catch (err) {
      log.warn({ err }, 'could not record the turn for feedback; the answer has no buttons');
      return { sources };
    }
  }

  private async answer({ msg, out, key, log, lock, input }: Admitted): Promise<TurnOutcome> {
    const started = performance.now();
    const startedAt = Date.now();
    let answer: AnswerWriter | undefined;
    // A lost session lock stops the turn like a timeout: another replica owns the thread now.
    const watchdog = new TurnWatchdog({
      turnMs: this.o.turnTimeoutMs,
      idleMs: this.o.firstTokenTimeoutMs,
      also: lock.signal,
    });
    const { signal } = watchdog;
    try {
      log.info({ principal: msg.principal, chars: msg.text.length }, 'turn started');
      // The status goes out while the turn gets ready; the output orders what follows it.
      void out.showStatus('thinking');
      const owners = ownersOf(msg.ref);
      const settings = input.settings;
      const tools = this.toolsFor(settings);
      // A failed read costs the turn its context, not its answer.
      const reading = (input.context?.() ?? Promise.resolve(NOTHING_NEW)).catch((err: unknown) => {
        log.warn({ err }, 'could not read the thread; answering without its messages');
        return NOTHING_NEW;
      });
      // Read first unless speculating: files posted earlier must be in reach of this turn's tools.
      let caught = input.speculate ? undefined : await reading;
      const [stored, model, context] = await Promise.all([
        this.d.history.load(key),
        this.d.llm.resolve(settings?.model),
        this.d.context ? this.d.context(owners) : Promise.resolve<TurnContext>({ images: [] }),
      ]);
      const window = this.d.memory.window(model.info.maxModelLen);
      const turnOf = (c: CaughtUp) => {
        const askerName = c.askerName ?? input.askerName;
        return humanTurn({
          ...fitQuoted(c.quoted, window * QUOTED_WINDOW_SHARE * CHARS_PER_TOKEN),
          askerId: msg.principal,
          ...(askerName ? { askerName } : {}),
          messageId: msg.messageId,
          text: msg.text,
        });
      };
      let human = turnOf(caught ?? NOTHING_NEW);
      const sections = [
        ...(context.section ? [context.section] : []),
        ...(settings?.instructions
          ? [`Instructions for this channel, set by its admins:\n${settings.instructions}`]
          : []),
      ];
      const system = systemPrompt({
        botName: this.o.botName,
        platform: msg.ref.platform,
        now: (this.d.now ?? (() => new Date()))(),
        ...(sections.length > 0 ? { sections } : {}),
      });
      const audience = input.audience;
      const scope = {
        ref: msg.ref,
        principal: msg.principal,
        owners,
        images: context.images,
        traceId: msg.traceId,
        onEvidence: audience
          ? (e: Parameters<AnswerAudience['admit']>[0]) => audience.admit(e)
          : undefined,
      };
      // What reached the thread before the answer went private (written before any evidence).
      let shown = '';
      let history = stored;
      let result: AgentRunResult | undefined;
      // A server that still finds the request too long gets one retry after a forced compression.
      for (let attempt = 0; !result; ) {
        signal.throwIfAborted();
        const prepared = await this.d.memory.prepare({
          key,
          history,
          system: new SystemMessage(system),
          human,
          tools,
          maxModelLen: model.info.maxModelLen,
          summarizer: () => this.d.llm.variant(this.o.summaryMaxTokens),
          notify: {
            summarizing: () => out.showStatus('summarizing'),
            summary: (text) => out.postSummary(text, 'compressed'),
          },
          log,
          force: attempt > 0,
        });
        history = prepared.history;
        if (prepared.compressed) void out.showStatus('thinking');
        const prompt: BaseMessage[] = [
          ...recentHistory(history, this.o.historyTurnsInPrompt),
          human,
        ];
        // While speculating, text is held until the read has found nothing new.
        const restart = new AbortController();
        let held: string[] | undefined;
        const emit = (delta: string) => {
          // Once evidence made the answer private, nothing more goes where everyone reads it.
          if (audience?.isPrivate) return;
          answer ??= out.beginAnswer();
          answer.append(delta);
          shown += delta;
        };
        if (!caught) {
          held = [];
          void reading.then((c) => {
            if (c.quoted.length > 0) restart.abort();
            else if (held) {
              const text = held.join('');
              held = undefined;
              if (text) emit(text);
            }
          });
        }
        watchdog.armIdle();
        try {
          result = await runInScope(scope, () =>
            runAgent({
              graph: this.graphFor(model.chat, tools),
              system,
              messages: prompt,
              signal: AbortSignal.any([signal, restart.signal]),
              maxToolRounds: this.o.maxToolRounds,
              maxReplyTokens: this.o.maxReplyTokens,
              windowBudget: prepared.windowBudget,
              onText: (delta) => {
                if (held) held.push(delta);
                else emit(delta);
              },
              onActivity: (phase) =>
                phase === 'model' ? watchdog.armIdle() : watchdog.pauseIdle(),
            }),
          );
        } catch (err) {
          const restarting = restart.signal.aborted && !signal.aborted;
          if (!restarting) {
            if (attempt > 0 || answer || asCodedError(err).code !== 'context_too_long') throw err;
            log.warn(
              { err },
              'the server found the request too long; compressing and retrying once',
            );
            attempt++;
          }
        }
        if (!caught) {
          caught = await reading;
          if (caught.quoted.length > 0) {
            log.debug({ quoted: caught.quoted.length }, 'new thread messages; starting again');
            this.d.metrics.speculativeRestarts.inc();
            result = undefined;
            human = turnOf(caught);
            continue;
          }
          const text = held?.join('');
          held = undefined;
          if (text) emit(text);
        }
        if (result) {
          this.observeCount(prepared.count, result.usage.firstPromptTokens, log);
          await this.d.memory.remember(
            key,
            result.usage.lastPromptTokens,
            prompt.length + result.added.length,
          );
        }
      }
      watchdog.pauseIdle();
      let text = result.text.trim() || messages.emptyAnswer;
      // Nothing silent: say so when the reply budget cut the answer short.
      if (result.truncated) text += messages.truncated;
      const isPrivate = audience?.isPrivate === true;
      if (isPrivate) {
        await this.deliverPrivately(out, msg.principal, text, shown, answer);
      } else {
        answer ??= out.beginAnswer();
        if (result.truncated) answer.append(messages.truncated);
        // Sources and feedback buttons go only under an answer the channel may see.
        await answer.finish(
          text,
          await this.footerOf(msg, model.info.id, settings, result.added, log),
        );
      }
      // Only the lock's holder writes the thread's memory.
      lock.signal.throwIfAborted();
      // A private answer's words stay out of the thread's memory: a later asker may not read them.
      const added = isPrivate ? [new AIMessage(messages.privateAnswerRecord)] : result.added;
      // An admin erased the project meanwhile: writing now would bring the thread back.
      if (await this.d.erasures?.erasedSince(msg.ref, startedAt)) {
        log.info('the project was erased during the turn; its history is not kept');
      } else {
        await this.d.history.save(key, this.d.memory.settle(history, human, added));
        await (caught ?? NOTHING_NEW).commit();
      }
      await answer?.placeFooter();
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
      return { status: 'answered', text, ...(isPrivate ? { private: true } : {}) };
    } catch (err) {
      const reason = signal.aborted ? signal.reason : undefined;
      const coded = asCodedError(ThreadmindError.isInstance(reason) ? reason : err);
      log.error({ err, code: coded.code }, 'turn failed');
      this.d.metrics.errors.inc({ kind: coded.code });
      this.d.metrics.turnSeconds.observe(
        { platform: msg.ref.platform, outcome: 'failed' },
        (performance.now() - started) / 1000,
      );
      try {
        if (answer) await answer.fail(coded.userMessage);
        else await out.reportError(coded.userMessage);
      } catch (postErr) {
        log.error({ err: postErr }, 'could not post the error message to the thread');
      }
      return { status: 'failed', code: coded.code, userMessage: coded.userMessage };
    } finally {
      watchdog.dispose();
    }
  }
}

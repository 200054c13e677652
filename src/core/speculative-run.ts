// The agent's run for one answer. A follow-up in a thread already read starts the model before the
// read is done: its text is held until the read finds nothing new, and if it finds new messages
// the run is aborted and starts again with them. A server that finds the request too long gets one
// retry after a forced compression.
import { type BaseMessage, type HumanMessage, SystemMessage } from '@langchain/core/messages';
import { type AgentRunResult, runAgent } from '../agent/run-agent.ts';
import { asCodedError } from '../llm/classify-error.ts';
import type { Logger } from '../log/logger.ts';
import { type Prepared, SummaryFenced } from '../memory/context-manager.ts';
import { withModelCallAs } from '../scope/model-call.ts';
import { runInScope } from '../scope/scope.ts';
import type { Fence } from '../store/lease-backend.ts';
import { AgentGraphs } from './agent-graphs.ts';
import type { VisibleAnswer } from './answer-delivery.ts';
import { lockLostError } from './session-state.ts';
import type { CaughtUp } from './thread-context.ts';
import type { ThreadOutput } from './thread-output.ts';
import { recentHistory, type TurnPrompt } from './turn-prompt.ts';
import { NOTHING_NEW, type TurnEnv } from './turn-types.ts';
import type { TurnWatchdog } from './turn-watchdog.ts';

export interface RunInput {
  key: string;
  log: Logger;
  out: ThreadOutput;
  watchdog: TurnWatchdog;
  prompt: TurnPrompt;
  /** The thread's read; `caught` is its result when the turn waited for it (not speculating). */
  reading: Promise<CaughtUp>;
  caught: CaughtUp | undefined;
  visible: VisibleAnswer;
  /** The turn's right to write the thread's memory: a compression's summary is saved only with it. */
  fence: Fence;
}

export interface RunDone {
  result: AgentRunResult;
  /** The stored history after any compression. */
  history: BaseMessage[];
  /** The asker's message as the answer saw it. */
  human: HumanMessage;
  caught: CaughtUp;
}

/** Text the model wrote before the read said whether anything new was posted. */
class HeldText {
  private parts: string[] | undefined;
  private readonly emit: (text: string) => void;

  constructor(emit: (text: string) => void) {
    this.emit = emit;
  }

  hold(): void {
    this.parts = [];
  }

  take(delta: string): void {
    if (this.parts) this.parts.push(delta);
    else this.emit(delta);
  }

  /** The read found nothing new: what was held goes out, and the rest as it comes. */
  release(): void {
    const text = this.parts?.join('');
    this.parts = undefined;
    if (text) this.emit(text);
  }
}

export class AgentRuns {
  private readonly env: TurnEnv;
  private readonly graphs: AgentGraphs;

  constructor(env: TurnEnv) {
    this.env = env;
    this.graphs = new AgentGraphs(env.o.maxToolRounds);
  }

  async run(r: RunInput): Promise<RunDone> {
    const { o, d } = this.env;
    const { key, log, watchdog, prompt, reading, visible } = r;
    let caught = r.caught;
    let human = prompt.turnOf(caught ?? NOTHING_NEW);
    let history = prompt.stored;
    let result: AgentRunResult | undefined;
    // A server that still finds the request too long gets one retry after a forced compression.
    for (let attempt = 0; !result; ) {
      watchdog.signal.throwIfAborted();
      const prepared = await this.prepare(r, history, human, attempt > 0);
      history = prepared.history;
      const messages: BaseMessage[] = [...recentHistory(history, o.historyTurnsInPrompt), human];
      // While speculating, text is held until the read has found nothing new.
      const restart = new AbortController();
      const held = new HeldText((delta) => visible.emit(delta));
      if (!caught) {
        held.hold();
        void reading.then((c) => {
          if (c.quoted.length > 0) restart.abort();
          else held.release();
        });
      }
      watchdog.armIdle();
      try {
        result = await this.runOnce(r, prepared, messages, restart.signal, held);
      } catch (err) {
        const restarting = restart.signal.aborted && !watchdog.signal.aborted;
        if (!restarting) {
          if (attempt > 0 || visible.started || asCodedError(err).code !== 'context_too_long') {
            throw err;
          }
          log.warn({ err }, 'the server found the request too long; compressing and retrying once');
          attempt++;
        }
      }
      if (!caught) {
        caught = await reading;
        if (caught.quoted.length > 0) {
          log.debug({ quoted: caught.quoted.length }, 'new thread messages; starting again');
          d.metrics.speculativeRestarts.inc();
          result = undefined;
          human = prompt.turnOf(caught);
          continue;
        }
        held.release();
      }
      if (result) {
        this.observeCount(prepared, result.usage.firstPromptTokens, log);
        await d.memory.remember(
          key,
          result.usage.lastPromptTokens,
          messages.length + result.added.length,
        );
      }
    }
    return { result, history, human, caught: caught ?? NOTHING_NEW };
  }

  private async prepare(
    { key, log, out, prompt, fence }: RunInput,
    history: BaseMessage[],
    human: HumanMessage,
    force: boolean,
  ): Promise<Prepared> {
    const { o, d } = this.env;
    // Compression is background work, whoever's turn it happens in.
    const prepared = await withModelCallAs('compression', 'background', () =>
      d.memory.prepare({
        key,
        history,
        system: new SystemMessage(prompt.system),
        human,
        tools: prompt.tools,
        maxModelLen: prompt.model.info.maxModelLen,
        summarizer: () => d.llm.variant(o.summaryMaxTokens),
        notify: {
          summarizing: () => out.showStatus('summarizing'),
          summary: (text) => out.postSummary(text, 'compressed'),
        },
        log,
        force,
        fence,
      }),
    ).catch((err: unknown) => {
      if (!(err instanceof SummaryFenced)) throw err;
      // A run that lost its job or its lock: the summary is not its to keep, nor the answer.
      d.metrics.fencedWrites.inc({ kind: 'summary' });
      log.warn('a newer run owns this thread; its compression is not saved');
      throw lockLostError(key);
    });
    if (prepared.compressed) void out.showStatus('thinking');
    return prepared;
  }

  private runOnce(
    { watchdog, prompt }: RunInput,
    prepared: Prepared,
    messages: BaseMessage[],
    restart: AbortSignal,
    held: HeldText,
  ): Promise<AgentRunResult> {
    const { o } = this.env;
    return runInScope(prompt.scope, () =>
      runAgent({
        graph: this.graphs.for(prompt.model.chat, prompt.tools),
        system: prompt.system,
        messages,
        signal: AbortSignal.any([watchdog.signal, restart]),
        maxToolRounds: o.maxToolRounds,
        maxReplyTokens: o.maxReplyTokens,
        windowBudget: prepared.windowBudget,
        onText: (delta) => held.take(delta),
        onActivity: (phase) => (phase === 'model' ? watchdog.armIdle() : watchdog.pauseIdle()),
      }),
    );
  }

  private observeCount(prepared: Prepared, actual: number | undefined, log: Logger): void {
    if (actual === undefined || actual <= 0) return;
    const { count } = prepared;
    const error = Math.abs(count.tokens - actual) / actual;
    this.env.d.metrics.tokenEstimateError.observe({ source: count.source }, error);
    log.debug(
      { estimate: count.tokens, source: count.source, actual },
      'prompt token count vs server',
    );
  }
}

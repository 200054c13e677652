import type { IncomingMessage } from '../model/incoming.ts';
import type { ThreadRef } from '../model/thread-ref.ts';
import { withModelCall } from '../scope/model-call.ts';
import { answerTurn } from './answer-turn.ts';
import { budgetMessages } from './budgets.ts';
import { modelCallTag } from './model-call-tags.ts';
import { AgentRuns } from './speculative-run.ts';
import { summaryTurn } from './summary-turn.ts';
import type { ThreadOutput } from './thread-output.ts';
import { TurnAdmission } from './turn-admission.ts';
import type {
  TurnEnv,
  TurnInput,
  TurnOutcome,
  TurnRunnerDeps,
  TurnRunnerOptions,
} from './turn-types.ts';

// The pipeline's types live in turn-types.ts (its stages import them); the conversation and the
// composition root know them by this, the pipeline's front door.
export type {
  TurnContext,
  TurnInput,
  TurnOutcome,
  TurnRunnerDeps,
  TurnRunnerOptions,
} from './turn-types.ts';

/**
 * The turn pipeline: per-session FIFO, a global concurrency bound, the session lock, the request
 * scope, the agent, streaming to the thread and persisting history. Answers and summaries on
 * request go through the same admission. Never rejects: every failure ends as a message in the
 * thread and a log line with the trace id.
 */
export class TurnRunner {
  private readonly env: TurnEnv;
  private readonly admission: TurnAdmission;
  private readonly runs: AgentRuns;

  constructor(o: TurnRunnerOptions, d: TurnRunnerDeps) {
    this.env = { o, d };
    this.admission = new TurnAdmission(this.env);
    this.runs = new AgentRuns(this.env);
  }

  get pendingTurns(): number {
    return this.admission.pending;
  }

  /** Turns waiting for a slot (fair admission's queue). */
  get waitingTurns(): number {
    return this.admission.waitingForSlot;
  }

  /** Queues a message for its session; resolves when it has been answered (or failed visibly). */
  async submit(
    msg: IncomingMessage,
    out: ThreadOutput,
    input: TurnInput = {},
  ): Promise<TurnOutcome> {
    const refused = await this.overBudget(msg, out, input);
    if (refused) return refused;
    const { tag, fair } = this.fairness(msg, input, 'answer');
    return this.admission.admit(
      msg,
      out,
      input,
      (a) => withModelCall(tag, () => answerTurn(this.env, this.runs, a)),
      fair,
    );
  }

  /** "summarize": posts a summary of the thread so far, in the session's order; history untouched. */
  summarize(msg: IncomingMessage, out: ThreadOutput, input: TurnInput = {}): Promise<TurnOutcome> {
    const { tag, fair } = this.fairness(msg, input, 'summary');
    return this.admission.admit(
      msg,
      out,
      input,
      (a) => withModelCall(tag, () => summaryTurn(this.env, a)),
      fair,
    );
  }

  /** The turn's model-call tag and its claim on a slot, sharing one token count. */
  private fairness(msg: IncomingMessage, input: TurnInput, kind: 'answer' | 'summary') {
    const spent = { tokens: 0 };
    const tag = { ...modelCallTag(msg, input, kind), spent };
    const weight = input.settings?.fairShareWeight ?? 1;
    return { tag, fair: { claim: { channel: tag.channel, person: tag.person, weight }, spent } };
  }

  /** Over a budget: the asker is told privately and nothing runs; near one: told, and it runs. */
  private async overBudget(
    msg: IncomingMessage,
    out: ThreadOutput,
    input: TurnInput,
  ): Promise<TurnOutcome | undefined> {
    const { budgets, log } = this.env.d;
    if (!budgets) return undefined;
    const verdict = await budgets.check(msg, input.settings, () => out.isAdmin(msg.principal));
    if (verdict.status === 'ok') return undefined;
    const over = verdict.status === 'over';
    const text = over ? budgetMessages.over(verdict.hit) : budgetMessages.warn(verdict.hit);
    log.info({ trace_id: msg.traceId, budget: verdict.hit, over }, 'token budget');
    const told = await out.postPrivate(msg.principal, text).catch(() => false);
    // Where nothing private exists, the refusal still has to reach the asker.
    if (over && !told) await out.reportError(text).catch(() => undefined);
    return over ? { status: 'failed', code: 'over_budget', userMessage: text } : undefined;
  }

  /** The asker deleted the question: it leaves the queue if it has not started (true: it was here). */
  withdraw(ref: ThreadRef, messageId: string): Promise<boolean> {
    return this.admission.withdraw(ref, messageId);
  }

  /** Stops taking messages and waits (bounded) for queued and running turns to finish. */
  drain(timeoutMs: number): Promise<boolean> {
    return this.admission.drain(timeoutMs);
  }
}

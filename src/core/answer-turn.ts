// One answer, start to end: the watchdog, the thread's read, the prompt, the agent's run, the
// delivery, then the thread's memory (only while the lock is held and the project not erased) and
// the turn's metrics. A failure ends as a short message in the thread.
import { AIMessage } from '@langchain/core/messages';
import { asCodedError } from '../llm/classify-error.ts';
import type { Logger } from '../log/logger.ts';
import { ThreadmindError } from '../model/errors.ts';
import type { IncomingMessage } from '../model/incoming.ts';
import { answerFooter, VisibleAnswer } from './answer-delivery.ts';
import { messages } from './messages.ts';
import type { AgentRuns, RunDone } from './speculative-run.ts';
import type { CaughtUp } from './thread-context.ts';
import { assemblePrompt } from './turn-prompt.ts';
import { type Admitted, NOTHING_NEW, type TurnEnv, type TurnOutcome } from './turn-types.ts';
import { TurnWatchdog } from './turn-watchdog.ts';

export async function answerTurn(
  env: TurnEnv,
  runs: AgentRuns,
  { msg, out, key, log, lock, input }: Admitted,
): Promise<TurnOutcome> {
  const { o } = env;
  const started = performance.now();
  const startedAt = Date.now();
  const visible = new VisibleAnswer(out, input.audience);
  // A lost session lock stops the turn like a timeout: another replica owns the thread now.
  const watchdog = new TurnWatchdog({
    turnMs: o.turnTimeoutMs,
    idleMs: o.firstTokenTimeoutMs,
    also: lock.signal,
  });
  try {
    log.info({ principal: msg.principal, chars: msg.text.length }, 'turn started');
    // The status goes out while the turn gets ready; the output orders what follows it.
    void out.showStatus('thinking');
    // A failed read costs the turn its context, not its answer.
    const reading = (input.context?.() ?? Promise.resolve(NOTHING_NEW)).catch((err: unknown) => {
      log.warn({ err }, 'could not read the thread; answering without its messages');
      return NOTHING_NEW;
    });
    // Read first unless speculating: files posted earlier must be in reach of this turn's tools.
    const caught: CaughtUp | undefined = input.speculate ? undefined : await reading;
    const prompt = await assemblePrompt(env, msg, key, input);
    const fence = msg.fence ?? lock.fence;
    const done = await runs.run({
      ...{ key, log, out, watchdog, prompt, reading, caught, visible },
      fence: { lease: fence.lease, token: fence.token },
    });
    watchdog.pauseIdle();
    const { result } = done;
    let text = result.text.trim() || messages.emptyAnswer;
    // Nothing silent: say so when the reply budget cut the answer short.
    if (result.truncated) text += messages.truncated;
    const isPrivate = visible.isPrivate;
    if (isPrivate) {
      await visible.deliverPrivately(msg.principal, text);
    } else {
      await visible.finish(text, result.truncated, () =>
        answerFooter(env.d.feedback, msg, prompt.model.info.id, input, result.added, log),
      );
    }
    // Only the lock's holder writes the thread's memory.
    lock.signal.throwIfAborted();
    await keepHistory(env, { msg, key, log, lock }, done, isPrivate, startedAt);
    await visible.placeFooter();
    answered(env, msg, log, done, text.length, started);
    return { status: 'answered', text, ...(isPrivate ? { private: true } : {}) };
  } catch (err) {
    const reason = watchdog.signal.aborted ? watchdog.signal.reason : undefined;
    const coded = asCodedError(ThreadmindError.isInstance(reason) ? reason : err);
    log.error({ err, code: coded.code }, 'turn failed');
    env.d.metrics.errors.inc({ kind: coded.code });
    env.d.metrics.turnSeconds.observe(
      { platform: msg.ref.platform, outcome: 'failed' },
      (performance.now() - started) / 1000,
    );
    try {
      await visible.fail(coded.userMessage);
    } catch (postErr) {
      log.error({ err: postErr }, 'could not post the error message to the thread');
    }
    return { status: 'failed', code: coded.code, userMessage: coded.userMessage };
  } finally {
    watchdog.dispose();
  }
}

/** Saves the turn into the thread's memory and marks the read messages as read. */
async function keepHistory(
  { d }: TurnEnv,
  { msg, key, log, lock }: Pick<Admitted, 'msg' | 'key' | 'log' | 'lock'>,
  { result, history, human, caught }: RunDone,
  isPrivate: boolean,
  startedAt: number,
): Promise<void> {
  // A private answer's words stay out of the thread's memory: a later asker may not read them.
  const added = isPrivate ? [new AIMessage(messages.privateAnswerRecord)] : result.added;
  // An admin erased the project meanwhile: writing now would bring the thread back.
  if (await d.erasures?.erasedSince(msg.ref, startedAt)) {
    log.info('the project was erased during the turn; its history is not kept');
    return;
  }
  // Fenced: a run that lost its job (queued) or its session lock writes nothing, and a job's turn
  // is kept once however often the job runs.
  const kept = await d.history.save(
    key,
    d.memory.settle(history, human, added),
    msg.fence ?? lock.fence,
  );
  if (kept === 'written') {
    await caught.commit();
  } else if (kept === 'fenced') {
    d.metrics.fencedWrites.inc({ kind: 'history' });
    log.warn('a newer run owns this turn; its history is not written by this one');
  } else {
    log.info("this job's turn is in the history already; not written again");
  }
}

function answered(
  { d }: TurnEnv,
  msg: IncomingMessage,
  log: Logger,
  { result }: RunDone,
  chars: number,
  started: number,
): void {
  d.metrics.tokens.inc({ direction: 'in' }, result.usage.inputTokens);
  d.metrics.tokens.inc({ direction: 'out' }, result.usage.outputTokens);
  d.metrics.turnSeconds.observe(
    { platform: msg.ref.platform, outcome: 'answered' },
    (performance.now() - started) / 1000,
  );
  log.info(
    { ms: Math.round(performance.now() - started), usage: result.usage, chars },
    'turn answered',
  );
}

// "summarize": a summary of the thread so far (stored history and the people's unread messages),
// posted in the session's order. The history is left as it was.
import { asCodedError } from '../llm/classify-error.ts';
import { SummaryFenced } from '../memory/context-manager.ts';
import { humanTurn } from '../memory/thread-messages.ts';
import { messages } from './messages.ts';
import { lockLostError } from './session-state.ts';
import { type Admitted, NOTHING_NEW, type TurnEnv, type TurnOutcome } from './turn-types.ts';

export async function summaryTurn(
  { o, d }: TurnEnv,
  { msg, out, key, log, lock, input }: Admitted,
): Promise<TurnOutcome> {
  try {
    const summarizer = () => d.llm.variant(o.summaryMaxTokens);
    // A stale summary is made again and saved: only while this run may write the thread's memory.
    const fence = msg.fence ?? lock.fence;
    const history = await d.memory
      .refreshSummary(key, await d.history.load(key), summarizer, log, {
        lease: fence.lease,
        token: fence.token,
      })
      .catch((err: unknown) => {
        if (!(err instanceof SummaryFenced)) throw err;
        d.metrics.fencedWrites.inc({ kind: 'summary' });
        throw lockLostError(key);
      });
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
    const summary = await d.memory.summarizeOnDemand([...history, ...unread], await summarizer());
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

// What of an answer reaches the thread: the text as the model writes it (until evidence makes the
// answer private), then its end: in the thread with sources and feedback buttons, or to the asker
// alone with a note in the thread; or the error that ended it.
import type { AgentRunResult } from '../agent/run-agent.ts';
import type { Logger } from '../log/logger.ts';
import type { AnswerFooter } from '../model/answer-extras.ts';
import type { IncomingMessage } from '../model/incoming.ts';
import { answerSources } from './answer-sources.ts';
import type { AnswerWriter } from './answer-writer.ts';
import type { AnswerAudience } from './audience.ts';
import type { FeedbackService } from './feedback.ts';
import { messages } from './messages.ts';
import type { ThreadOutput } from './thread-output.ts';
import type { TurnInput } from './turn-types.ts';

export type FooterParts = Omit<AnswerFooter, 'sourcesText'>;

export class VisibleAnswer {
  private readonly out: ThreadOutput;
  private readonly audience: AnswerAudience | undefined;
  /** Begun at the first text the thread may see. */
  private writer: AnswerWriter | undefined;
  /** What reached the thread before the answer went private (written before any evidence). */
  private shown = '';

  constructor(out: ThreadOutput, audience: AnswerAudience | undefined) {
    this.out = out;
    this.audience = audience;
  }

  /** Something already reached the thread. */
  get started(): boolean {
    return this.writer !== undefined;
  }

  get isPrivate(): boolean {
    return this.audience?.isPrivate === true;
  }

  /** Text as the model writes it. */
  emit(delta: string): void {
    // Once evidence made the answer private, nothing more goes where everyone reads it.
    if (this.audience?.isPrivate) return;
    this.writer ??= this.out.beginAnswer();
    this.writer.append(delta);
    this.shown += delta;
  }

  /** The whole answer in the thread, with its footer (asked for once the answer has begun). */
  async finish(
    text: string,
    truncated: boolean,
    footer: () => Promise<FooterParts>,
  ): Promise<void> {
    this.writer ??= this.out.beginAnswer();
    if (truncated) this.writer.append(messages.truncated);
    // Sources and feedback buttons go only under an answer the channel may see.
    await this.writer.finish(text, await footer());
  }

  /**
   * The answer to the asker alone; the thread keeps what it already showed (written before any
   * evidence) and a note saying where the answer went.
   */
  async deliverPrivately(asker: string, text: string): Promise<void> {
    const sent = await this.out.postPrivate(asker, messages.privateAnswer(text));
    const note = !sent
      ? messages.privateUnavailable
      : this.audience?.reason === 'private_tool_result'
        ? messages.answeredPrivatelyTool
        : messages.answeredPrivately;
    if (this.writer) await this.writer.finish(`${this.shown.trimEnd()}\n\n${note}`);
    else await this.out.post(note);
  }

  /** Edit mode: the footer goes onto the last message once the answer is complete. */
  async placeFooter(): Promise<void> {
    await this.writer?.placeFooter();
  }

  /** Ends the answer with the error, below whatever was shown (or as a message of its own). */
  async fail(userMessage: string): Promise<void> {
    if (this.writer) await this.writer.fail(userMessage);
    else await this.out.reportError(userMessage);
  }
}

/** The answer's sources and, once the turn is recorded, its 👍/👎 (the feedback flow's buttons). */
export async function answerFooter(
  feedback: FeedbackService | undefined,
  msg: IncomingMessage,
  model: string,
  input: Pick<TurnInput, 'settings' | 'votes'>,
  added: AgentRunResult['added'],
  log: Logger,
): Promise<FooterParts> {
  const sources = answerSources(added);
  if (!feedback || !input.votes) return { sources };
  try {
    await feedback.recordTurn({
      id: msg.traceId,
      ref: msg.ref,
      model,
      settings: input.settings,
      askedBy: msg.principal,
      at: Date.now(),
    });
    const votes = await input.votes(msg.traceId);
    return { ...(votes.length > 0 ? { votes } : {}), sources };
  } catch (err) {
    log.warn({ err }, 'could not record the turn for feedback; the answer has no buttons');
    return { sources };
  }
}

// What the web chat handed to the core and is still being answered: the thread's status (shown
// while anything sent there is in hand), a message's outcome, and its files marked read.
import type { Conversation } from '../../src/core/conversation.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { HandledEvent } from '../../src/model/handled.ts';
import type { Transcript } from './transcript.ts';

export class WebDeliveries {
  private readonly d: { core: Conversation; transcript: Transcript; log: Logger };
  /** Deliveries handed to the core and not yet handled, by message, with their thread. */
  private readonly awaiting = new Map<string, { thread: string; count: number }>();
  private readonly onHandled: (e: HandledEvent) => void;
  private readonly onFiles: (e: { platform: string; messageId: string }) => void;

  constructor(d: { core: Conversation; transcript: Transcript; log: Logger }) {
    this.d = d;
    const { core, transcript } = d;
    this.onHandled = (e) => {
      if (e.platform !== 'web') return;
      const waiting = this.awaiting.get(e.messageId);
      if (waiting === undefined) return;
      const { thread } = waiting;
      if (--waiting.count === 0) this.awaiting.delete(e.messageId);
      // The thread's status ends once nothing sent there is still being answered.
      if (![...this.awaiting.values()].some((w) => w.thread === thread))
        transcript.setStatus(thread, null);
      if (e.handled.status === 'duplicate') return;
      // Files shared with the workspace are read by the request itself, not in the background.
      if (e.handled.status === 'shared') this.filesDone(thread, e.messageId);
      const status = e.handled.status === 'turn' ? e.handled.outcome.status : e.handled.status;
      transcript.emit(thread, { type: 'handled', messageId: e.messageId, status });
    };
    this.onFiles = (e) => {
      if (e.platform !== 'web') return;
      const thread = transcript.threadOfMessage(e.messageId);
      if (thread !== undefined) this.filesDone(thread, e.messageId);
    };
    core.events.on('handled', this.onHandled);
    core.events.on('files', this.onFiles);
  }

  /** A message of `threadId` handed to the core once more. */
  handing(threadId: string, messageId: string): void {
    const waiting = this.awaiting.get(messageId);
    if (waiting) waiting.count++;
    else this.awaiting.set(messageId, { thread: threadId, count: 1 });
  }

  /** The page stops showing the message's files as being read. */
  private filesDone(thread: string, messageId: string): void {
    this.d.transcript
      .update(thread, messageId, (m) => {
        m.filesDone = true;
      })
      .catch((err: unknown) => this.d.log.error({ err }, 'could not mark files read'));
  }

  stop(): void {
    this.d.core.events.off('handled', this.onHandled);
    this.d.core.events.off('files', this.onFiles);
  }
}

// The platform port on the web chat's transcript: posting, editing and streaming change the
// transcript, which pushes each change to the pages watching the thread. A thread is a session of
// the one local project.

import { sourceLabel } from '../../src/core/answer-sources.ts';
import type { FileRef } from '../../src/model/incoming.ts';
import type {
  AnswerFooter,
  Audience,
  Destination,
  NativeStream,
  PlatformPort,
  Reaction,
  StatusShown,
  ThreadMessage,
} from '../../src/model/platform-port.ts';
import type { RenderedText } from '../../src/model/rendered-text.ts';
import type { ThreadRef } from '../../src/model/thread-ref.ts';
import type { Transcript, WebFile, WebMessage } from './transcript.ts';
import { webFormat } from './web-format.ts';

/**
 * Longest message the bot writes (a streamed one too): the page re-renders a message on every
 * update, so a long answer goes on in a new message rather than growing one without end.
 */
export const WEB_LIMIT = 8000;

export const WEB_PROJECT = 'local';
export const WEB_CHANNEL = 'chat';
export const WEB_PERSON = 'local-user';
export const WEB_BOT = 'bot';

export function webRef(threadId: string): ThreadRef {
  return { platform: 'web', projectId: WEB_PROJECT, channelId: WEB_CHANNEL, sessionId: threadId };
}

/** A file of an earlier message: its bytes were read when it was dropped and are not kept. */
function pastFile(f: WebFile): FileRef {
  return {
    id: f.id,
    name: f.name,
    size: f.size,
    download: () =>
      Promise.reject(
        new Error(`${f.name} was read when it was dropped; drop it again with this message`),
      ),
  };
}

/** A transcript message as the core reads a thread's. */
export function threadMessageOf(m: WebMessage): ThreadMessage {
  return {
    id: m.id,
    authorId: m.author === 'bot' ? WEB_BOT : WEB_PERSON,
    isBot: m.author === 'bot',
    fromSelf: m.author === 'bot',
    text: m.text,
    at: m.at,
    files: (m.files ?? []).map(pastFile),
  };
}

export class WebPort implements PlatformPort {
  readonly platform = 'web' as const;
  readonly limits = { message: WEB_LIMIT, stream: WEB_LIMIT };
  readonly format = webFormat;
  private readonly transcript: Transcript;

  constructor(transcript: Transcript) {
    this.transcript = transcript;
  }

  async post(to: Destination, text: RenderedText): Promise<string> {
    return (await this.transcript.addBotMessage(to.ref.sessionId, text.text)).id;
  }

  /** The web chat is one person's: whoever reads it is the asker. */
  async audience(): Promise<Audience> {
    return { kind: 'dm' };
  }

  /** Whoever may use the web chat reads every thread of it: its one project. */
  async reach(): Promise<'public'> {
    return 'public';
  }

  async postPrivate(to: Destination, _userId: string, text: RenderedText): Promise<void> {
    await this.post(to, text);
  }

  async edit(to: Destination, messageId: string, text: RenderedText): Promise<void> {
    const found = await this.transcript.update(to.ref.sessionId, messageId, (m) => {
      m.text = text.text;
    });
    if (!found) throw new Error(`web chat: no message ${messageId} to edit`);
  }

  async delete(to: Destination, messageId: string): Promise<void> {
    await this.transcript.remove(to.ref.sessionId, messageId);
  }

  /** The page shows the status line under the thread until the bot posts. */
  async showStatus(to: Destination, _kind: unknown, text: RenderedText): Promise<StatusShown> {
    this.transcript.setStatus(to.ref.sessionId, text.text);
    return 'text';
  }

  async clearStatus(to: Destination): Promise<void> {
    this.transcript.setStatus(to.ref.sessionId, null);
  }

  async react(to: Destination, messageId: string, reaction: Reaction): Promise<void> {
    await this.transcript.update(to.ref.sessionId, messageId, (m) => {
      m.reactions = [...(m.reactions ?? []).filter((r) => r !== reaction), reaction];
    });
  }

  async startStream(to: Destination, first: RenderedText): Promise<NativeStream> {
    const thread = to.ref.sessionId;
    const m = await this.transcript.addBotMessage(thread, first.text, true);
    const transcript = this.transcript;
    return {
      messageId: m.id,
      append: (text) => transcript.append(thread, m.id, text.text),
      async stop(footer) {
        await transcript.update(thread, m.id, (x) => {
          delete x.streaming;
          if (footer) withFooter(x, footer);
        });
      },
    };
  }

  async finishAnswer(
    to: Destination,
    messageId: string | undefined,
    _text: RenderedText | undefined,
    footer: AnswerFooter,
  ): Promise<void> {
    const thread = to.ref.sessionId;
    const id = messageId ?? (await this.transcript.addBotMessage(thread, '')).id;
    await this.transcript.update(thread, id, (m) => withFooter(m, footer));
  }

  async *readThread(
    to: Destination,
    opts: { after?: string; limit?: number } = {},
  ): AsyncIterable<ThreadMessage> {
    const list = await this.transcript.messages(to.ref.sessionId);
    const from = opts.after === undefined ? 0 : list.findIndex((m) => m.id === opts.after) + 1;
    let left = opts.limit ?? Number.POSITIVE_INFINITY;
    for (const m of list.slice(from)) {
      if (left-- <= 0) return;
      yield threadMessageOf(m);
    }
  }

  /** Message ids sort by time (see `messageId`). */
  isBefore(a: string, b: string): boolean {
    return a < b;
  }
}

/** The page shows sources as a list and the 👍/👎 (the feedback flow's buttons) from these fields. */
function withFooter(m: WebMessage, footer: AnswerFooter): void {
  if (footer.sources.length > 0) m.sources = footer.sources.map(sourceLabel);
  if (footer.votes) m.votes = footer.votes.map(({ label, ref }) => ({ label, ref }));
}

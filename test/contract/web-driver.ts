// The contract's driver on the web chat: a person uses the page's HTTP API (messages, commands,
// files) and reads the thread from its event stream, as the page does. Every "mention" starts a new
// thread; a file dropped "at a channel's top level" has no such place on the web, so it starts a
// thread of its own.
import { randomUUID } from 'node:crypto';
import { WEB_LIMIT } from '../../adapters/web/web-port.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { type ThreadView, WebChatClient } from '../support/web-client.ts';
import { contractOverrides } from './config.ts';
import type {
  Attachment,
  BotMessage,
  MakeDriver,
  Mark,
  PlatformDriver,
  Posted,
  ReactionKind,
  Thread,
} from './driver.ts';
import { webPings } from './pings.ts';

interface Sent {
  thread: string;
  text: string;
  clientId: string;
  file?: Attachment;
}

export const makeWebDriver: MakeDriver = async (opts = {}) =>
  new WebDriver(
    await startHarness({
      env: { WEB_ENABLED: 'true' },
      overrides: contractOverrides(opts.overrides),
    }),
  );

class WebDriver implements PlatformDriver {
  readonly name = 'web';
  readonly longestMessage = WEB_LIMIT;
  private readonly h: Harness;
  private readonly client: WebChatClient;
  /** Flow commands (no turn, no `handled`): their answers. */
  private readonly flowAnswers = new Map<string, Promise<unknown>>();
  private readonly views = new Map<string, ThreadView>();
  private readonly sent = new Map<string, Sent>();
  private readonly deliveries = new Map<string, number>();

  constructor(h: Harness) {
    this.h = h;
    this.client = new WebChatClient(`http://127.0.0.1:${h.app.port}`);
  }

  get llm() {
    return this.h.llm;
  }

  private view(thread: Thread): ThreadView {
    const v = this.views.get(thread.id);
    if (!v) throw new Error(`web driver: unknown thread ${thread.id}`);
    return v;
  }

  private async newThread(): Promise<Thread> {
    const t = await this.client.createThread();
    this.views.set(t.id, await this.client.watch(t.id));
    return { id: t.id };
  }

  private async post(thread: Thread, text: string, file?: Attachment): Promise<Posted> {
    const clientId = randomUUID();
    const messageId = file
      ? await this.client.upload(thread.id, file.name, file.bytes, { clientId, text })
      : await this.client.send(thread.id, text, clientId);
    this.sent.set(messageId, { thread: thread.id, text, clientId, ...(file ? { file } : {}) });
    this.deliveries.set(messageId, 1);
    return { thread, messageId };
  }

  async mention(text: string, opts: { files?: Attachment[] } = {}): Promise<Posted> {
    const thread = await this.newThread();
    const [file, ...more] = opts.files ?? [];
    if (more.length > 0) throw new Error('web driver: one file per message');
    return this.post(thread, text, file);
  }

  followUp(thread: Thread, text: string): Promise<Posted> {
    return this.post(thread, text);
  }

  async redeliver(messageId: string): Promise<void> {
    const s = this.sent.get(messageId);
    if (!s) throw new Error(`web driver: ${messageId} was not sent by this driver`);
    // The page sends again with the same client id (a retry after a network failure).
    const again = s.file
      ? await this.client.upload(s.thread, s.file.name, s.file.bytes, {
          clientId: s.clientId,
          text: s.text,
        })
      : await this.client.send(s.thread, s.text, s.clientId);
    if (again !== messageId) throw new Error('web driver: a repeated send became a new message');
    this.deliveries.set(messageId, (this.deliveries.get(messageId) ?? 0) + 1);
  }

  async uploadFile(where: Thread | 'channel', file: Attachment): Promise<Posted> {
    const thread = where === 'channel' ? await this.newThread() : where;
    return this.post(thread, '', file);
  }

  shareFile(file: Attachment): Promise<Posted> {
    return this.mention('share this with the workspace', { files: [file] });
  }

  askSummary(thread: Thread): Promise<Posted> {
    return this.post(thread, '/summarize');
  }

  forget(thread: Thread): Promise<Posted> {
    return this.flowCommand(thread, '/forget');
  }

  listFiles(thread: Thread): Promise<Posted> {
    return this.flowCommand(thread, '/files');
  }

  /** A command that starts a flow (no turn, no `handled`): done once the bot answers after it. */
  private async flowCommand(thread: Thread, text: string): Promise<Posted> {
    const posted = await this.post(thread, text);
    const view = this.views.get(thread.id) as ThreadView;
    this.flowAnswers.set(
      posted.messageId,
      view.until(() => {
        const all = view.messages();
        const at = all.findIndex((m) => m.id === posted.messageId);
        return at >= 0 ? all.slice(at + 1).find((m) => m.author === 'bot') : undefined;
      }, `the answer to ${text}`),
    );
    return posted;
  }

  async emptyMessage(): Promise<string> {
    const thread = await this.newThread();
    const res = await this.client.request(`/api/threads/${thread.id}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: '   ' }),
    });
    const body = (await res.json()) as { error?: string };
    return `${res.status} ${body.error}`;
  }

  async handled(messageId: string, deliveries?: number) {
    if (this.flowAnswers.has(messageId)) {
      await this.flowAnswers.get(messageId);
      return [];
    }
    const events = await this.h.handled(
      messageId,
      deliveries ?? this.deliveries.get(messageId) ?? 1,
    );
    const s = this.sent.get(messageId);
    if (s) {
      const view = this.views.get(s.thread) as ThreadView;
      if (s.file) {
        await view.until(
          () => view.messages().find((m) => m.id === messageId)?.filesDone,
          `the files of ${messageId} shown as read`,
        );
      }
      // The page hears that a question was handled after everything its answer wrote.
      if (s.text)
        await view.until(
          () =>
            view.events.some(
              (e) =>
                e.type === 'handled' && (e.data as { messageId: string }).messageId === messageId,
            ),
          `${messageId} handled on the page`,
        );
    }
    return events.map((e) => e.handled);
  }

  botMessages(thread: Thread): BotMessage[] {
    return this.view(thread)
      .messages()
      .filter((m) => m.author === 'bot')
      .map((m) => ({ text: m.text, limit: WEB_LIMIT }));
  }

  /** The web chat has no channel outside its threads. */
  strayBotMessages(): string[] {
    return [];
  }

  /** The web chat is one person's: what is private to them is told in the thread. */
  privateMessages(thread: Thread): string[] {
    return this.botMessages(thread).map((m) => m.text);
  }

  turnsWaiting(): number {
    return this.h.app.runner.waitingTurns;
  }

  usageBooked(): Promise<void> {
    return this.h.app.usage.settled();
  }

  reactions(messageId: string): ReactionKind[] {
    const s = this.sent.get(messageId);
    const m =
      s &&
      this.views
        .get(s.thread)
        ?.messages()
        .find((x) => x.id === messageId);
    return (m?.reactions ?? []).map((r) => (r === 'ok' || r === 'warning' ? r : 'other'));
  }

  mark(): Mark {
    return new Map([...this.views].map(([id, v]) => [id, v.events.length]));
  }

  pings(since?: Mark): string[] {
    const from = (since as Map<string, number> | undefined) ?? new Map<string, number>();
    const texts: string[] = [];
    for (const [id, v] of this.views) {
      const fresh = v.events.slice(from.get(id) ?? 0);
      for (const e of fresh) {
        const d = e.data as { message?: { author: string; text: string }; text?: unknown };
        if (e.type === 'message' && d.message?.author === 'bot') texts.push(d.message.text);
        if (e.type === 'append' && typeof d.text === 'string') texts.push(d.text);
      }
      // A streamed message is its pieces joined: a token may be assembled across them.
      if (fresh.length > 0)
        for (const m of v.messages()) if (m.author === 'bot') texts.push(m.text);
    }
    return webPings(texts);
  }

  async close(): Promise<void> {
    for (const v of this.views.values()) v.close();
    await this.h.close();
  }
}

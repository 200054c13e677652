// The interaction contract's driver on the web chat: the person uses the page's API (messages,
// files, actions on a card) and reads the thread from its event stream, as the page does. The web
// chat is one person's: no private places, nobody else to press a button, no other project.
import { randomUUID } from 'node:crypto';
import type { WebMessage } from '../../adapters/web/transcript.ts';
import { WEB_PERSON } from '../../adapters/web/web-port.ts';
import { type CommandName, command } from '../../src/core/commands.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { type ThreadView, WebChatClient } from '../support/web-client.ts';
import { contractOverrides } from './config.ts';
import type { Attachment, Who } from './driver.ts';
import {
  type Answered,
  type Asked,
  type Button,
  CoreWatch,
  type Exported,
  type FlowDriver,
  type MakeFlowDriver,
  type SeenConfirmation,
  type VoteButton,
} from './flow-driver.ts';

interface WebAsked extends Asked {
  thread: string;
  /** The bot message that holds the card. */
  message: string;
}

/** An answer in a thread of its own. */
interface WebAnswered extends Answered {
  thread: string;
  message: string;
}

export const makeWebFlowDriver: MakeFlowDriver = async (opts = {}) =>
  new WebFlowDriver(
    await startHarness({
      env: { WEB_ENABLED: 'true' },
      overrides: contractOverrides(opts.overrides),
    }),
  );

class WebFlowDriver implements FlowDriver {
  readonly name = 'web';
  readonly privatePlaces = false;
  private readonly h: Harness;
  private client: WebChatClient;
  private readonly views = new Map<string, ThreadView>();
  private readonly watch = new CoreWatch();
  /** The thread the settings scenarios use (the web chat has one channel). */
  private settingsThread: ThreadView | undefined;

  constructor(h: Harness) {
    this.h = h;
    this.client = new WebChatClient(`http://127.0.0.1:${h.app.port}`);
    this.watch.watch(h.app.core);
  }

  get llm() {
    return this.h.llm;
  }

  private async thread(): Promise<ThreadView> {
    const t = await this.client.createThread();
    const view = await this.client.watch(t.id);
    this.views.set(t.id, view);
    return view;
  }

  private view(id: string): ThreadView {
    const v = this.views.get(id);
    if (!v) throw new Error(`web flow driver: unknown thread ${id}`);
    return v;
  }

  private bot(view: ThreadView): WebMessage[] {
    return view.messages().filter((m) => m.author === 'bot');
  }

  /** Sends and waits until the bot is done with it; the bot messages it added. */
  private async say(view: ThreadView, text: string, file?: Attachment): Promise<WebMessage[]> {
    const before = this.bot(view).length;
    const id = file
      ? await this.client.upload(view.id, file.name, file.bytes, { text, clientId: randomUUID() })
      : await this.client.send(view.id, text, randomUUID());
    await this.watch.handled(id);
    await view.until(
      () =>
        view.events.some(
          (e) => e.type === 'handled' && (e.data as { messageId: string }).messageId === id,
        ),
      `${id} handled on the page`,
    );
    return this.bot(view).slice(before);
  }

  async shareTyped(file: Attachment, _where: 'private' | 'public'): Promise<Asked> {
    const view = await this.thread();
    const said = await this.say(view, 'share this with the workspace', file);
    const last = said.at(-1);
    const asked: WebAsked = { said: last?.text ?? '', thread: view.id, message: last?.id ?? '' };
    return asked;
  }

  /** The person asks to erase the chat's data (`/erase`): the card the bot shows. */
  async askErase(): Promise<Asked> {
    const view = await this.thread();
    const before = this.bot(view).length;
    const since = this.watch.interactions;
    await this.client.send(view.id, '/erase', randomUUID());
    await this.watch.interacted(since, WEB_PERSON);
    const card = await view.until(() => this.bot(view)[before], 'the erase card');
    const asked: WebAsked = { said: card.text, thread: view.id, message: card.id };
    return asked;
  }

  async openSettings(): Promise<Asked> {
    this.settingsThread ??= await this.thread();
    const view = this.settingsThread;
    const before = this.bot(view).length;
    const since = this.watch.interactions;
    await this.client.send(view.id, '/settings', randomUUID());
    await this.watch.interacted(since, WEB_PERSON);
    const card = await view.until(() => this.bot(view)[before], 'the settings form');
    const asked: WebAsked = { said: card.text, thread: view.id, message: card.id };
    return asked;
  }

  /** The form as the page sends it: every field's value as shown, with `change` typed in. */
  saveSettings(asked: Asked, change: Record<string, string>): Promise<string> {
    const form = this.messageOf(asked as WebAsked)?.card?.form;
    const values = Object.fromEntries(
      (form?.fields ?? []).map((f) => [f.id, change[f.id] ?? f.initial ?? '']),
    );
    return this.press(asked, 'confirm', 'starter', undefined, values);
  }

  async askWhereSettings(question: string): Promise<void> {
    this.settingsThread ??= await this.thread();
    await this.say(this.settingsThread, question);
  }

  confirmErase(asked: Asked, word: string, tamper?: (ref: string) => string): Promise<string> {
    return this.press(asked, 'confirm', 'starter', tamper, { word });
  }

  cancelErase(asked: Asked): Promise<string> {
    return this.press(asked, 'cancel');
  }

  private messageOf(a: WebAsked): WebMessage | undefined {
    return this.view(a.thread)
      .messages()
      .find((m) => m.id === a.message);
  }

  confirmation(asked: Asked): SeenConfirmation {
    const card = this.messageOf(asked as WebAsked)?.card;
    const buttons = card?.form
      ? [card.form.submit.label, card.form.cancel.label]
      : (card?.actions ?? []).map((a) => a.label);
    return { text: this.messageOf(asked as WebAsked)?.text ?? '', buttons, onlyAsker: true };
  }

  refOf(asked: Asked, button: Button): string {
    const card = this.messageOf(asked as WebAsked)?.card;
    const ref = card?.form
      ? (button === 'confirm' ? card.form.submit : card.form.cancel).ref
      : card?.actions?.[button === 'confirm' ? 0 : 1]?.ref;
    if (!ref) throw new Error(`web flow driver: no ${button} on the card`);
    return ref;
  }

  /** Presses a button (or sends the card's form with `values`); what the page then shows. */
  async press(
    asked: Asked,
    button: Button,
    _as: Who = 'starter',
    tamper?: (ref: string) => string,
    values: Record<string, unknown> = {},
  ): Promise<string> {
    const a = asked as WebAsked;
    const view = this.view(a.thread);
    const before = JSON.stringify(view.messages());
    const ref = this.refOf(a, button);
    const res = await this.client.request(`/api/threads/${a.thread}/actions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messageId: a.message, ref: tamper ? tamper(ref) : ref, values }),
    });
    if (!res.ok) throw new Error(`web flow driver: action answered ${res.status}`);
    const count = JSON.parse(before).length as number;
    return view.until(() => {
      if (JSON.stringify(view.messages()) === before) return undefined;
      const added = view
        .messages()
        .slice(count)
        .filter((m) => m.author === 'bot')
        .at(-1);
      const card = this.messageOf(a);
      return (
        added?.text ??
        (card?.card?.errors ? Object.values(card.card.errors).join('\n') : card?.text)
      );
    }, 'the page to change');
  }

  async typeConfirm(asked: Asked): Promise<string> {
    const said = await this.say(this.view((asked as WebAsked).thread), 'confirm share');
    return said.map((m) => m.text).join('\n');
  }

  async askElsewhere(question: string): Promise<string> {
    const said = await this.say(await this.thread(), question);
    return said.map((m) => m.text).join('\n');
  }

  async askForAnswer(question: string): Promise<Answered> {
    this.h.llm.setResponder(() => ({ content: `About "${question}": the limit is 5.` }));
    const view = await this.thread();
    await this.say(view, question);
    const m = await view.until(
      () => this.bot(view).findLast((x) => (x.votes?.length ?? 0) > 0 && !x.streaming),
      'the answer with its buttons',
    );
    const a: WebAnswered = { text: m.text, thread: view.id, message: m.id };
    return a;
  }

  async runCommand(a: Answered, name: CommandName, text = ''): Promise<string> {
    const view = this.view((a as WebAnswered).thread);
    if ('flow' in command(name).starts) {
      const before = this.bot(view).length;
      const since = this.watch.interactions;
      await this.client.send(view.id, `/${name}`, randomUUID());
      await this.watch.interacted(since, WEB_PERSON);
      return (await view.until(() => this.bot(view)[before], `what /${name} showed`)).text;
    }
    const said = await this.say(view, name === 'ask' ? text : `/${name}`);
    return said
      .filter((m) => !m.streaming)
      .map((m) => m.text)
      .join('\n');
  }

  /** The person's message, which the bot answers; then the page's "Ask about this" under it. */
  async askAbout(text: string): Promise<string> {
    const view = await this.thread();
    await this.say(view, text);
    const asked = view.messages().find((m) => m.author === 'person');
    const before = this.bot(view).length;
    // The action the page offers under each message, as GET /api/threads tells it.
    const { commands } = (await (await this.client.request('/api/threads')).json()) as {
      commands: { onMessage?: string }[];
    };
    const onMessage = commands.find((c) => c.onMessage)?.onMessage;
    const res = await this.client.request(`/api/threads/${view.id}/actions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messageId: asked?.id, command: onMessage }),
    });
    if (!res.ok) throw new Error(`web flow driver: action answered ${res.status}`);
    const m = await view.until(
      () =>
        this.bot(view)
          .slice(before)
          .findLast((x) => (x.votes?.length ?? 0) > 0 && !x.streaming),
      'the answer about the message',
    );
    return m.text;
  }

  private answerOf(a: Answered): WebMessage | undefined {
    const w = a as WebAnswered;
    return this.view(w.thread)
      .messages()
      .find((m) => m.id === w.message);
  }

  voteButtons(a: Answered): string[] {
    return (this.answerOf(a)?.votes ?? []).map((v) => v.label);
  }

  /** Posts a press (or a form's values) on `message`, as the page does. */
  private async act(thread: string, message: string, ref: string, values = {}): Promise<void> {
    const res = await this.client.request(`/api/threads/${thread}/actions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messageId: message, ref, values }),
    });
    if (!res.ok) throw new Error(`web flow driver: action answered ${res.status}`);
  }

  async vote(a: Answered, vote: VoteButton, _as?: Who): Promise<string> {
    const w = a as WebAnswered;
    const view = this.view(w.thread);
    const button = this.answerOf(a)?.votes?.[vote === 'up' ? 0 : 1];
    if (!button) throw new Error('web flow driver: no vote button');
    const count = view.messages().length;
    const since = this.watch.interactions;
    await this.act(w.thread, w.message, button.ref);
    await this.watch.interacted(since, WEB_PERSON);
    // 👍 shows pressed; 👎 also asks why, in the thread.
    return view.until(() => {
      const form = view
        .messages()
        .slice(count)
        .find((m) => m.card?.form);
      if (form)
        return [form.text, ...(form.card?.form?.fields ?? []).map((f) => f.label)].join('\n');
      const pressed = this.answerOf(a)?.voted === button.ref;
      return vote === 'up' && pressed ? `${button.label} pressed` : undefined;
    }, 'the vote on the page');
  }

  async giveReason(a: Answered, reason: string, _as?: Who): Promise<string> {
    const w = a as WebAnswered;
    const view = this.view(w.thread);
    const form = view.messages().findLast((m) => m.card?.form);
    if (!form?.card?.form) throw new Error('web flow driver: no reason form');
    await this.act(w.thread, form.id, form.card.form.submit.ref, { reason });
    return view.until(() => {
      const now = view.messages().find((m) => m.id === form.id);
      return now && !now.card?.form ? now.text : undefined;
    }, 'the form answered');
  }

  async exportFeedback(_as: 'admin' | 'member', format: 'csv' | 'json'): Promise<Exported> {
    const view = await this.thread();
    const before = this.bot(view).length;
    const since = this.watch.interactions;
    await this.client.send(view.id, `/feedback-export ${format}`, randomUUID());
    await this.watch.interacted(since, WEB_PERSON);
    const m = await view.until(() => this.bot(view)[before], 'the export');
    const file = m.card?.file?.body;
    return { said: m.text, ...(file === undefined ? {} : { file }) };
  }

  idOf(_who: Who): string {
    return WEB_PERSON;
  }

  async restart(): Promise<void> {
    for (const v of this.views.values()) v.close();
    await this.h.restart();
    this.watch.watch(this.h.app.core);
    this.client = new WebChatClient(`http://127.0.0.1:${this.h.app.port}`);
    for (const id of [...this.views.keys()]) this.views.set(id, await this.client.watch(id));
  }

  async close(): Promise<void> {
    for (const v of this.views.values()) v.close();
    await this.h.close();
  }
}

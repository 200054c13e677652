// The interaction contract's driver on the web chat: the person uses the page's API (messages,
// files, actions on a card) and reads the thread from its event stream, as the page does. The web
// chat is one person's: no private places, nobody else to press a button, no other project.
import { randomUUID } from 'node:crypto';
import type { WebMessage } from '../../adapters/web/transcript.ts';
import { WEB_PERSON } from '../../adapters/web/web-port.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { type ThreadView, WebChatClient } from '../support/web-client.ts';
import { contractOverrides } from './config.ts';
import type { Attachment, Who } from './driver.ts';
import {
  type Asked,
  type Button,
  CoreWatch,
  type FlowDriver,
  type MakeFlowDriver,
  type SeenConfirmation,
} from './flow-driver.ts';

interface WebAsked extends Asked {
  thread: string;
  /** The bot message that holds the card. */
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

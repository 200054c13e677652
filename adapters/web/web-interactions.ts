// The web chat's side of the core's flows: the page renders what the core shows as JSON (a card,
// a confirmation, a form, in a bot message of the transcript) and posts back what the person did
// (`POST /api/threads/:id/actions` with the message, the action reference and the form's values).
// The web chat is one person's, so everything shown privately elsewhere is shown in the thread.
import { randomUUID } from 'node:crypto';
import { webMessageCommand } from '../../src/core/commands.ts';
import type { Conversation } from '../../src/core/conversation.ts';
import { postedValues } from '../../src/core/interactions/form-values.ts';
import { confirmButtons, confirmText, formParts } from '../../src/model/confirmation-parts.ts';
import type {
  AboutMessage,
  Actor,
  Confirmation,
  FlowName,
  Form,
  FormField,
  FormValues,
  InteractionReply,
  InteractionSurface,
  Shown,
} from '../../src/model/interaction.ts';
import { placeAt } from '../../src/model/interaction.ts';
import type { Destination } from '../../src/model/platform-port.ts';
import { messageId, type Transcript, type WebCard, type WebField } from './transcript.ts';
import type { WebMessage } from './web-messages.ts';
import { threadMessageOf, WEB_PERSON, WEB_PROJECT, webRef } from './web-port.ts';

/**
 * A press or a form the page posted: on which message, its reference (or the message command it
 * runs on that message, `command`: ask-about), what was filled in.
 */
export interface WebAction {
  messageId: string;
  ref: string;
  command?: string;
  values: FormValues;
}

/** A page's action as it posted it (`{messageId, ref | command, values?}`); undefined when malformed. */
export function actionOf(body: Record<string, unknown>): WebAction | undefined {
  const { messageId, command } = body;
  const ref = body.ref ?? '';
  const values = postedValues(body.values ?? {});
  if (typeof messageId !== 'string' || typeof ref !== 'string' || ref.length > 200)
    return undefined;
  if (command !== undefined && (typeof command !== 'string' || command.length > 50))
    return undefined;
  if ((ref === '' && command === undefined) || !values) return undefined;
  return { messageId, ref, ...(command === undefined ? {} : { command }), values };
}

/** The one person of the web chat runs the bot: every right is theirs. */
const PERSON: Actor = { id: WEB_PERSON, may: async () => true };

/** A form's field as the page draws it: the core's field as JSON (the page shows no placeholder). */
function field(f: FormField): WebField {
  const { placeholder: _shownNowhere, ...rest } = f as FormField & { placeholder?: string };
  return structuredClone(rest) as WebField;
}

/** What a shown thing puts in a bot message: its words, and the card the page draws under them. */
export function webCardOf(s: Shown): { text: string; card?: WebCard } {
  switch (s.kind) {
    case 'notice':
      return { text: s.text.text };
    case 'card': {
      const c = s.card;
      return {
        text: c.text.text,
        card: {
          ...(c.title ? { title: c.title } : {}),
          ...(c.fields
            ? { fields: c.fields.map((f) => ({ label: f.label, value: f.value.text })) }
            : {}),
          ...(c.context || c.sources
            ? { context: [c.context?.text, c.sources?.text].filter(Boolean).join('\n') }
            : {}),
          ...(c.actions ? { actions: c.actions.map((a) => ({ ...a })) } : {}),
        },
      };
    }
    case 'confirm': {
      const c = s.confirmation;
      const card = c.typedWord ? formCard(c) : { title: c.title, actions: confirmButtons(c) };
      const text = confirmText(c);
      return { text, card: { ...card, ...(s.errors ? { errors: { ...s.errors } } : {}) } };
    }
    case 'file':
      return { text: s.text.text, card: { file: { ...s.file } } };
    case 'form':
      return {
        text: s.form.intro?.text ?? '',
        card: { ...formCard(s.form), ...(s.errors ? { errors: { ...s.errors } } : {}) },
      };
  }
}

/** A form, or a confirmation whose word must be typed, as the page's form. */
function formCard(shown: Form | Confirmation): WebCard {
  const f = formParts(shown);
  return {
    title: f.title,
    form: { fields: f.fields.map(field), submit: { ...f.submit }, cancel: { ...f.cancel } },
  };
}

/** A message now showing `shown`, in place of what it showed. */
function showIn(m: WebMessage, shown: { text: string; card?: WebCard }): void {
  m.text = shown.text;
  if (shown.card) m.card = shown.card;
  else delete m.card;
}

export class WebInteractions implements InteractionSurface {
  private readonly core: Conversation;
  private readonly transcript: Transcript;

  constructor(core: Conversation, transcript: Transcript) {
    this.core = core;
    this.transcript = transcript;
  }

  /** A typed request's card or confirmation in its thread. */
  async post(
    to: Destination,
    shown: Extract<Shown, { kind: 'card' | 'confirm' }>,
  ): Promise<string | undefined> {
    const { text, card } = webCardOf(shown);
    return (await this.transcript.addBotMessage(to.ref.sessionId, text, false, card)).id;
  }

  /** A card in place of one `post` made (its buttons go with the old card). */
  async update(to: Destination, messageId: string, shown: Extract<Shown, { kind: 'card' }>) {
    await this.transcript.update(to.ref.sessionId, messageId, (m) => showIn(m, webCardOf(shown)));
  }

  /**
   * A flow the page's command begins (`/erase`, `/feedback-export json`; `messageId` the command's
   * own message, what was posted before it), or a message command on `about` (ask-about).
   */
  async start(
    threadId: string,
    flow: FlowName,
    values: FormValues = {},
    messageId?: string,
    about?: AboutMessage,
  ): Promise<{ outcome: string }> {
    const message = about ?? (messageId === undefined ? undefined : { id: messageId, files: [] });
    const reply = await this.core.interact({
      kind: 'start',
      flow,
      actor: PERSON,
      place: placeAt(webRef(threadId)),
      values,
      ...(message ? { message } : {}),
      // A message command's request sorts after the message it is about.
      ...(about ? { requestId: messageId ?? '' } : {}),
      traceId: randomUUID(),
    });
    await this.apply(threadId, reply, undefined);
    return { outcome: reply.show.length === 0 ? 'nothing' : 'shown' };
  }

  /** A button or form on the message `messageId`; the field errors, if the form stays open. */
  async act(threadId: string, action: WebAction): Promise<{ outcome: string }> {
    const { messageId, ref, values } = action;
    if (action.command !== undefined) return this.onMessage(threadId, action);
    const reply = await this.core.interact({
      kind: 'act',
      ref,
      actor: PERSON,
      project: { platform: 'web', projectId: WEB_PROJECT },
      place: placeAt(webRef(threadId)),
      values,
      traceId: randomUUID(),
    });
    // A vote under an answer shows as its pressed button; what the flow says besides (the reason
    // form, a refusal) goes in the thread.
    let voted = false as boolean;
    if (reply.outcome === 'done' || reply.outcome === 'asked')
      await this.transcript.update(threadId, messageId, (m) => {
        if (!m.votes?.some((v) => v.ref === ref)) return;
        m.voted = ref;
        voted = true;
      });
    const show = voted ? reply.show.filter((s) => s.kind !== 'notice') : reply.show;
    await this.apply(threadId, { ...reply, show }, messageId);
    return { outcome: reply.show.length === 0 ? 'nothing' : 'shown' };
  }

  /** A message command run on one of the thread's messages (ask-about), answered in the thread. */
  private async onMessage(threadId: string, a: WebAction): Promise<{ outcome: string }> {
    const spec = webMessageCommand(a.command ?? '');
    const m = (await this.transcript.messages(threadId)).find((x) => x.id === a.messageId);
    if (!spec || !('flow' in spec.starts) || !m) return { outcome: 'nothing' };
    // The message itself is quoted, the bot's own included: it is what was asked about.
    const quoted = { ...threadMessageOf(m), fromSelf: false };
    return this.start(threadId, spec.starts.flow, a.values, messageId(), {
      id: m.id,
      files: [],
      quoted,
    });
  }

  private async holdsForm(threadId: string, id: string): Promise<boolean> {
    const m = (await this.transcript.messages(threadId)).find((x) => x.id === id);
    return m?.card?.form !== undefined;
  }

  /** Shows a reply: the card it answers is replaced or gets its errors; anything else is added. */
  private async apply(
    threadId: string,
    reply: InteractionReply,
    source: string | undefined,
  ): Promise<void> {
    for (const s of reply.show) {
      const shown = webCardOf(s);
      const errors = s.kind === 'form' || s.kind === 'confirm' ? s.errors : undefined;
      // A form answered without errors goes, as a modal closes: the reply takes its place.
      const replace =
        ((s.kind === 'notice' || s.kind === 'card') && s.replace === true) ||
        (source !== undefined && errors === undefined && (await this.holdsForm(threadId, source)));
      const changed =
        source !== undefined &&
        (errors !== undefined || replace) &&
        (await this.transcript.update(threadId, source, (m) => {
          if (!errors) showIn(m, shown);
          else if (m.card) m.card.errors = { ...errors };
        }));
      if (!changed) await this.transcript.addBotMessage(threadId, shown.text, false, shown.card);
    }
  }
}

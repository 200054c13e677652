// Interactions no flow answers: a button on a message from an older version (the votes once were
// `threadmind_feedback` buttons), a modal, shortcut, command or menu the app's configuration names
// and this code does not. Bolt acknowledges only what a listener acknowledges, so Slack would wait
// 3 s, get a 404 and show the person an error. These listeners take what the flows' do not:
// acknowledged at once, the person told privately where Slack gives a response_url, logged.
import type { AllMiddlewareArgs, App, Middleware, RespondFn } from '@slack/bolt';
import { messages } from '../../src/core/messages.ts';
import type { Logger } from '../../src/log/logger.ts';
import { INTERACTION_ID } from './slack-cards.ts';
import { SLACK_COMMAND } from './slack-command.ts';
import { MESSAGE_SHORTCUTS } from './slack-interactions.ts';
import { type SlackSourceFields, slackPayloadKind } from './slack-source.ts';

/** What the flows answer; anything else is unknown here. A new entry point is added here too. */
export interface KnownInteractions {
  /** action_ids of buttons and menus a flow answers. */
  actions: RegExp;
  /** callback_ids of the modals a flow answers (submitted and closed). */
  views: readonly string[];
  /** callback_ids of the global and message shortcuts a flow answers. */
  shortcuts: readonly string[];
  commands: readonly string[];
}

export const KNOWN: KnownInteractions = {
  actions: new RegExp(`^${INTERACTION_ID}:`),
  views: [INTERACTION_ID],
  shortcuts: MESSAGE_SHORTCUTS,
  commands: [SLACK_COMMAND],
};

interface AnyPayload extends SlackSourceFields {
  callback_id?: string;
  actions?: { action_id?: string }[];
  view?: { callback_id?: string; app_installed_team_id?: string | null };
  response_url?: string;
}

/** Whether a flow's listener takes this payload (and so acknowledges it). */
export function isKnown(known: KnownInteractions, b: AnyPayload): boolean {
  switch (slackPayloadKind(b)) {
    case 'command':
      return known.commands.includes(b.command ?? '');
    case 'action':
      return known.actions.test(b.actions?.[0]?.action_id ?? '');
    case 'view':
      return known.views.includes(b.view?.callback_id ?? '');
    case 'shortcut':
      return known.shortcuts.includes(b.callback_id ?? '');
    default:
      // Options requests, events and what Bolt does not route: no flow uses them.
      return false;
  }
}

/**
 * What the person is told: a command's name, else that the button or form is no longer active;
 * nothing for a closed modal or an options request (there is no one to tell).
 */
function unknownWords(b: AnyPayload): string | undefined {
  const kind = slackPayloadKind(b);
  if (kind === 'command') return messages.unknownCommand(b.command ?? '');
  return kind === 'options' || b.type === 'view_closed' ? undefined : messages.interactionInactive;
}

/**
 * Registers the catch-all listeners; call after every flow's own. Bolt runs every listener a
 * payload matches, so these skip what `KNOWN` names instead of relying on their order.
 */
export function answerUnknownInteractions(
  app: App,
  log: Logger,
  /** Bot text rendered like every other post. */
  render: (markdown: string) => string,
): void {
  const unknownOnly: Middleware<AllMiddlewareArgs & { body: unknown }> = async ({ body, next }) => {
    if (!isKnown(KNOWN, body as AnyPayload)) await next();
  };
  type Args = { body: unknown; ack: () => Promise<void>; respond?: RespondFn | undefined };
  const answer = async ({ body, ack, respond }: Args): Promise<void> => {
    await ack();
    const b = body as AnyPayload;
    const what = b.command ?? b.actions?.[0]?.action_id ?? b.view?.callback_id ?? b.callback_id;
    log.debug({ type: b.type ?? 'slash_command', id: what }, 'slack interaction not known here');
    const text = unknownWords(b);
    if (!respond || !text) return;
    await respond({ response_type: 'ephemeral', text: render(text) }).catch((err: unknown) =>
      log.debug({ err }, 'slack: could not say an interaction is no longer active'),
    );
  };
  app.action({}, unknownOnly as never, answer);
  app.shortcut({}, unknownOnly as never, answer);
  app.view({}, unknownOnly as never, answer);
  app.command(/.*/, unknownOnly as never, answer);
  app.options({}, unknownOnly as never, async ({ body, ack }) =>
    answer({ body, ack: () => ack({ options: [] }) }),
  );
  // A workflow's custom step waits for its app's acknowledgement; this app defines none.
  app.event('function_executed', async (args) => {
    await (args as { ack?: () => Promise<void> }).ack?.();
    log.debug('slack function_executed acknowledged: this app defines no custom steps');
  });
  // Bolt drops what it cannot type (a dialog's cancellation, a legacy workflow step's edit)
  // without acknowledging it.
  const process = app.processEvent.bind(app);
  app.processEvent = async (event) => {
    if (slackPayloadKind(event.body as SlackSourceFields)) return process(event);
    await event.ack();
    log.debug({ type: event.body.type }, 'slack payload of a kind Bolt does not route');
  };
}

// Interaction responses: the callback (one, within the ack window, else 10062 Unknown
// interaction) and the interaction webhook (original response and followups, token valid
// 15 minutes). Neither takes the bot token.
import type { APIMessage } from 'discord.js';
import { type Answer, apiError, Errors, noContent, ok } from './api-errors.ts';
import { modalComponentsProblem } from './component-validation.ts';
import {
  type EmuCtx,
  emitMessageCreate,
  emitMessageDelete,
  emitMessageUpdate,
  type InteractionState,
} from './context.ts';
import type { Req, Route } from './http-api.ts';
import {
  buildMessage,
  EPHEMERAL,
  editMessage,
  LOADING,
  type MessagePayload,
} from './message-factory.ts';
import type { StoredMessage } from './store.ts';

const TOKEN_LIFETIME_MS = 15 * 60_000;
/** Follow-ups an interaction of a user install only (no server install there) may create. */
const USER_INSTALL_FOLLOWUPS = 5;

/** Authorized through a user install alone: the app is not installed where it was used. */
function userInstallOnly(state: InteractionState): boolean {
  return state.owners['1'] !== undefined && state.owners['0'] === undefined;
}

export function interactionRoutes(ctx: EmuCtx): Route[] {
  const byToken = (r: Req): InteractionState | Answer => {
    if (r.params.app !== ctx.applicationId) return Errors.unknownWebhook();
    const state = [...ctx.interactions.values()].find((i) => i.token === r.params.token);
    if (state === undefined || Date.now() - state.createdAt > TOKEN_LIFETIME_MS) {
      return Errors.invalidWebhookToken();
    }
    return state;
  };
  const find = (state: InteractionState, id: string): StoredMessage | undefined => {
    const target = id === '@original' ? originalId(state) : id;
    if (target === undefined) return undefined;
    if (id !== '@original' && !state.followupIds.includes(id)) return undefined;
    return ctx.world.message(state.channelId, target);
  };
  const withMessage =
    (fn: (s: InteractionState, m: StoredMessage, r: Req) => Answer) =>
    (r: Req): Answer => {
      const state = byToken(r);
      if (!('token' in state)) return state;
      const m = find(state, r.params.message ?? '');
      return m === undefined ? Errors.unknownMessage() : fn(state, m, r);
    };

  return [
    {
      method: 'POST',
      path: '/interactions/:id/:token/callback',
      auth: false,
      handle: (r) => callback(ctx, r),
    },
    {
      method: 'GET',
      path: '/webhooks/:app/:token/messages/:message',
      auth: false,
      handle: withMessage((_s, m) => ok(ctx.render.message(m))),
    },
    {
      method: 'PATCH',
      path: '/webhooks/:app/:token/messages/:message',
      auth: false,
      handle: withMessage((_s, m, r) => {
        const refused = editMessage(ctx, m, (r.body ?? {}) as MessagePayload, r.files);
        if (refused !== undefined) return refused;
        emitMessageUpdate(ctx, m);
        return ok(ctx.render.message(m));
      }),
    },
    {
      method: 'DELETE',
      path: '/webhooks/:app/:token/messages/:message',
      auth: false,
      handle: withMessage((_s, m) => {
        m.deleted = true;
        emitMessageDelete(ctx, m);
        return noContent();
      }),
    },
    {
      method: 'POST',
      path: '/webhooks/:app/:token',
      auth: false,
      handle: (r) => {
        const state = byToken(r);
        if (!('token' in state)) return state;
        if (state.acknowledgedAt === undefined) return Errors.unknownWebhook();
        const payload = (r.body ?? {}) as MessagePayload;
        const original = originalId(state);
        const loading =
          original === undefined ? undefined : ctx.world.message(state.channelId, original);
        if (loading !== undefined && ((loading.msg.flags ?? 0) & LOADING) !== 0) {
          // The first followup after a deferral edits the "thinking…" message instead of posting
          // (documented backwards compatibility); the deferral's ephemeral flag stays.
          const refused = editMessage(ctx, loading, payload, r.files);
          if (refused !== undefined) return refused;
          emitMessageUpdate(ctx, loading);
          return ok(ctx.render.message(loading));
        }
        if (userInstallOnly(state) && state.followupIds.length >= USER_INSTALL_FOLLOWUPS) {
          // Documented limit; Discord does not document the error body, this one is ours.
          return apiError(400, 50035, 'Invalid Form Body', {
            _errors: [
              {
                code: 'MAX_FOLLOWUP_MESSAGES',
                message: `A user-installed app may send at most ${USER_INSTALL_FOLLOWUPS} follow-up messages.`,
              },
            ],
          });
        }
        const m = respond(ctx, state, payload, r, 0, false);
        if (!('msg' in m)) return m;
        state.followupIds.push(m.msg.id);
        return ok(ctx.render.message(m));
      },
    },
  ];
}

// An autocomplete result: `choices`, an array of at most 25 (an empty one offers nothing).
function checkChoices(choices: unknown): Answer | undefined {
  if (Array.isArray(choices) && choices.length <= 25) return undefined;
  const message = Array.isArray(choices)
    ? 'Must be 25 or fewer in length.'
    : 'This field is required';
  return apiError(400, 50035, 'Invalid Form Body', {
    data: { choices: { _errors: [{ code: 'BASE_TYPE_BAD_LENGTH', message }] } },
  });
}

function originalId(state: InteractionState): string | undefined {
  // After DEFERRED_UPDATE_MESSAGE / UPDATE_MESSAGE, @original is the component's message.
  if (state.originalId !== undefined) return state.originalId;
  return state.responseType === 6 || state.responseType === 7 ? state.messageId : undefined;
}

function callback(ctx: EmuCtx, r: Req): Answer {
  const state = ctx.interactions.get(r.params.id ?? '');
  if (state === undefined || state.token !== r.params.token) return Errors.unknownInteraction();
  if (state.acknowledgedAt !== undefined) return Errors.alreadyAcknowledged();
  if (Date.now() - state.createdAt > ctx.ackWindowMs) return Errors.unknownInteraction();
  const body = (r.body ?? {}) as {
    type?: unknown;
    data?: MessagePayload & Record<string, unknown>;
  };
  const type = body.type;
  const data = body.data ?? {};
  const component = state.type === 3;
  // A modal submission cannot answer with another modal; it may update the message it came from.
  const modalAllowed = state.messageId === undefined ? [4, 5] : [4, 5, 6, 7];
  const allowed = component
    ? [4, 5, 6, 7, 9]
    : state.type === 4
      ? [8]
      : state.type === 5
        ? modalAllowed
        : [4, 5, 9];
  if (typeof type !== 'number' || !allowed.includes(type)) {
    return apiError(400, 50035, 'Invalid Form Body', {
      type: {
        _errors: [
          {
            code: 'BASE_TYPE_CHOICES',
            message: `Value must be one of ${JSON.stringify(allowed)}.`,
          },
        ],
      },
    });
  }
  let message: StoredMessage | undefined;
  if (type === 8) {
    const refused = checkChoices(data.choices);
    if (refused !== undefined) return refused;
    state.choices = structuredClone(data.choices as unknown[]);
  }
  if (type === 9) {
    const refused = checkModal(data);
    if (refused !== undefined) return refused;
    state.modal = structuredClone(data) as Record<string, unknown>;
  }
  if (type === 4 || type === 5) {
    const built = respond(ctx, state, data, r, type === 5 ? LOADING : 0, type === 5);
    if (!('msg' in built)) return built;
    message = built;
    state.originalId = built.msg.id;
    state.ephemeral = built.ephemeral;
  } else if (type === 7) {
    const target = ctx.world.message(state.channelId, state.messageId ?? '');
    if (target === undefined) return Errors.unknownMessage();
    const refused = editMessage(ctx, target, data, r.files);
    if (refused !== undefined) return refused;
    emitMessageUpdate(ctx, target);
    message = target;
  }
  state.acknowledgedAt = Date.now();
  state.responseType = type;
  if (r.query.get('with_response') !== 'true') return noContent();
  const interaction: Record<string, unknown> = { id: state.id, type: state.type };
  if (message !== undefined) {
    interaction.response_message_id = message.msg.id;
    interaction.response_message_loading = type === 5;
    interaction.response_message_ephemeral = message.ephemeral;
  }
  const resource: Record<string, unknown> = { type };
  if (message !== undefined) resource.message = ctx.render.message(message);
  return ok({ interaction, resource });
}

/** Discord's limits on a modal: custom_id, title (≤ 45), 1–5 top-level components. */
function checkModal(data: Record<string, unknown>): Answer | undefined {
  const bad = (field: string, code: string, message: string): Answer =>
    apiError(400, 50035, 'Invalid Form Body', {
      data: { [field]: { _errors: [{ code, message }] } },
    });
  if (
    typeof data.custom_id !== 'string' ||
    data.custom_id.length < 1 ||
    data.custom_id.length > 100
  ) {
    return bad('custom_id', 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.');
  }
  if (typeof data.title !== 'string' || data.title.length < 1 || data.title.length > 45) {
    return bad('title', 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 45 in length.');
  }
  const components = data.components;
  if (!Array.isArray(components) || components.length < 1 || components.length > 5) {
    return bad('components', 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 5 in length.');
  }
  return modalComponentsProblem(components);
}

/** A message posted through the interaction: the original response or a followup. */
function respond(
  ctx: EmuCtx,
  state: InteractionState,
  payload: MessagePayload,
  r: Req,
  extraFlags: number,
  deferred: boolean,
): StoredMessage | Answer {
  const channel = ctx.world.channels.get(state.channelId);
  if (channel === undefined) return Errors.unknownChannel();
  const user = ctx.render.user(ctx.world.user(state.userId));
  const isOriginal = state.originalId === undefined;
  const extra: Partial<APIMessage> = {
    webhook_id: ctx.applicationId,
    application_id: ctx.applicationId,
    interaction_metadata: {
      id: state.id,
      type: state.type,
      user,
      authorizing_integration_owners: state.owners,
      ...(isOriginal ? {} : { original_response_message_id: state.originalId }),
    } as NonNullable<APIMessage['interaction_metadata']>,
  };
  if (state.type === 2) extra.interaction = { id: state.id, type: 2, name: state.name, user };
  const built = buildMessage(ctx, {
    channel,
    authorId: ctx.botId,
    payload: deferred ? { flags: payload.flags } : payload,
    files: deferred ? [] : r.files,
    type: isOriginal && state.type === 2 ? 20 : 0,
    allowEphemeral: true,
    allowEmpty: deferred,
    extra,
  });
  if (!('msg' in built)) return built;
  built.msg.flags = (built.msg.flags ?? 0) | extraFlags | (built.ephemeral ? EPHEMERAL : 0);
  built.interactionId = state.id;
  ctx.world.addMessage(built);
  emitMessageCreate(ctx, built);
  return built;
}

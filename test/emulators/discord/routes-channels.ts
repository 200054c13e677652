// Channel routes: reading channels and messages, posting/editing/deleting messages, threads,
// typing, reactions. Each change is dispatched back over the gateway, the bot's own messages
// included (a bot must ignore its own MESSAGE_CREATEs).
import type { APIMessage } from 'discord.js';
import { type Answer, Errors, formError, noContent, ok } from './api-errors.ts';
import {
  type EmuCtx,
  emitMessageCreate,
  emitMessageDelete,
  emitMessageUpdate,
  emitReaction,
} from './context.ts';
import type { Req, Route } from './http-api.ts';
import { buildMessage, editMessage, type MessagePayload } from './message-factory.ts';
import { Perm } from './permissions.ts';
import { type ChannelRec, isThread } from './store.ts';
import { startThreadRoute } from './threads.ts';

export function channelRoutes(ctx: EmuCtx): Route[] {
  const channel = (r: Req): ChannelRec | undefined =>
    ctx.world.channels.get(r.params.channel ?? '');
  const body = (r: Req) => (r.body ?? {}) as MessagePayload & Record<string, unknown>;

  // Where the bot is not (a server that did not add it, a group DM) it may neither read nor post:
  // a user install answers only through the interaction.
  const withChannel =
    (fn: (c: ChannelRec, r: Req) => Answer) =>
    (r: Req): Answer => {
      const c = channel(r);
      if (c === undefined) return Errors.unknownChannel();
      return ctx.world.botCanAccess(c) ? fn(c, r) : Errors.missingAccess();
    };

  const withMessage = (fn: (c: ChannelRec, r: Req, id: string) => Answer) =>
    withChannel((c, r) => {
      const id = r.params.message ?? '';
      const m = ctx.world.message(c.id, id);
      return m === undefined || m.ephemeral ? Errors.unknownMessage() : fn(c, r, id);
    });

  return [
    {
      method: 'GET',
      path: '/channels/:channel',
      handle: withChannel((c) => ok(ctx.render.channel(c))),
    },
    {
      method: 'GET',
      path: '/channels/:channel/messages',
      handle: withChannel((c, r) => ok(listMessages(ctx, c, r.query))),
    },
    {
      method: 'GET',
      path: '/channels/:channel/messages/:message',
      handle: withMessage((c, _r, id) => {
        const m = ctx.world.message(c.id, id);
        return m === undefined ? Errors.unknownMessage() : ok(ctx.render.message(m));
      }),
    },
    {
      method: 'POST',
      path: '/channels/:channel/messages',
      handle: withChannel((c, r) => {
        const built = buildMessage(ctx, {
          channel: c,
          authorId: ctx.botId,
          payload: body(r),
          files: r.files,
        });
        if (!('msg' in built)) return built;
        // Posting in a thread joins the bot to it.
        if (isThread(c.type)) c.botJoined = true;
        ctx.world.addMessage(built);
        emitMessageCreate(ctx, built);
        return ok(ctx.render.message(built));
      }),
    },
    {
      method: 'PATCH',
      path: '/channels/:channel/messages/:message',
      handle: withMessage((c, r, id) => {
        const m = ctx.world.message(c.id, id);
        if (m === undefined) return Errors.unknownMessage();
        if (m.msg.author.id !== ctx.botId || m.msg.webhook_id !== undefined)
          return Errors.notAuthor();
        const refused = editMessage(ctx, m, body(r), r.files);
        if (refused !== undefined) return refused;
        emitMessageUpdate(ctx, m);
        return ok(ctx.render.message(m));
      }),
    },
    {
      method: 'DELETE',
      path: '/channels/:channel/messages/:message',
      handle: withMessage((c, _r, id) => {
        const m = ctx.world.message(c.id, id);
        if (m === undefined) return Errors.unknownMessage();
        const g = c.guildId === undefined ? undefined : ctx.world.guilds.get(c.guildId);
        const mayManage =
          g !== undefined && (ctx.render.permissions(g, ctx.botId) & Perm.ManageMessages) !== 0n;
        if (m.msg.author.id !== ctx.botId && !mayManage) {
          return Errors.missingPermissions();
        }
        m.deleted = true;
        emitMessageDelete(ctx, m);
        return noContent();
      }),
    },
    {
      method: 'POST',
      path: '/channels/:channel/messages/:message/threads',
      handle: withMessage((c, r, id) => startThreadRoute(ctx, c, body(r), id)),
    },
    {
      method: 'POST',
      path: '/channels/:channel/threads',
      handle: withChannel((c, r) => startThreadRoute(ctx, c, body(r), undefined)),
    },
    { method: 'POST', path: '/channels/:channel/typing', handle: withChannel(() => noContent()) },
    {
      method: 'PUT',
      path: '/channels/:channel/messages/:message/reactions/:emoji/@me',
      handle: withMessage((c, r, id) => react(ctx, c, id, r.params.emoji ?? '', true)),
    },
    {
      method: 'DELETE',
      path: '/channels/:channel/messages/:message/reactions/:emoji/@me',
      handle: withMessage((c, r, id) => react(ctx, c, id, r.params.emoji ?? '', false)),
    },
    {
      method: 'PUT',
      path: '/channels/:channel/thread-members/@me',
      handle: withChannel((c) => {
        if (!isThread(c.type)) return Errors.wrongChannelType();
        c.botJoined = true;
        return noContent();
      }),
    },
    {
      method: 'POST',
      path: '/attachments/refresh-urls',
      handle: (r) => {
        const urls = (r.body as { attachment_urls?: unknown } | undefined)?.attachment_urls;
        if (!Array.isArray(urls)) {
          return formError(['attachment_urls'], 'BASE_TYPE_REQUIRED', 'This field is required');
        }
        return ok({ refreshed_urls: ctx.cdn.refresh(urls.map(String)) });
      },
    },
  ];
}

/** Newest first, as Discord returns them; `limit` 1–100 (default 50). */
function listMessages(ctx: EmuCtx, c: ChannelRec, q: URLSearchParams): APIMessage[] {
  const limit = Math.min(100, Math.max(1, Number(q.get('limit') ?? 50) || 50));
  let list = ctx.world.messages(c.id).filter((m) => !m.ephemeral);
  const before = q.get('before');
  const after = q.get('after');
  const around = q.get('around');
  const big = (id: string) => BigInt(id);
  if (before !== null) list = list.filter((m) => big(m.msg.id) < big(before));
  if (after !== null) {
    list = list.filter((m) => big(m.msg.id) > big(after)).slice(0, limit);
  }
  if (around !== null) {
    const i = list.findIndex((m) => big(m.msg.id) >= big(around));
    const start = Math.max(0, (i < 0 ? list.length : i) - Math.floor(limit / 2));
    list = list.slice(start, start + limit);
  }
  return list
    .slice(-limit)
    .reverse()
    .map((m) => ctx.render.message(m));
}

function react(ctx: EmuCtx, c: ChannelRec, messageId: string, raw: string, add: boolean): Answer {
  const m = ctx.world.message(c.id, messageId);
  if (m === undefined) return Errors.unknownMessage();
  const custom = /^(?:a:)?([\w~]{2,32}):(\d{17,20})$/.exec(raw);
  if (custom === null && !/^\p{Extended_Pictographic}|^[\u{1F1E6}-\u{1F1FF}]/u.test(raw)) {
    return Errors.unknownEmoji();
  }
  const emoji =
    custom === null ? { id: null, name: raw } : { id: custom[2] ?? '', name: custom[1] ?? '' };
  const reactions = m.msg.reactions ?? [];
  let r = reactions.find((x) => x.emoji.name === emoji.name && x.emoji.id === emoji.id);
  if (add && r?.me !== true) {
    if (r === undefined) {
      r = {
        count: 0,
        count_details: { burst: 0, normal: 0 },
        me: false,
        me_burst: false,
        burst_colors: [],
        emoji,
      };
      reactions.push(r);
    }
    r.me = true;
    r.count += 1;
    r.count_details.normal += 1;
    emitReaction(ctx, 'MESSAGE_REACTION_ADD', m, ctx.botId, emoji);
  } else if (!add && r?.me === true) {
    r.me = false;
    r.count -= 1;
    r.count_details.normal -= 1;
    emitReaction(ctx, 'MESSAGE_REACTION_REMOVE', m, ctx.botId, emoji);
  }
  m.msg.reactions = reactions.filter((x) => x.count > 0);
  return noContent();
}

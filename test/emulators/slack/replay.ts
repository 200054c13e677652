// A recorded payload (from Slack's own SDK test suites, under test/fixtures/slack-payloads) sent
// to the app as Slack sends it. Only what must belong to this workspace is swapped in, as the
// recordings' own ids and URLs were: a fresh trigger id and response URLs that lead here, the
// message an event announces stored (Slack holds what it announces), and each shared file
// uploaded here with the recorded name and type.
import type { Deliverer } from './delivery.ts';
import type { ApiContext } from './methods/context.ts';
import type { DeliveryResult, SlackFile } from './types.ts';

export type ReplayKind = 'event' | 'interactive' | 'command';

export interface ReplayDeps {
  ctx: ApiContext;
  deliverer: Deliverer;
  origin: () => string;
}

type Json = Record<string, unknown>;

// A 1×1 PNG: the recordings share images.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

export async function replayPayload(
  deps: ReplayDeps,
  kind: ReplayKind,
  recorded: Json,
  timeoutMs?: number,
): Promise<DeliveryResult> {
  const body = structuredClone(recorded);
  const s = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const obj = (v: unknown) => (typeof v === 'object' && v !== null ? (v as Json) : {});
  if (kind === 'event') {
    const ev = obj(body.event);
    if (ev.type === 'message' || ev.type === 'app_mention') storeAnnounced(deps, s(ev.channel), ev);
    return deps.deliverer.deliverEnvelope(body, timeoutMs);
  }
  // A message shortcut is used on a message Slack holds.
  if (body.type === 'message_action')
    storeAnnounced(deps, s(obj(body.channel).id), obj(body.message));
  const user = s(body.user_id) ?? s(obj(body.user).id) ?? 'U0EMUUSER1';
  const channel = s(body.channel_id) ?? s(obj(body.channel).id) ?? 'C0EMUNONE1';
  const team = s(body.team_id) ?? s(obj(body.team).id) ?? deps.ctx.ids.teamId;
  const hook = () =>
    deps.ctx.interactivity.newResponseUrl(
      deps.origin(),
      team,
      channel,
      user,
      undefined,
      s(obj(body.container).message_ts),
    );
  if (body.trigger_id !== undefined)
    body.trigger_id = deps.ctx.interactivity.newTrigger(user, team);
  if (body.response_url !== undefined) body.response_url = hook();
  if (Array.isArray(body.response_urls)) {
    for (const r of body.response_urls as Json[]) r.response_url = hook();
  }
  const form =
    kind === 'command'
      ? new URLSearchParams(body as Record<string, string>).toString()
      : new URLSearchParams({ payload: JSON.stringify(body) }).toString();
  const type = kind === 'command' ? 'slash_commands' : 'interactive';
  return deps.deliverer.deliverInteraction(type, body, form, timeoutMs);
}

/** The message (and its files) a payload names, as Slack would hold them. */
function storeAnnounced(deps: ReplayDeps, channel: string | undefined, ev: Json): void {
  if (channel === undefined || typeof ev.ts !== 'string') return;
  if (ev.subtype !== undefined && ev.subtype !== 'file_share' && ev.subtype !== 'thread_broadcast')
    return;
  if (Array.isArray(ev.files)) ev.files = (ev.files as Json[]).map((f) => uploaded(deps, f, ev));
  if (deps.ctx.store.find(channel, ev.ts) !== undefined) return;
  deps.ctx.store.add({
    channel,
    ts: ev.ts,
    ...(typeof ev.user === 'string' ? { user: ev.user } : {}),
    text: typeof ev.text === 'string' ? ev.text : '',
    ...(typeof ev.thread_ts === 'string' ? { thread_ts: ev.thread_ts } : {}),
    ...(Array.isArray(ev.files) ? { files: structuredClone(ev.files) as SlackFile[] } : {}),
  });
}

function uploaded(deps: ReplayDeps, f: Json, ev: Json): Json {
  const name = typeof f.name === 'string' ? f.name : 'file.png';
  const file = deps.ctx.files.upload({
    name,
    bytes: PNG,
    ...(typeof f.mimetype === 'string' ? { mimetype: f.mimetype } : {}),
    ...(typeof ev.user === 'string' ? { user: ev.user } : {}),
  });
  return { ...f, ...deps.ctx.files.eventFile(file) };
}

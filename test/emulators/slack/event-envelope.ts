// The Events API outer envelope (`event_callback`), identical over HTTP and Socket Mode.
import { randomBytes } from 'node:crypto';

export interface EnvelopeIdentity {
  teamId: string;
  botUserId: string;
  appId: string;
  /** The deprecated per-app verification token Slack still puts in every envelope. */
  verificationToken: string;
}

export interface EnvelopeOptions {
  eventId?: string;
  teamId?: string;
  enterpriseId?: string;
  /** The bot user of the installation the event is for (an OAuth-installed workspace's own). */
  botUserId?: string;
  isEnterpriseInstall?: boolean;
}

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** An uppercase alphanumeric id with Slack's prefix convention (Ev…, B…, U…). */
export function slackId(prefix: string, length = 10): string {
  const bytes = randomBytes(length);
  let out = prefix;
  for (const b of bytes) out += ID_ALPHABET[b % ID_ALPHABET.length];
  return out;
}

export function newEventId(): string {
  return slackId('Ev');
}

export function buildEnvelope(
  ids: EnvelopeIdentity,
  event: Record<string, unknown>,
  opts: EnvelopeOptions = {},
): Record<string, unknown> {
  const teamId = opts.teamId ?? ids.teamId;
  const enterpriseId = opts.enterpriseId ?? null;
  const envelope: Record<string, unknown> = {
    token: ids.verificationToken,
    team_id: teamId,
  };
  if (opts.enterpriseId !== undefined) envelope.enterprise_id = opts.enterpriseId;
  Object.assign(envelope, {
    context_team_id: teamId,
    context_enterprise_id: enterpriseId,
    api_app_id: ids.appId,
    event,
    type: 'event_callback',
    event_id: opts.eventId ?? newEventId(),
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [
      {
        enterprise_id: enterpriseId,
        // An org-wide installation belongs to no one workspace: Slack names none here.
        team_id: opts.isEnterpriseInstall === true ? null : teamId,
        user_id: opts.botUserId ?? ids.botUserId,
        is_bot: true,
        is_enterprise_install: opts.isEnterpriseInstall === true,
      },
    ],
    is_ext_shared_channel: false,
    event_context: eventContext(event, teamId, ids.appId),
  });
  return envelope;
}

/** Slack's opaque event_context is "4-" + base64url JSON of event type, team, app, channel. */
function eventContext(event: Record<string, unknown>, teamId: string, appId: string): string {
  const ctx: Record<string, unknown> = { et: event.type, tid: teamId, aid: appId };
  if (typeof event.channel === 'string') ctx.cid = event.channel;
  return `4-${Buffer.from(JSON.stringify(ctx)).toString('base64url')}`;
}

// The tag a turn puts on its model calls (ARCHITECTURE.md, "Sharing the GPU"): whom the tokens are
// booked to, the GPU priority class, and the prefix-cache salt of the answer's audience.
import { createHash } from 'node:crypto';
import type { Addressed, IncomingMessage } from '../model/incoming.ts';
import type { ModelCallKind, ModelCallTag, PriorityClass } from '../scope/model-call.ts';
import type { KnowledgeAudience } from './channel-settings.ts';

/** The usage keys of a message: `platform:project`, `platform:project:channel`, `platform:person`. */
export function usageKeys(msg: Pick<IncomingMessage, 'ref' | 'principal'>) {
  const { platform, projectId, channelId } = msg.ref;
  const project = `${platform}:${projectId}`;
  return { project, channel: `${project}:${channelId}`, person: `${platform}:${msg.principal}` };
}

/**
 * Equal for everyone who reads the same answers, different otherwise: the channel's members, or,
 * when the channel checks knowledge against the asker alone, the asker within the channel.
 */
export function cacheSaltFor(
  msg: Pick<IncomingMessage, 'ref' | 'principal'>,
  audience: KnowledgeAudience | undefined,
): string {
  const k = usageKeys(msg);
  const who = audience === 'asker' ? `asker:${k.person}` : 'members';
  return createHash('sha256')
    .update(`${k.project}\n${k.channel}\n${who}`)
    .digest('hex')
    .slice(0, 32);
}

/** A person waiting is interactive; answers to messages nobody addressed (reply mode all) are bulk. */
export function priorityOf(addressed: Addressed): PriorityClass {
  return addressed === 'ambient' ? 'bulk' : 'interactive';
}

export function modelCallTag(
  msg: Pick<IncomingMessage, 'ref' | 'principal'>,
  input: {
    settings?: { knowledgeAudience: KnowledgeAudience } | undefined;
    priority?: PriorityClass | undefined;
  },
  kind: ModelCallKind,
): ModelCallTag {
  return {
    ...usageKeys(msg),
    kind,
    priority: input.priority ?? 'interactive',
    cacheSalt: cacheSaltFor(msg, input.settings?.knowledgeAudience),
  };
}

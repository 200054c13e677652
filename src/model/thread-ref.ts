// The shared vocabulary (ARCHITECTURE.md, "Vocabulary"): a platform, a project (workspace or
// guild), a channel, a session (thread), and the owners an attachment can belong to. This module and
// the rest of src/model import nothing outside src/model and src/text.

export type Platform = 'slack' | 'discord' | 'web';

/** Names one conversation. */
export interface ThreadRef {
  platform: Platform;
  projectId: string;
  channelId: string;
  sessionId: string;
}

/** What an attachment can belong to: the thread, the channel at large, or the whole project. */
export interface Owner {
  kind: 'session' | 'channel' | 'project';
  key: string;
}

/** `slack:T123`: every stored key starts with platform and project, so projects never collide. */
export function projectKey(ref: Pick<ThreadRef, 'platform' | 'projectId'>): string {
  return `${ref.platform}:${ref.projectId}`;
}

export function channelKey(ref: Pick<ThreadRef, 'platform' | 'projectId' | 'channelId'>): string {
  return `${projectKey(ref)}:${ref.channelId}`;
}

export function sessionKey(ref: ThreadRef): string {
  return `${channelKey(ref)}:${ref.sessionId}`;
}

export function sessionOwner(ref: ThreadRef): Owner {
  return { kind: 'session', key: sessionKey(ref) };
}

export function channelOwner(ref: Pick<ThreadRef, 'platform' | 'projectId' | 'channelId'>): Owner {
  return { kind: 'channel', key: channelKey(ref) };
}

export function projectOwner(ref: Pick<ThreadRef, 'platform' | 'projectId'>): Owner {
  return { kind: 'project', key: projectKey(ref) };
}

/** The owners a turn in `ref` may read attachments from, narrowest first. */
export function ownersOf(ref: ThreadRef): [Owner, Owner, Owner] {
  return [sessionOwner(ref), channelOwner(ref), projectOwner(ref)];
}

const PLATFORMS: readonly Platform[] = ['slack', 'discord', 'web'];

/** A thread as one string (`slack:T1:C1:1712.5`), each part escaped so ids may hold `:`. */
export function encodeThreadRef(ref: ThreadRef): string {
  return [ref.platform, ref.projectId, ref.channelId, ref.sessionId]
    .map(encodeURIComponent)
    .join(':');
}

export function decodeThreadRef(id: string, platform?: Platform): ThreadRef {
  const parts = id.split(':').map(decodeURIComponent);
  const [p, projectId, channelId, sessionId] = parts;
  if (
    parts.length !== 4 ||
    !PLATFORMS.includes(p as Platform) ||
    !projectId ||
    !channelId ||
    !sessionId
  )
    throw new Error(`not a thread id: ${JSON.stringify(id)}`);
  if (platform && p !== platform)
    throw new Error(`thread id ${JSON.stringify(id)} is not ${platform}`);
  return { platform: p as Platform, projectId, channelId, sessionId };
}

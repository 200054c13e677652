import type { Owner } from '../scope/scope.ts';

export type Platform = 'slack' | 'discord';

/** Names one conversation (DESIGN.md §1). */
export interface ThreadRef {
  platform: Platform;
  projectId: string;
  channelId: string;
  sessionId: string;
}

/** Every stored key starts with platform and project, so two workspaces never collide. */
export function sessionKey(ref: ThreadRef): string {
  return `${ref.platform}:${ref.projectId}:${ref.channelId}:${ref.sessionId}`;
}

export function ownersOf(ref: ThreadRef): Owner[] {
  const project = `${ref.platform}:${ref.projectId}`;
  const channel = `${project}:${ref.channelId}`;
  return [
    { kind: 'session', key: `${channel}:${ref.sessionId}` },
    { kind: 'channel', key: channel },
    { kind: 'project', key: project },
  ];
}

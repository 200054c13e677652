// The shape of a principal id (ARCHITECTURE.md, "Knowledge (Neo4j)"): `<platform>:<workspace>:<user>`
// (`slack:T123:U123`, `discord:<guild>:<user>`, `discord:dm:<user>` outside any guild). The
// workspace is part of the id so the same user id in two workspaces never shares grants, and so
// every member of a workspace can be in its `everyone` group. `principalIdOf` in knowledge-tool.ts
// builds ids; this module only reads them.

/** Platforms whose ids had no workspace before (`slack:U123`): the deprecated form still matches. */
const LEGACY_PLATFORMS = new Set(['slack', 'discord']);

export interface PrincipalParts {
  platform: string;
  /** The Slack team (`T…`, `E….T…`) or Discord guild; `dm` for a Discord DM (no workspace). */
  workspace: string;
  user: string;
}

export function parsePrincipalId(id: string): PrincipalParts | undefined {
  const parts = id.split(':');
  if (parts.length !== 3 || parts.some((p) => p === '')) return undefined;
  const [platform, workspace, user] = parts as [string, string, string];
  return { platform, workspace, user };
}

/** `slack:U123` or `discord:8123…`: the form without a workspace, accepted with a warning. */
export function isLegacyPrincipalId(id: string): boolean {
  const parts = id.split(':');
  return parts.length === 2 && LEGACY_PLATFORMS.has(parts[0] ?? '') && (parts[1] ?? '') !== '';
}

/** The deprecated id a current one was known by (`slack:T1:U1` → `slack:U1`). */
export function legacyPrincipalId(id: string): string | undefined {
  const p = parsePrincipalId(id);
  return p && LEGACY_PLATFORMS.has(p.platform) ? `${p.platform}:${p.user}` : undefined;
}

/** The group every member of a workspace is in: `slack:T123:everyone`; none for a DM. */
export function everyoneGroupOf(workspace: { platform: string; workspace: string }): string {
  return `${workspace.platform}:${workspace.workspace}:everyone`;
}

/** The `everyone` group of the principal's workspace, if it has one. */
export function everyoneOf(id: string): string | undefined {
  const p = parsePrincipalId(id);
  return p && p.workspace !== 'dm' ? everyoneGroupOf(p) : undefined;
}

/**
 * The names a principal answers to in a document's `groups` and `deny`: its id and, while the
 * deprecated form is accepted, the id without the workspace.
 */
export function identitiesOf(id: string): string[] {
  const legacy = legacyPrincipalId(id);
  return legacy ? [id, legacy] : [id];
}

/** Config keys still in the deprecated form, for the start-up warning. */
export function legacyKeys(principalGroups: Readonly<Record<string, unknown>>): string[] {
  return Object.keys(principalGroups).filter(isLegacyPrincipalId);
}

export const LEGACY_PRINCIPAL_WARNING =
  'principal ids without a workspace are deprecated and match that user in every workspace; write them as <platform>:<workspace>:<user> (slack:T123:U123, discord:<guild>:<user>)';

// Which workspace a Slack payload is for, derived step by step as Bolt derives the installation it
// authorizes with (its payload kinds, team, enterprise and org-wide flag), so the project a flow
// stores under is the one its next payload names again, whatever shape the Grid payload has.

/** The workspace as a project: `E123.T456` inside an Enterprise Grid org, `T456` otherwise. */
export function projectIdOf(teamId: string, enterpriseId?: string | null): string {
  return enterpriseId ? `${enterpriseId}.${teamId}` : teamId;
}

/** What Bolt authorizes a payload with: an org-wide install may name no workspace. */
export interface SlackInstallSource {
  teamId?: string | undefined;
  enterpriseId?: string | undefined;
  /** Installed for the whole Grid org (`is_enterprise_install`). */
  isEnterpriseInstall: boolean;
}

/** The workspace a payload came from: its team, its Enterprise Grid org, and the project. */
export interface SlackSource extends SlackInstallSource {
  teamId: string;
  /** `E….T…` inside an Enterprise Grid org, `T…` otherwise. */
  projectId: string;
}

/** The fields of every payload shape that name a workspace (events, commands, interactions). */
export interface SlackSourceFields {
  type?: string;
  team_id?: string | null;
  enterprise_id?: string | null;
  is_enterprise_install?: boolean | string;
  authorizations?: {
    team_id?: string | null;
    enterprise_id?: string | null;
    is_enterprise_install?: boolean;
  }[];
  event?: { team?: string } | null;
  command?: string;
  name?: string;
  actions?: unknown[];
  team?: { id?: string; enterprise_id?: string | null } | null;
  enterprise?: { id?: string } | null;
  user?: { team_id?: string } | string | null;
  view?: { app_installed_team_id?: string | null } | null;
}

/** The payload kinds Bolt tells apart, each naming its workspace in its own places. */
export type SlackPayloadKind = 'event' | 'command' | 'options' | 'action' | 'shortcut' | 'view';

/** Bolt's order of tests: an options request before an action, a dialog's submission an action. */
export function slackPayloadKind(b: SlackSourceFields): SlackPayloadKind | undefined {
  if (b.event !== undefined) return 'event';
  if (b.command !== undefined) return 'command';
  if (b.name !== undefined || b.type === 'block_suggestion') return 'options';
  if (b.actions !== undefined || b.type === 'dialog_submission') return 'action';
  if (b.type === 'shortcut' || b.type === 'message_action') return 'shortcut';
  if (b.type === 'view_submission' || b.type === 'view_closed') return 'view';
  return undefined;
}

/**
 * The installation a payload is for: an event's `authorizations[0]` (its team unless null, its
 * enterprise even when null), else the envelope's; a slash command's `team_id`/`enterprise_id`;
 * an interaction's enterprise from `enterprise.id`, else `team.enterprise_id`, and its team from
 * `team.id`, else the person's `team_id` (an org-wide install sends `team: null`), a modal's
 * from the team that installed the app first (one opened from a Slack Connect channel).
 */
export function slackInstallSource(b: SlackSourceFields): SlackInstallSource | undefined {
  const kind = slackPayloadKind(b);
  if (!kind) return undefined;
  const ids =
    kind === 'event'
      ? eventIds(b)
      : kind === 'command'
        ? { teamId: b.team_id, enterpriseId: b.enterprise_id }
        : interactionIds(b, kind);
  return {
    teamId: ids.teamId ?? undefined,
    enterpriseId: ids.enterpriseId ?? undefined,
    isEnterpriseInstall: orgWide(b, kind),
  };
}

/** The project of any payload that names a workspace (an org-wide revocation names none). */
export function slackSource(b: SlackSourceFields): SlackSource | undefined {
  const s = slackInstallSource(b);
  if (!s?.teamId) return undefined;
  return { ...s, teamId: s.teamId, projectId: projectIdOf(s.teamId, s.enterpriseId) };
}

/** The project id alone, for the paths that need nothing else. */
export function slackProjectOf(b: SlackSourceFields): string | undefined {
  return slackSource(b)?.projectId;
}

type Ids = { teamId?: string | null | undefined; enterpriseId?: string | null | undefined };

function eventIds(b: SlackSourceFields): Ids {
  const auth = b.authorizations?.[0];
  return {
    // The event's own team stands in where an envelope was not kept (an assistant thread's).
    teamId: auth?.team_id ?? b.team_id ?? b.event?.team,
    // An installation's enterprise_id is null outside Enterprise Grid.
    enterpriseId: auth ? auth.enterprise_id : b.enterprise_id,
  };
}

function interactionIds(b: SlackSourceFields, kind: SlackPayloadKind): Ids {
  const user = typeof b.user === 'object' && b.user !== null ? b.user : undefined;
  const team = b.team ? b.team.id : user?.team_id;
  return {
    teamId: (kind === 'view' && b.view?.app_installed_team_id) || team,
    enterpriseId: b.enterprise ? b.enterprise.id : b.team?.enterprise_id,
  };
}

function orgWide(b: SlackSourceFields, kind: SlackPayloadKind): boolean {
  const auth = b.authorizations?.[0];
  if (kind === 'event' && auth) return auth.is_enterprise_install === true;
  // A slash command's form sends the flag as a string.
  return b.is_enterprise_install === true || b.is_enterprise_install === 'true';
}

// Which workspace a Slack payload is for, derived the way Bolt derives the installation it
// authorizes with, so the project a flow stores under is the one its next payload names again.

/** The workspace as a project: `E123.T456` inside an Enterprise Grid org, `T456` otherwise. */
export function projectIdOf(teamId: string, enterpriseId?: string | null): string {
  return enterpriseId ? `${enterpriseId}.${teamId}` : teamId;
}

/** The workspace a payload came from: its team, its Enterprise Grid org, and the project. */
export interface SlackSource {
  teamId: string;
  enterpriseId?: string | undefined;
  /** `E….T…` inside an Enterprise Grid org, `T…` otherwise. */
  projectId: string;
}

/** The fields of every payload shape that name a workspace (events, commands, interactions). */
export interface SlackSourceFields {
  team_id?: string | null;
  enterprise_id?: string | null;
  authorizations?: { team_id?: string | null; enterprise_id?: string | null }[];
  event?: { team?: string } | null;
  command?: string;
  team?: { id?: string; enterprise_id?: string | null } | null;
  enterprise?: { id?: string } | null;
  user?: { team_id?: string } | string | null;
  view?: { app_installed_team_id?: string | null } | null;
}

/**
 * The project of any payload: an event's installation (`authorizations[0]`, else the envelope's
 * team and enterprise), a slash command's `team_id`/`enterprise_id`, and for interactions the
 * enterprise from `enterprise.id`, else `team.enterprise_id`, and the team from the view's
 * installing team, else `team.id`, else the person's (an org-wide install sends `team: null`).
 */
export function slackSource(b: SlackSourceFields): SlackSource | undefined {
  const { teamId, enterpriseId } =
    b.event || b.authorizations
      ? eventIds(b)
      : b.command
        ? { teamId: b.team_id, enterpriseId: b.enterprise_id }
        : interactionIds(b);
  const team = teamId ?? undefined;
  if (!team) return undefined;
  const enterprise = enterpriseId ?? undefined;
  return { teamId: team, enterpriseId: enterprise, projectId: projectIdOf(team, enterprise) };
}

/** The project id alone, for the paths that need nothing else. */
export function slackProjectOf(b: SlackSourceFields): string | undefined {
  return slackSource(b)?.projectId;
}

type Ids = { teamId?: string | null | undefined; enterpriseId?: string | null | undefined };

function eventIds(b: SlackSourceFields): Ids {
  const auth = b.authorizations?.[0];
  return {
    teamId: auth?.team_id ?? b.team_id ?? b.event?.team,
    // An installation's enterprise_id is null outside Enterprise Grid.
    enterpriseId: auth ? auth.enterprise_id : b.enterprise_id,
  };
}

function interactionIds(b: SlackSourceFields): Ids {
  const user = typeof b.user === 'object' ? b.user : undefined;
  return {
    // A modal opened from a Slack Connect channel names the team that installed the app.
    teamId: b.view?.app_installed_team_id || b.team?.id || user?.team_id,
    enterpriseId: b.enterprise?.id ?? b.team?.enterprise_id,
  };
}

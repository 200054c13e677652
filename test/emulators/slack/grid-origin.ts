// The workspace fields of an interaction payload (block_actions, view_submission, view_closed,
// shortcuts), in the shapes Slack sends them: outside Grid `enterprise: null`; inside an
// Enterprise Grid org both `enterprise` and `team.enterprise_id`, or (as older and some
// recorded payloads do) the org only in `team.enterprise_id`; from an org-wide install
// `team: null` with `is_enterprise_install: true`, the workspace then only in `user.team_id`.
import type { GridOrigin } from './types.ts';

export const GRID_NAME = 'Emulated Enterprise';

export function workspaceFields(
  teamId: string,
  teamDomain: string,
  grid: GridOrigin | undefined,
): Record<string, unknown> {
  if (grid === undefined)
    return {
      team: { id: teamId, domain: teamDomain },
      enterprise: null,
      is_enterprise_install: false,
    };
  const enterprise = { id: grid.enterpriseId, name: GRID_NAME };
  const team = {
    id: teamId,
    domain: teamDomain,
    enterprise_id: grid.enterpriseId,
    enterprise_name: GRID_NAME,
  };
  switch (grid.shape ?? 'full') {
    case 'full':
      return { team, enterprise, is_enterprise_install: false };
    case 'team-only':
      return { team, is_enterprise_install: false };
    case 'org-wide':
      return { team: null, enterprise, is_enterprise_install: true };
  }
}

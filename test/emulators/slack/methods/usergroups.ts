// usergroups.list and usergroups.users.list, from the user groups the test set (setUserGroup).
import {
  type ApiArgs,
  type ApiContext,
  type ApiResult,
  fail,
  type MethodSpec,
  present,
  str,
  type UserGroupRec,
} from './context.ts';

const TRUE = new Set(['true', '1']);

function describe(ctx: ApiContext, g: UserGroupRec, withUsers: boolean): Record<string, unknown> {
  return {
    id: g.id,
    team_id: ctx.ids.teamId,
    is_usergroup: true,
    name: g.name,
    handle: g.handle,
    date_create: 1_700_000_000,
    date_update: g.dateUpdate,
    date_delete: g.dateDelete,
    user_count: g.users.length,
    ...(withUsers ? { users: [...g.users] } : {}),
  };
}

function list(args: ApiArgs, ctx: ApiContext): ApiResult {
  const disabled = TRUE.has(str(args, 'include_disabled') ?? '');
  const users = TRUE.has(str(args, 'include_users') ?? '');
  return {
    ok: true,
    usergroups: [...ctx.userGroups.values()]
      .filter((g) => disabled || g.dateDelete === 0)
      .map((g) => describe(ctx, g, users)),
  };
}

function usersList(args: ApiArgs, ctx: ApiContext): ApiResult {
  const id = present(args, 'usergroup');
  if (id === undefined) return fail('invalid_arguments');
  const g = ctx.userGroups.get(id);
  if (g === undefined) return fail('no_such_subteam');
  if (g.dateDelete > 0 && !TRUE.has(str(args, 'include_disabled') ?? '')) {
    return fail('no_such_subteam');
  }
  return { ok: true, users: [...g.users] };
}

export const userGroupMethods: Record<string, MethodSpec> = {
  'usergroups.list': { token: 'bot', handle: list },
  'usergroups.users.list': { token: 'bot', handle: usersList },
};

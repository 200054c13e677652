// The Web API method table: adding a method is one entry in one of these files.
import { assistantMethods } from './assistant.ts';
import { authMethods } from './auth.ts';
import { chatMethods } from './chat.ts';
import type { MethodSpec } from './context.ts';
import { historyMethods } from './history.ts';
import { lookupMethods } from './lookup.ts';
import { streamingMethods } from './streaming.ts';
import { userGroupMethods } from './usergroups.ts';
import { viewMethods } from './views.ts';

export const methods: ReadonlyMap<string, MethodSpec> = new Map(
  Object.entries({
    ...authMethods,
    ...chatMethods,
    ...streamingMethods,
    ...assistantMethods,
    ...lookupMethods,
    ...historyMethods,
    ...viewMethods,
    ...userGroupMethods,
  }),
);

// views.open / views.update / views.push: modals. A trigger id is exchanged once, within 3 s; the
// view is checked against the limits Slack enforces (invalid_arguments with json-pointers).
import { randomBytes } from 'node:crypto';
import { blockProblems } from '../block-kit.ts';
import { slackId } from '../event-envelope.ts';
import type { StoredView } from '../interactivity.ts';
import {
  type ApiArgs,
  type ApiContext,
  type ApiResult,
  fail,
  invalidArguments,
  type MethodSpec,
  present,
} from './context.ts';

const MAX_BLOCKS = 100;
const MAX_TITLE = 24;
const MAX_METADATA = 3000;
const MAX_CALLBACK_ID = 255;
// Slack refuses views over 250 kB.
const MAX_VIEW_BYTES = 250 * 1024;
// Block elements a person fills in; their state appears in view_submission.
const INPUT_TYPES = new Set(['input']);

function textObject(v: unknown): v is { type: string; text: string } {
  const t = v as { type?: unknown; text?: unknown } | null;
  return (
    typeof t === 'object' && t !== null && typeof t.type === 'string' && typeof t.text === 'string'
  );
}

/** Slack's complaints about a modal view, empty when it would accept it. */
export function viewProblems(view: unknown): string[] {
  if (typeof view !== 'object' || view === null || Array.isArray(view)) {
    return ['missing required field: view'];
  }
  const v = view as Record<string, unknown>;
  const problems: string[] = [];
  if (v.type !== 'modal') problems.push('must be one of modal [json-pointer:/view/type]');
  if (!textObject(v.title)) problems.push('missing required field: title [json-pointer:/view]');
  else if (v.title.type !== 'plain_text') {
    problems.push('must be a plain_text text object [json-pointer:/view/title/type]');
  } else if ([...v.title.text].length > MAX_TITLE) {
    problems.push(`must be less than ${MAX_TITLE + 1} characters [json-pointer:/view/title/text]`);
  }
  for (const key of ['submit', 'close'] as const) {
    const t = v[key] as { type?: unknown; text?: unknown } | undefined;
    if (
      t !== undefined &&
      (!textObject(t) || t.type !== 'plain_text' || [...t.text].length > MAX_TITLE)
    )
      problems.push(
        `must be a plain_text of at most ${MAX_TITLE} characters [json-pointer:/view/${key}]`,
      );
  }
  if (!Array.isArray(v.blocks))
    problems.push('missing required field: blocks [json-pointer:/view]');
  else {
    if (v.blocks.length > MAX_BLOCKS) {
      problems.push(`no more than ${MAX_BLOCKS} items allowed [json-pointer:/view/blocks]`);
    }
    for (const [i, b] of v.blocks.entries()) {
      const type = (b as { type?: unknown } | null)?.type;
      if (typeof type !== 'string') {
        problems.push(`missing required field: type [json-pointer:/view/blocks/${i}]`);
      }
    }
    problems.push(...blockProblems(v.blocks, 'modal', '/view'));
    const hasInput = v.blocks.some((b) => INPUT_TYPES.has(String((b as { type?: unknown })?.type)));
    if (hasInput && !textObject(v.submit)) {
      problems.push(
        'submit is required when an input block is present [json-pointer:/view/submit]',
      );
    }
  }
  if (v.private_metadata !== undefined) {
    if (typeof v.private_metadata !== 'string') {
      problems.push('must be a string [json-pointer:/view/private_metadata]');
    } else if (v.private_metadata.length > MAX_METADATA) {
      problems.push(
        `must be less than ${MAX_METADATA + 1} characters [json-pointer:/view/private_metadata]`,
      );
    }
  }
  if (v.callback_id !== undefined) {
    if (typeof v.callback_id !== 'string' || v.callback_id.length > MAX_CALLBACK_ID) {
      problems.push(
        `must be a string of at most ${MAX_CALLBACK_ID} characters [json-pointer:/view/callback_id]`,
      );
    }
  }
  return problems;
}

/** Slack names blocks and elements the app left unnamed (block_id, action_id). */
function withIds(blocks: unknown[]): unknown[] {
  return blocks.map((raw) => {
    const b = { ...(raw as Record<string, unknown>) };
    if (typeof b.block_id !== 'string') b.block_id = slackId('', 4);
    const name = (el: unknown): unknown => {
      if (typeof el !== 'object' || el === null) return el;
      const e = { ...(el as Record<string, unknown>) };
      if (typeof e.action_id !== 'string') e.action_id = slackId('', 4);
      return e;
    };
    if (b.element !== undefined) b.element = name(b.element);
    if (b.accessory !== undefined) b.accessory = name(b.accessory);
    if (Array.isArray(b.elements) && b.type === 'actions') b.elements = b.elements.map(name);
    return b;
  });
}

function plain(t: unknown): unknown {
  if (!textObject(t) || t.type !== 'plain_text') return t;
  return { emoji: true, ...t };
}

function newHash(): string {
  return `${Math.floor(Date.now() / 1000)}.${randomBytes(4).toString('hex')}`;
}

/** The view object as Slack answers it and sends it back in view_submission. */
export function renderView(
  ctx: ApiContext,
  id: string,
  input: Record<string, unknown>,
  rootId: string,
  previousId: string | null,
  teamId: string = ctx.ids.teamId,
): Record<string, unknown> {
  return {
    id,
    team_id: teamId,
    type: 'modal',
    blocks: withIds(input.blocks as unknown[]),
    private_metadata: typeof input.private_metadata === 'string' ? input.private_metadata : '',
    callback_id: typeof input.callback_id === 'string' ? input.callback_id : '',
    state: { values: {} },
    hash: newHash(),
    title: plain(input.title),
    clear_on_close: input.clear_on_close === true,
    notify_on_close: input.notify_on_close === true,
    close: input.close === undefined ? null : plain(input.close),
    submit: input.submit === undefined ? null : plain(input.submit),
    previous_view_id: previousId,
    root_view_id: rootId,
    app_id: ctx.ids.appId,
    external_id: typeof input.external_id === 'string' ? input.external_id : '',
    app_installed_team_id: teamId,
    bot_id: ctx.ids.botId,
  };
}

function checkedView(args: ApiArgs): Record<string, unknown> | ApiResult {
  const view = args.view;
  if (typeof view === 'string') return invalidArguments('invalid view: not valid JSON');
  const problems = viewProblems(view);
  if (problems.length > 0) return invalidArguments(...problems);
  if (Buffer.byteLength(JSON.stringify(view)) > MAX_VIEW_BYTES) return fail('view_too_large');
  return view as Record<string, unknown>;
}

function isResult(v: unknown): v is ApiResult {
  return typeof v === 'object' && v !== null && 'ok' in v;
}

function open(args: ApiArgs, ctx: ApiContext, push: boolean): ApiResult {
  const triggerId = present(args, 'trigger_id');
  if (triggerId === undefined && present(args, 'interactivity_pointer') === undefined) {
    return invalidArguments('missing required field: trigger_id');
  }
  const view = checkedView(args);
  if (isResult(view)) return view;
  const taken = ctx.interactivity.takeTrigger(triggerId ?? '');
  if ('error' in taken) return fail(taken.error);
  const id = ctx.interactivity.newViewId();
  // views.push stacks onto the user's open modal; that one stays open underneath.
  const under = push
    ? [...ctx.interactivity.views.values()].findLast((v) => v.open && v.userId === taken.userId)
    : undefined;
  if (push && under === undefined) return fail('not_found');
  const rootId = (under?.view.root_view_id as string | undefined) ?? id;
  const stored: StoredView = {
    id,
    userId: taken.userId,
    triggerId: triggerId ?? '',
    view: renderView(ctx, id, view, rootId, under?.id ?? null, taken.teamId),
    open: true,
    updates: 0,
  };
  ctx.interactivity.views.set(id, stored);
  return { ok: true, view: structuredClone(stored.view) };
}

function update(args: ApiArgs, ctx: ApiContext): ApiResult {
  const viewId = present(args, 'view_id');
  const externalId = present(args, 'external_id');
  if (viewId === undefined && externalId === undefined) {
    return invalidArguments('missing required field: view_id');
  }
  const view = checkedView(args);
  if (isResult(view)) return view;
  const stored = [...ctx.interactivity.views.values()].find(
    (v) =>
      v.open &&
      (v.id === viewId || (externalId !== undefined && v.view.external_id === externalId)),
  );
  if (stored === undefined) return fail('not_found');
  const hash = present(args, 'hash');
  if (hash !== undefined && hash !== stored.view.hash) return fail('hash_conflict');
  stored.view = renderView(
    ctx,
    stored.id,
    view,
    String(stored.view.root_view_id),
    (stored.view.previous_view_id as string | null) ?? null,
    String(stored.view.team_id),
  );
  stored.updates += 1;
  return { ok: true, view: structuredClone(stored.view) };
}

export const viewMethods: Record<string, MethodSpec> = {
  'views.open': { token: 'bot', handle: (a, c) => open(a, c, false) },
  'views.push': { token: 'bot', handle: (a, c) => open(a, c, true) },
  'views.update': { token: 'bot', handle: update },
};

// What a person does through the app's UI: runs a slash command or submits a modal. Each goes
// to the app as Slack sends it (signed form POST or Socket Mode envelope) and the app's ack is
// applied: ack bodies of commands are shown to the person, modal response_actions keep the
// modal open (errors), replace it (update) or close it. response_url posts land here too.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { blockProblems } from './block-kit.ts';
import type { Deliverer } from './delivery.ts';
import { GRID_NAME, workspaceFields } from './grid-origin.ts';
import type { StoredView } from './interactivity.ts';
import type { ApiContext } from './methods/context.ts';
import { apiMessage } from './methods/context.ts';
import { userObject } from './methods/lookup.ts';
import { renderView, viewProblems } from './methods/views.ts';
import type {
  CloseViewInput,
  CloseViewResult,
  DeliveryResult,
  InteractionResult,
  MessageShortcutInput,
  PressButtonInput,
  PressButtonResult,
  SlackOption,
  SlashCommandInput,
  SlashCommandResult,
  SubmitViewInput,
  SubmitViewResult,
  ViewStateValue,
  ViewValuesInput,
} from './types.ts';
import { inferChannelType } from './user-messages.ts';

export interface InteractionDeps {
  ctx: ApiContext;
  deliverer: Deliverer;
  origin: () => string;
}

function userName(ctx: ApiContext, id: string): string {
  return String(userObject(ctx, id).name);
}

function interactionResult(r: DeliveryResult): InteractionResult {
  const out: InteractionResult = { status: r.status, body: r.body, elapsedMs: r.elapsedMs };
  if (r.error !== undefined) out.error = r.error;
  if (r.body.trim().startsWith('{')) {
    try {
      const json = JSON.parse(r.body) as unknown;
      if (typeof json === 'object' && json !== null && !Array.isArray(json)) {
        out.json = json as Record<string, unknown>;
      }
    } catch {
      // not JSON: a plain-text ack
    }
  }
  return out;
}

function channelName(channel: string, type: string): string {
  // Slack's historical names for conversations that have none of their own.
  if (type === 'im') return 'directmessage';
  if (type === 'group') return 'privategroup';
  return `channel-${channel.toLowerCase()}`;
}

export async function slashCommand(
  deps: InteractionDeps,
  c: SlashCommandInput,
): Promise<SlashCommandResult> {
  const { ctx } = deps;
  if (!c.command.startsWith('/'))
    throw new Error(`Slack emulator: a command starts with '/': ${c.command}`);
  const type = c.channelType ?? ctx.channelTypes.get(c.channel) ?? inferChannelType(c.channel);
  ctx.channelTypes.set(c.channel, type);
  if (type === 'im') ctx.dmUsers.set(c.channel, c.user);
  const teamId = c.teamId ?? ctx.ids.teamId;
  const triggerId = ctx.interactivity.newTrigger(c.user, teamId);
  const responseUrl = ctx.interactivity.newResponseUrl(deps.origin(), teamId, c.channel, c.user);
  const payload: Record<string, string> = {
    token: deps.deliverer.verificationToken,
    team_id: teamId,
    team_domain: ctx.ids.teamDomain,
  };
  if (c.enterpriseId !== undefined) {
    payload.enterprise_id = c.enterpriseId;
    payload.enterprise_name = GRID_NAME;
  }
  Object.assign(payload, {
    channel_id: c.channel,
    channel_name: channelName(c.channel, type),
    user_id: c.user,
    user_name: userName(ctx, c.user),
    command: c.command,
    text: c.text ?? '',
    api_app_id: ctx.ids.appId,
    is_enterprise_install: String(c.orgWideInstall === true && c.enterpriseId !== undefined),
    response_url: responseUrl,
    trigger_id: triggerId,
  });
  const form = new URLSearchParams(payload).toString();
  const r = await deps.deliverer.deliverInteraction(
    'slash_commands',
    payload,
    form,
    c.ackTimeoutMs,
  );
  const result: SlashCommandResult = { ...interactionResult(r), triggerId, responseUrl, payload };
  if (r.status === 200) showAck(ctx, c, result);
  return result;
}

/** An ack with a message is shown to the person (ephemeral unless response_type in_channel). */
function showAck(ctx: ApiContext, c: SlashCommandInput, r: SlashCommandResult): void {
  const json = r.json;
  const text = json === undefined ? r.body.trim() : typeof json.text === 'string' ? json.text : '';
  const blocks = Array.isArray(json?.blocks) ? (json.blocks as unknown[]) : undefined;
  if (text === '' && blocks === undefined) return;
  if (json?.response_type === 'in_channel') {
    postAsApp(ctx, c.channel, text, blocks);
    return;
  }
  ctx.interactivity.ephemerals.push({
    channel: c.channel,
    user: c.user,
    text,
    ...(blocks === undefined ? {} : { blocks }),
    source: 'ack',
    at: Date.now(),
  });
}

function postAsApp(ctx: ApiContext, channel: string, text: string, blocks?: unknown[]): void {
  ctx.store.add({
    channel,
    ts: ctx.store.nextTs(),
    user: ctx.ids.botUserId,
    bot_id: ctx.ids.botId,
    app_id: ctx.ids.appId,
    team: ctx.ids.teamId,
    text,
    ...(blocks === undefined ? {} : { blocks }),
  });
}

/** POST /commands/…: a slash command's response_url. Answers like hooks.slack.com. */
export async function handleResponseUrl(
  req: IncomingMessage,
  res: ServerResponse,
  url: string,
  path: string,
  ctx: ApiContext,
): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = parseHookBody(req, Buffer.concat(chunks).toString('utf8'));
  const answer = (status: number, text: string): void => {
    ctx.interactivity.responses.push({ url, body: body ?? {}, status, at: Date.now() });
    res.writeHead(status, { 'content-type': 'text/html' }).end(text);
  };
  if (req.method !== 'POST') return answer(405, 'invalid_method');
  const hook = ctx.interactivity.useHook(path);
  if ('error' in hook) return answer(404, hook.error);
  if (body === undefined) return answer(400, 'invalid_payload');
  // An ephemeral message's buttons answer by replacing or deleting it (chat.update cannot reach it).
  const original =
    hook.ephemeralTs === undefined
      ? undefined
      : ctx.interactivity.ephemerals.find(
          (e) => e.channel === hook.channel && e.message_ts === hook.ephemeralTs,
        );
  // A message everyone sees, replaced or deleted through the interaction that came from it.
  const posted =
    hook.messageTs === undefined ? undefined : ctx.store.find(hook.channel, hook.messageTs);
  if (body.delete_original === true) {
    if (original !== undefined)
      ctx.interactivity.ephemerals.splice(ctx.interactivity.ephemerals.indexOf(original), 1);
    if (posted !== undefined) posted.deleted = true;
    return answer(200, 'ok');
  }
  const text = typeof body.text === 'string' ? body.text : '';
  const blocks = Array.isArray(body.blocks) ? (body.blocks as unknown[]) : undefined;
  if (text === '' && (blocks === undefined || blocks.length === 0)) return answer(400, 'no_text');
  if (blockProblems(blocks ?? [], 'response_url').length > 0 || body.markdown_text !== undefined)
    return answer(400, 'invalid_blocks');
  if (body.replace_original === true && posted !== undefined) {
    posted.text = text;
    if (blocks === undefined) delete posted.blocks;
    else posted.blocks = blocks;
  } else if (body.replace_original === true && original !== undefined) {
    original.text = text;
    if (blocks === undefined) delete original.blocks;
    else original.blocks = blocks;
    original.replaced = (original.replaced ?? 0) + 1;
    original.at = Date.now();
  } else if (body.response_type === 'in_channel') postAsApp(ctx, hook.channel, text, blocks);
  else {
    ctx.interactivity.ephemerals.push({
      channel: hook.channel,
      user: hook.user,
      text,
      ...(blocks === undefined ? {} : { blocks }),
      source: 'response_url',
      message_ts: ctx.store.nextTs(),
      at: Date.now(),
    });
  }
  answer(200, 'ok');
}

/** A JSON body, or the JSON of a form's `payload` field; undefined when neither parses. */
function parseHookBody(req: IncomingMessage, raw: string): Record<string, unknown> | undefined {
  const type = String(req.headers['content-type'] ?? '')
    .split(';')[0]
    ?.trim()
    .toLowerCase();
  const text =
    type === 'application/x-www-form-urlencoded'
      ? (new URLSearchParams(raw).get('payload') ?? '')
      : raw;
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
      return parsed as Record<string, unknown>;
    }
  } catch {
    // not JSON
  }
  return undefined;
}

// --- modals ---------------------------------------------------------------------------------

interface ElementAt {
  blockId: string;
  actionId: string;
  element: Record<string, unknown>;
  input: boolean;
  optional: boolean;
}

function elementsOf(view: Record<string, unknown>): ElementAt[] {
  const out: ElementAt[] = [];
  for (const raw of (view.blocks as unknown[]) ?? []) {
    const b = raw as Record<string, unknown>;
    const blockId = String(b.block_id);
    const add = (el: unknown, input: boolean): void => {
      if (typeof el !== 'object' || el === null) return;
      const e = el as Record<string, unknown>;
      if (typeof e.action_id !== 'string') return;
      out.push({
        blockId,
        actionId: e.action_id,
        element: e,
        input,
        optional: b.optional === true,
      });
    };
    if (b.type === 'input') add(b.element, true);
    if (b.accessory !== undefined) add(b.accessory, false);
    if (b.type === 'actions' && Array.isArray(b.elements))
      for (const e of b.elements) add(e, false);
  }
  return out;
}

function optionsOf(element: Record<string, unknown>): SlackOption[] {
  const direct = Array.isArray(element.options) ? (element.options as SlackOption[]) : [];
  const groups = Array.isArray(element.option_groups)
    ? (element.option_groups as { options?: SlackOption[] }[]).flatMap((g) => g.options ?? [])
    : [];
  return [...direct, ...groups];
}

function option(at: ElementAt, value: string): SlackOption {
  const found = optionsOf(at.element).find((o) => o.value === value);
  // external_select options come from the app at runtime: make one up.
  if (
    found === undefined &&
    at.element.type !== 'external_select' &&
    at.element.type !== 'multi_external_select'
  ) {
    throw new Error(
      `Slack emulator: ${at.blockId}/${at.actionId} has no option with value ${JSON.stringify(value)}`,
    );
  }
  const o = found ?? { text: { type: 'plain_text', text: value }, value };
  return { ...structuredClone(o), text: { emoji: true, ...o.text } };
}

/** A state value shaped like Slack's from the test's plain value and the element's type. */
function stateValue(at: ElementAt, v: ViewValuesInput[string][string]): ViewStateValue {
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) return v;
  const type = String(at.element.type);
  const one = (key: string): ViewStateValue => ({ type, [key]: v === null ? null : String(v) });
  switch (type) {
    case 'plain_text_input':
    case 'email_text_input':
    case 'url_text_input':
    case 'number_input':
      return one('value');
    case 'static_select':
    case 'external_select':
    case 'radio_buttons':
      return { type, selected_option: v === null ? null : option(at, String(v)) };
    case 'multi_static_select':
    case 'multi_external_select':
    case 'checkboxes': {
      const list = v === null ? [] : Array.isArray(v) ? v : [String(v)];
      return { type, selected_options: list.map((x) => option(at, x)) };
    }
    case 'users_select':
      return one('selected_user');
    case 'conversations_select':
      return one('selected_conversation');
    case 'channels_select':
      return one('selected_channel');
    case 'datepicker':
      return one('selected_date');
    case 'timepicker':
      return one('selected_time');
    case 'multi_users_select':
      return { type, selected_users: v === null ? [] : Array.isArray(v) ? v : [String(v)] };
    case 'multi_conversations_select':
      return { type, selected_conversations: v === null ? [] : Array.isArray(v) ? v : [String(v)] };
    default:
      return { type, value: v };
  }
}

/** state.values as Slack sends them: every input element, plus what the test set elsewhere. */
export function buildState(
  view: Record<string, unknown>,
  values: ViewValuesInput,
): Record<string, Record<string, unknown>> {
  const elements = elementsOf(view);
  for (const [blockId, actions] of Object.entries(values)) {
    for (const actionId of Object.keys(actions)) {
      if (!elements.some((e) => e.blockId === blockId && e.actionId === actionId)) {
        throw new Error(`Slack emulator: the view has no element ${blockId}/${actionId}`);
      }
    }
  }
  const state: Record<string, Record<string, unknown>> = {};
  for (const at of elements) {
    const given = values[at.blockId]?.[at.actionId];
    if (given === undefined && !at.input) continue;
    const empty =
      given === undefined ||
      given === null ||
      given === '' ||
      (Array.isArray(given) && given.length === 0);
    if (at.input && !at.optional && empty) {
      // Slack's client refuses to submit a modal with a required input left empty.
      throw new Error(`Slack emulator: required input ${at.blockId}/${at.actionId} is empty`);
    }
    const block = state[at.blockId] ?? {};
    block[at.actionId] = stateValue(at, given ?? null);
    state[at.blockId] = block;
  }
  return state;
}

export async function submitView(
  deps: InteractionDeps,
  s: SubmitViewInput,
): Promise<SubmitViewResult> {
  const { ctx } = deps;
  const stored = ctx.interactivity.views.get(s.viewId);
  if (stored === undefined || !stored.open) {
    throw new Error(`Slack emulator: no open view ${s.viewId}`);
  }
  if (stored.userId !== s.user) {
    throw new Error(
      `Slack emulator: view ${s.viewId} was opened for ${stored.userId}, not ${s.user}`,
    );
  }
  const teamId = s.teamId ?? ctx.ids.teamId;
  const user = userObject(ctx, s.user);
  const view = {
    ...structuredClone(stored.view),
    state: { values: buildState(stored.view, s.values) },
    ...(s.privateMetadata === undefined ? {} : { private_metadata: s.privateMetadata }),
  };
  const payload: Record<string, unknown> = {
    type: 'view_submission',
    ...workspaceFields(teamId, ctx.ids.teamDomain, s.grid),
    user: { id: s.user, username: user.name, name: user.name, team_id: teamId },
    api_app_id: ctx.ids.appId,
    token: deps.deliverer.verificationToken,
    trigger_id: ctx.interactivity.newTrigger(s.user, teamId),
    view,
    response_urls: [],
  };
  const form = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const r = await deps.deliverer.deliverInteraction('interactive', payload, form, s.ackTimeoutMs);
  const result: SubmitViewResult = { ...interactionResult(r), payload };
  if (r.status !== 200) return result;
  const action = result.json?.response_action;
  if (typeof action === 'string') result.responseAction = action;
  if (action === 'errors') {
    const errors = result.json?.errors;
    if (typeof errors === 'object' && errors !== null)
      result.errors = errors as Record<string, string>;
  } else if (action === 'update' || action === 'push') {
    applyViewAction(deps.ctx, stored, action, result.json?.view);
  } else if (action === 'clear') {
    for (const v of ctx.interactivity.views.values()) if (v.userId === s.user) v.open = false;
  } else {
    stored.open = false;
  }
  return result;
}

/** Cancel or ×: the modal closes; Slack sends view_closed only to a view with notify_on_close. */
export async function closeView(
  deps: InteractionDeps,
  c: CloseViewInput,
): Promise<CloseViewResult> {
  const { ctx } = deps;
  const stored = ctx.interactivity.views.get(c.viewId);
  if (stored === undefined || !stored.open) {
    throw new Error(`Slack emulator: no open view ${c.viewId}`);
  }
  if (stored.userId !== c.user) {
    throw new Error(
      `Slack emulator: view ${c.viewId} was opened for ${stored.userId}, not ${c.user}`,
    );
  }
  stored.open = false;
  if (stored.view.notify_on_close !== true) return { delivered: false };
  const teamId = c.teamId ?? ctx.ids.teamId;
  const user = userObject(ctx, c.user);
  const payload: Record<string, unknown> = {
    type: 'view_closed',
    ...workspaceFields(teamId, ctx.ids.teamDomain, c.grid),
    user: { id: c.user, username: user.name, name: user.name, team_id: teamId },
    api_app_id: ctx.ids.appId,
    token: deps.deliverer.verificationToken,
    view: structuredClone(stored.view),
    is_cleared: false,
  };
  const form = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const r = await deps.deliverer.deliverInteraction('interactive', payload, form, c.ackTimeoutMs);
  return { ...interactionResult(r), delivered: true, payload };
}

function applyViewAction(
  ctx: ApiContext,
  stored: StoredView,
  action: 'update' | 'push',
  view: unknown,
): void {
  const problems = viewProblems(view);
  // Slack shows the person an error and leaves the modal as it was.
  if (problems.length > 0) return;
  const input = view as Record<string, unknown>;
  if (action === 'update') {
    stored.view = renderView(
      ctx,
      stored.id,
      input,
      String(stored.view.root_view_id),
      (stored.view.previous_view_id as string | null) ?? null,
    );
    stored.updates += 1;
    return;
  }
  const id = ctx.interactivity.newViewId();
  ctx.interactivity.views.set(id, {
    id,
    userId: stored.userId,
    triggerId: stored.triggerId,
    view: renderView(ctx, id, input, String(stored.view.root_view_id), stored.id),
    open: true,
    updates: 0,
  });
}

// --- message buttons ------------------------------------------------------------------------

/** The element `actionId` in a message's blocks, with its block. */
function messageElement(
  blocks: unknown[],
  actionId: string,
): { block: Record<string, unknown>; element: Record<string, unknown> } | undefined {
  for (const raw of blocks) {
    const block = raw as Record<string, unknown>;
    const elements = Array.isArray(block.elements) ? (block.elements as unknown[]) : [];
    const candidates = [...elements, block.accessory];
    for (const el of candidates) {
      const e = el as Record<string, unknown> | undefined;
      if (e && e.action_id === actionId) return { block, element: e };
    }
  }
  return undefined;
}

/**
 * A person clicks an element of a bot message: Slack sends block_actions with the message, the
 * action (its type, block_id, action_id, value and text) and a fresh trigger id.
 */
export async function pressButton(
  deps: InteractionDeps,
  p: PressButtonInput,
): Promise<PressButtonResult> {
  const { ctx } = deps;
  const stored = ctx.store.find(p.channel, p.ts);
  const m = stored?.deleted === true ? undefined : stored;
  const ephemeral =
    m === undefined
      ? ctx.interactivity.ephemerals.find((e) => e.channel === p.channel && e.message_ts === p.ts)
      : undefined;
  if (m === undefined && ephemeral === undefined) {
    throw new Error(`Slack emulator: no message ${p.channel}/${p.ts}`);
  }
  const blocks = m?.blocks ?? ephemeral?.blocks ?? [];
  const threadTs = m?.thread_ts ?? ephemeral?.thread_ts;
  const found = messageElement(blocks, p.actionId);
  if (found === undefined) {
    throw new Error(`Slack emulator: message ${p.ts} has no element ${p.actionId}`);
  }
  const { block, element } = found;
  let button = element;
  if (element.type === 'feedback_buttons') {
    if (p.choice === undefined) throw new Error('Slack emulator: feedback_buttons need a choice');
    button = element[`${p.choice}_button`] as Record<string, unknown>;
  } else if (element.type !== 'button') {
    throw new Error(`Slack emulator: ${p.actionId} is a ${String(element.type)}, not a button`);
  }
  const teamId = p.teamId ?? ctx.ids.teamId;
  const user = userObject(ctx, p.user);
  const type = ctx.channelTypes.get(p.channel) ?? inferChannelType(p.channel);
  const actionTs = ctx.store.nextTs();
  const payload: Record<string, unknown> = {
    type: 'block_actions',
    user: { id: p.user, username: user.name, name: user.name, team_id: teamId },
    api_app_id: ctx.ids.appId,
    token: deps.deliverer.verificationToken,
    container: {
      type: 'message',
      message_ts: p.ts,
      channel_id: p.channel,
      is_ephemeral: m === undefined,
      ...(threadTs !== undefined ? { thread_ts: threadTs } : {}),
    },
    trigger_id: ctx.interactivity.newTrigger(p.user, teamId),
    ...workspaceFields(teamId, ctx.ids.teamDomain, p.grid),
    channel: { id: p.channel, name: channelName(p.channel, type) },
    // Slack leaves the message out when it was ephemeral: the app never stored it.
    ...(m === undefined
      ? {}
      : {
          message: {
            ...apiMessage(ctx, m),
            ...(m.thread_ts !== undefined ? { thread_ts: m.thread_ts } : {}),
          },
        }),
    state: { values: {} },
    response_url: ctx.interactivity.newResponseUrl(
      deps.origin(),
      teamId,
      p.channel,
      p.user,
      m === undefined ? p.ts : undefined,
      m === undefined ? undefined : p.ts,
    ),
    actions: [
      {
        type: element.type,
        block_id: block.block_id,
        action_id: p.actionId,
        value: p.value ?? button.value,
        text: button.text,
        action_ts: actionTs,
      },
    ],
  };
  const form = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const r = await deps.deliverer.deliverInteraction('interactive', payload, form, p.ackTimeoutMs);
  return { ...interactionResult(r), payload };
}

/**
 * A message shortcut used on a message: Slack sends message_action with the whole message, the
 * channel, a trigger id, a response_url and the time it was used (action_ts).
 */
export async function messageShortcut(
  deps: InteractionDeps,
  s: MessageShortcutInput,
): Promise<PressButtonResult> {
  const { ctx } = deps;
  const m = ctx.store.find(s.channel, s.ts);
  if (m === undefined || m.deleted)
    throw new Error(`Slack emulator: no message ${s.channel}/${s.ts}`);
  const teamId = s.teamId ?? ctx.ids.teamId;
  const user = userObject(ctx, s.user);
  const type = ctx.channelTypes.get(s.channel) ?? inferChannelType(s.channel);
  const payload: Record<string, unknown> = {
    type: 'message_action',
    token: deps.deliverer.verificationToken,
    action_ts: ctx.store.nextTs(),
    ...workspaceFields(teamId, ctx.ids.teamDomain, s.grid),
    user: { id: s.user, username: user.name, name: user.name, team_id: teamId },
    channel: { id: s.channel, name: channelName(s.channel, type) },
    callback_id: s.callbackId,
    trigger_id: ctx.interactivity.newTrigger(s.user, teamId),
    response_url: ctx.interactivity.newResponseUrl(deps.origin(), teamId, s.channel, s.user),
    message_ts: m.ts,
    message: {
      ...apiMessage(ctx, m),
      ...(m.thread_ts !== undefined ? { thread_ts: m.thread_ts } : {}),
    },
  };
  const form = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const r = await deps.deliverer.deliverInteraction('interactive', payload, form, s.ackTimeoutMs);
  return { ...interactionResult(r), payload };
}

// A channel's settings, changed by those the platform says may (Slack: workspace admins and the
// channel's creator; Discord: Manage Channels; the web chat: its one person), asked again at every
// step. The form is built from the settings' schema (channel-settings-schema.ts) and their words;
// a submission is checked by the same schema, and a rejected value comes back as a field error.
// Values arrive by field id from any platform's form, or from a slash command's options (saved at
// once, a flags setting then named flag by flag).

import type { ServerOverview } from '../../agent/mcp/mcp-overview.ts';
import type { Actor, FieldErrors, Form, FormField, Place } from '../../model/interaction.ts';
import type { ChannelSettingsService, SettingProblems } from '../channel-settings.ts';
import {
  type ChannelSettings,
  namesIn,
  SETTINGS,
  type SettingKey,
  type SettingSpec,
  type SettingsPatch,
} from '../channel-settings-schema.ts';
import { messages } from '../messages.ts';
import { serversSwitchedOn } from '../tool-server-texts.ts';
import type { Flow, FlowContext, FlowResult, FlowStart, FlowStep } from './flow.ts';
import type { PendingFlow } from './pending-flows.ts';

/** The model choice that means "the configured default" (the setting's empty value). */
const DEFAULT_MODEL = 'default';
/** In a slash command's words option, this clears the words. */
const CLEAR = '-';

type Values = FlowStart['values'];

function field(spec: SettingSpec, now: ChannelSettings, models: readonly string[]): FormField {
  const t = messages.settingText(spec.key);
  const base = { id: spec.id, label: t.label, ...(t.help ? { help: t.help } : {}) };
  const choice = (v: string) => ({ value: v, label: t.choices?.[v] ?? v });
  const value = now[spec.key];
  switch (spec.control) {
    case 'select':
      return { ...base, kind: 'select', choices: spec.choices.map(choice), initial: String(value) };
    case 'long':
      return {
        ...base,
        kind: 'long',
        maxLength: spec.maxLength,
        optional: true,
        initial: String(value),
      };
    case 'number':
      return { ...base, kind: 'number', min: spec.min, max: spec.max, initial: Number(value) };
    case 'flags': {
      const on = value as Record<string, boolean>;
      return {
        ...base,
        kind: 'multi',
        optional: true,
        choices: spec.flags.map(choice),
        initial: spec.flags.filter((f) => on[f]),
      };
    }
    case 'model': {
      const ids = [...new Set([...(value ? [String(value)] : []), ...models])];
      return {
        ...base,
        kind: 'select',
        choices: [
          { value: DEFAULT_MODEL, label: messages.defaultModelChoice },
          ...ids.map((m) => ({ value: m, label: m })),
        ],
        initial: value ? String(value) : DEFAULT_MODEL,
      };
    }
  }
}

function first(v: Values[string]): string | number | boolean | undefined {
  return Array.isArray(v) ? v[0] : (v as string | number | boolean | undefined);
}

/** What a submission changes: only the settings it has a value for (the schema checks them). */
function patchOf(values: Values): SettingsPatch {
  const patch: Record<string, unknown> = {};
  for (const spec of SETTINGS) {
    const v = values[spec.id];
    if (spec.control === 'flags') {
      const picked = Array.isArray(v) ? v : typeof v === 'string' && v !== '' ? [v] : undefined;
      const flags = Object.fromEntries(
        spec.flags.flatMap((f) => {
          if (picked) return [[f, picked.includes(f)]];
          const one = values[f];
          return typeof one === 'boolean' ? [[f, one]] : [];
        }),
      );
      if (Object.keys(flags).length > 0 || v !== undefined) patch[spec.key] = flags;
      continue;
    }
    const one = first(v);
    if (one === undefined) continue;
    if (spec.control === 'number') patch[spec.key] = typeof one === 'number' ? one : Number(one);
    else if (spec.control === 'long') patch[spec.key] = one === CLEAR ? '' : String(one).trim();
    else if (spec.control === 'model') patch[spec.key] = one === DEFAULT_MODEL ? '' : String(one);
    else patch[spec.key] = String(one);
  }
  return patch as SettingsPatch;
}

/** The patch without what it would leave as it is (a form sends every field). */
function unchanged(patch: SettingsPatch, now: ChannelSettings): SettingsPatch {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(patch)) {
    const was = now[key as SettingKey];
    if (typeof v === 'object' && v !== null && typeof was === 'object') {
      const flags = Object.entries(v).filter(
        ([f, on]) => (was as Record<string, unknown>)[f] !== on,
      );
      if (flags.length > 0) out[key] = Object.fromEntries(flags);
    } else if (v !== was) out[key] = v;
  }
  return out as SettingsPatch;
}

function errorsOf(problems: SettingProblems): FieldErrors {
  return Object.fromEntries(
    SETTINGS.flatMap((s) => {
      const p = problems[s.key];
      return p ? [[s.id, messages.settingProblem(p)]] : [];
    }),
  );
}

/** A declared MCP server's tools (absent: not declared); undefined: no MCP servers at all. */
export type ToolServerOverview = (server: string) => ServerOverview | undefined;

export class SettingsFlow implements Flow<Record<string, never>> {
  readonly name = 'settings' as const;
  private readonly service: ChannelSettingsService;
  private readonly toolServers: ToolServerOverview | undefined;

  constructor(service: ChannelSettingsService, toolServers?: ToolServerOverview) {
    this.service = service;
    this.toolServers = toolServers;
  }

  /** The "Saved" words, and for servers switched on, what their tools are (told to the admin alone). */
  private savedText(before: ChannelSettings, changes: SettingsPatch): string {
    const saved = messages.settingsChanged(changes);
    if (changes.mcpServers === undefined) return saved;
    const had = new Set(namesIn(before.mcpServers));
    const added = [...new Set(namesIn(changes.mcpServers))].filter((n) => !had.has(n));
    if (added.length === 0) return saved;
    const list = added.map((n) => this.toolServers?.(n) ?? n);
    return `${saved}\n\n${serversSwitchedOn(list)}`;
  }

  /** Whoever may change the channel, asked again at every step; a form is its opener's. */
  async may(
    _ctx: FlowContext,
    actor: Actor,
    _step: string,
    pending: PendingFlow | undefined,
    place?: Place,
  ): Promise<boolean> {
    if (pending !== undefined && pending.actorId !== actor.id) return false;
    const where = pending?.place ?? place;
    if (!where) return false;
    if (await actor.may('manageChannel', where.ref)) return true;
    // Recorded like any refused change, so the audit trail shows the attempt.
    await this.service.change(where.ref, { id: actor.id, mayChange: false }, {});
    return false;
  }

  refusal(ctx: FlowContext): string {
    return messages.settingsRefused(ctx.settings.settingsAdmins);
  }

  expired(): string {
    return messages.settingsExpired;
  }

  private async form(place: Place, refs: Record<string, string>): Promise<Form> {
    const [{ settings }, models] = await Promise.all([
      this.service.effective(place.ref),
      this.service.models().catch(() => []),
    ]);
    return {
      title: messages.settingsTitle,
      fields: SETTINGS.map((s) => field(s, settings, models)),
      submit: { label: messages.settingsSave, ref: refs.save ?? '' },
      cancel: { label: messages.settingsCancel, ref: refs.cancel ?? '' },
    };
  }

  async start(ctx: FlowContext, s: FlowStart): Promise<FlowResult> {
    if (Object.keys(s.values).length > 0) {
      // A slash command's options: saved at once, or their problems told in words.
      return this.save(ctx, s.place, s.actor, patchOf(s.values));
    }
    const { refs } = await ctx.wait({
      place: s.place,
      actorId: s.actor.id,
      data: {},
      steps: ['save', 'cancel'],
    });
    return { show: [{ kind: 'form', form: await this.form(s.place, refs) }], outcome: 'asked' };
  }

  async step(
    ctx: FlowContext,
    step: string,
    s: FlowStep<Record<string, never>>,
  ): Promise<FlowResult> {
    const place = s.pending.place;
    if (step === 'save') {
      const patch = patchOf(s.values);
      const problems = await this.service.validate(patch);
      if (problems) {
        // The form stays open (Slack, the web page) with each problem under its field.
        const refs = await ctx.refsOf(s.pending, ['save', 'cancel']);
        const form = await this.form(place, refs);
        return { show: [{ kind: 'form', form, errors: errorsOf(problems) }], outcome: 'invalid' };
      }
      if (!(await s.take())) return { show: [], outcome: 'duplicate' };
      return this.save(ctx, place, s.actor, patch);
    }
    if (!(await s.take())) return { show: [], outcome: 'duplicate' };
    return {
      show: [{ kind: 'notice', text: ctx.text(messages.settingsCancelled), replace: true }],
      outcome: 'cancelled',
    };
  }

  private async save(
    ctx: FlowContext,
    place: Place,
    actor: Actor,
    patch: SettingsPatch,
  ): Promise<FlowResult> {
    const { settings } = await this.service.effective(place.ref);
    const changes = unchanged(patch, settings);
    const r = await this.service.change(place.ref, { id: actor.id, mayChange: true }, changes);
    if (!r.ok && r.reason === 'invalid') {
      const list = SETTINGS.flatMap((x) => {
        const p = r.problems[x.key];
        return p ? [{ key: x.key, text: messages.settingProblem(p) }] : [];
      });
      return {
        show: [{ kind: 'notice', text: ctx.text(messages.settingsNotSaved(list)) }],
        outcome: 'invalid',
      };
    }
    if (!r.ok) throw new Error('settings change refused after the flow allowed it');
    return {
      show: [{ kind: 'notice', text: ctx.text(this.savedText(settings, changes)), replace: true }],
      outcome: 'done',
      changed: { settings: Object.keys(changes) },
    };
  }
}

/**
 * The channel's settings, where each comes from, and their recent changes (Slack `/threadmind
 * show`, Discord `/settings show`): anyone here may look; only the asker sees it.
 */
export class SettingsShowFlow implements Flow<Record<string, never>> {
  readonly name = 'settings-show' as const;
  private readonly service: ChannelSettingsService;

  constructor(service: ChannelSettingsService) {
    this.service = service;
  }

  async may(): Promise<boolean> {
    return true;
  }

  refusal(): string {
    return '';
  }

  expired(): string {
    return messages.settingsExpired;
  }

  async start(ctx: FlowContext, s: FlowStart): Promise<FlowResult> {
    const [effective, audit] = await Promise.all([
      this.service.effective(s.place.ref),
      this.service.audit(s.place.ref),
    ]);
    const text = ctx.text(messages.settings(effective, audit));
    return { show: [{ kind: 'notice', text }], outcome: 'done' };
  }

  async step(): Promise<FlowResult> {
    return { show: [], outcome: 'refused' };
  }
}

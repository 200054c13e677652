// Runs flows: a start, then each step an action reference (or a typed reply) names. Before every
// step it checks the reference (signature, project, expiry), finds the pending state in the Store
// and asks the flow whether this person may; a refusal is private, logged, and changes nothing.
// One path for every platform: adapters only render what comes back.
import type { Logger } from '../../log/logger.ts';
import type { InteractedEvent, InteractionOutcome } from '../../model/handled.ts';
import type {
  ActionButton,
  Actor,
  FlowName,
  InteractionAct,
  InteractionStart,
  Place,
  Shown,
} from '../../model/interaction.ts';
import type { PlatformPort } from '../../model/platform-port.ts';
import type { PlatformSettings } from '../../model/platform-settings.ts';
import { RenderedText } from '../../model/rendered-text.ts';
import type { Platform } from '../../model/thread-ref.ts';
import { messages } from '../messages.ts';
import { ActionRefs, newPendingKey } from './action-refs.ts';
import type { Flow, FlowContext, FlowResult, Via } from './flow.ts';
import { type PendingFlow, PendingFlows } from './pending-flows.ts';

export interface EngineDeps {
  flows: readonly Flow<never>[];
  refs: ActionRefs;
  pending: PendingFlows;
  /** How long a confirmation waits for its answer. */
  ttlMs: number;
  botName: string;
  platform(name: Platform): {
    port: PlatformPort;
    settings: PlatformSettings;
    interactive: boolean;
  };
  /** True the first time any of these delivery keys is seen (every replica agrees). */
  claimOnce(keys: readonly string[]): Promise<boolean>;
  emit(e: InteractedEvent): void;
  log: Logger;
  now?: () => number;
}

/** What a step gives its caller: what to show, how it ended, and the flow's own place. */
export interface EngineReply {
  show: Shown[];
  outcome: InteractionOutcome;
  place?: Place;
}

type AnyFlow = Flow<unknown>;

export class InteractionEngine {
  private readonly d: EngineDeps;
  private readonly flows = new Map<string, AnyFlow>();

  constructor(d: EngineDeps) {
    this.d = d;
    for (const f of d.flows) this.flows.set(f.name, f as unknown as AnyFlow);
  }

  private now(): number {
    return (this.d.now ?? Date.now)();
  }

  /** What a flow gets to run on `platform`; `flow` names the references `wait` makes. */
  private context(platform: Platform, flow: string): FlowContext {
    const { port, settings, interactive } = this.d.platform(platform);
    return {
      port,
      settings,
      interactive,
      botName: this.d.botName,
      text: (markdown) => RenderedText.one(port.format, markdown),
      now: () => this.now(),
      wait: async (o) => {
        const key = newPendingKey();
        const expiresAt = Math.ceil((this.now() + (o.ttlMs ?? this.d.ttlMs)) / 1000) * 1000;
        await this.d.pending.save({
          flow,
          key,
          actorId: o.actorId,
          place: o.place,
          data: o.data,
          expiresAt,
          ...(o.alias ? { alias: PendingFlows.aliasOf(flow, o.place, o.actorId) } : {}),
        });
        const refs: Record<string, string> = {};
        for (const step of o.steps)
          refs[step] = await this.d.refs.make(o.place.ref, { flow, step, key, expiresAt });
        return { refs, expiresAt };
      },
      refsOf: async (p, steps) => {
        const refs: Record<string, string> = {};
        for (const step of steps)
          refs[step] = await this.d.refs.make(p.place.ref, {
            flow: p.flow,
            step,
            key: p.key,
            expiresAt: p.expiresAt,
          });
        return refs;
      },
    };
  }

  private notice(platform: Platform, text: string, replace = false): Shown {
    return {
      kind: 'notice',
      text: RenderedText.one(this.d.platform(platform).port.format, text),
      ...(replace ? { replace } : {}),
    };
  }

  private finish(
    e: Omit<InteractedEvent, 'outcome'>,
    r: FlowResult | { show: Shown[]; outcome: InteractionOutcome },
    place?: Place,
  ): EngineReply {
    this.d.emit({ ...e, outcome: r.outcome });
    return { show: r.show, outcome: r.outcome, ...(place ? { place } : {}) };
  }

  /** A flow begun by a command, a shortcut or a typed request. */
  async start(r: Omit<InteractionStart, 'kind'> & { via: Via }): Promise<EngineReply> {
    const platform = r.place.ref.platform;
    const log = this.log(r.traceId, platform, r.flow, 'start', r.actor.id);
    const event = {
      platform,
      flow: r.flow,
      step: 'start',
      actorId: r.actor.id,
      traceId: r.traceId,
    };
    const flow = this.flows.get(r.flow);
    if (!flow) throw new Error(`no flow named ${r.flow}`);
    if (r.dedupe && !(await this.d.claimOnce(r.dedupe)))
      return this.finish(event, { show: [], outcome: 'duplicate' });
    return this.guarded(event, platform, log, async (ctx) => {
      if (!(await flow.may(ctx, r.actor, 'start', undefined, r.place))) {
        log.info('interaction refused');
        return {
          show: [this.notice(platform, flow.refusal(ctx, 'start', undefined))],
          outcome: 'refused',
        };
      }
      return flow.start(ctx, { ...r, values: r.values ?? {}, log });
    });
  }

  /** A button pressed or a form submitted: `ref` names the flow, its step and its pending state. */
  async act(r: Omit<InteractionAct, 'kind'> & { via?: Via }): Promise<EngineReply> {
    const { platform } = r.project;
    const named = ActionRefs.peek(r.ref);
    const event = {
      platform,
      flow: named?.flow ?? 'unknown',
      step: named?.step ?? 'unknown',
      actorId: r.actor.id,
      traceId: r.traceId,
    };
    const log = this.log(r.traceId, platform, event.flow, event.step, r.actor.id);
    const check = await this.d.refs.check(r.ref, r.project);
    const flow = check.ok ? this.flows.get(check.ref.flow) : undefined;
    if (!check.ok && check.reason === 'expired' && named && this.flows.has(named.flow)) {
      const f = this.flows.get(named.flow) as AnyFlow;
      log.info('interaction expired');
      const text = f.expired(this.context(platform, f.name));
      const show = [this.notice(platform, text, f.leavesMessage !== true)];
      return this.finish(event, { show, outcome: 'expired' });
    }
    if (!check.ok || !flow) {
      // Forged, altered, made for another project, or naming a flow this version does not have.
      log.warn(
        { reason: check.ok ? 'unknown-flow' : check.reason, project: r.project.projectId },
        'action reference refused',
      );
      const show = [this.notice(platform, messages.actionRefused)];
      return this.finish(event, { show, outcome: 'refused' });
    }
    const pending = await this.d.pending.load(r.project, check.ref.key);
    if (!pending || pending.flow !== flow.name) {
      // Used already (a replay, a second click), or its project was erased meanwhile.
      log.warn({ reason: 'used', project: r.project.projectId }, 'action reference refused');
      const show = [this.notice(platform, messages.actionUsed)];
      return this.finish(event, { show, outcome: 'refused' });
    }
    return this.step(flow, check.ref.step, pending, { ...r, via: r.via ?? 'interaction' }, event);
  }

  /** The buttons a flow puts under a message the core posts (an answer's votes); none without. */
  async buttons(name: FlowName, place: Place, data: unknown): Promise<ActionButton[]> {
    const flow = this.flows.get(name);
    if (!flow?.buttons) return [];
    return flow.buttons(this.context(place.ref.platform, name), place, data);
  }

  /**
   * A typed reply that continues this person's pending flow in this channel ("@bot confirm
   * share"); undefined when there is none.
   */
  async typed(
    name: FlowName,
    step: string,
    r: { actor: Actor; place: Place; traceId: string },
  ): Promise<EngineReply | undefined> {
    const flow = this.flows.get(name);
    const key = await this.d.pending.byAlias(PendingFlows.aliasOf(name, r.place, r.actor.id));
    const pending = key ? await this.d.pending.load(r.place.ref, key) : undefined;
    if (!flow || !pending) return undefined;
    const event = {
      platform: r.place.ref.platform,
      flow: name,
      step,
      actorId: r.actor.id,
      traceId: r.traceId,
    };
    return this.step(flow, step, pending, { ...r, via: 'message' }, event);
  }

  private async step(
    flow: AnyFlow,
    step: string,
    pending: PendingFlow,
    r: {
      actor: Actor;
      place?: Place;
      values?: InteractionAct['values'];
      traceId: string;
      via: Via;
    },
    event: Omit<InteractedEvent, 'outcome'>,
  ): Promise<EngineReply> {
    const platform = pending.place.ref.platform;
    const log = this.log(r.traceId, platform, flow.name, step, r.actor.id);
    const reply = await this.guarded(event, platform, log, async (ctx) => {
      if (!(await flow.may(ctx, r.actor, step, pending))) {
        log.info({ asked_by: pending.actorId }, 'interaction refused');
        return {
          show: [this.notice(platform, flow.refusal(ctx, step, pending))],
          outcome: 'refused',
        };
      }
      return flow.step(ctx, step, {
        actor: r.actor,
        place: r.place,
        via: r.via,
        values: r.values ?? {},
        pending,
        take: () => this.d.pending.take(pending),
        log,
      });
    });
    return { ...reply, place: pending.place };
  }

  /** Runs a flow's start or step; a failure is logged and told privately, never thrown. */
  private async guarded(
    event: Omit<InteractedEvent, 'outcome'>,
    platform: Platform,
    log: Logger,
    run: (ctx: FlowContext) => Promise<FlowResult>,
  ): Promise<EngineReply> {
    let r: FlowResult;
    try {
      r = await run(this.context(platform, event.flow));
      if (r.changed) log.info({ outcome: r.outcome, changed: r.changed }, 'interaction done');
    } catch (err) {
      log.error({ err }, 'interaction failed');
      r = {
        show: [this.notice(platform, messages.error(messages.handlingFailed))],
        outcome: 'failed',
      };
    }
    return this.finish(event, r);
  }

  private log(traceId: string, platform: string, flow: string, step: string, user: string): Logger {
    return this.d.log.child({ trace_id: traceId, platform, flow, step, user });
  }
}

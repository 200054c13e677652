// The settings flow on the engine, against a real SQLite store: the form comes from the settings'
// schema, a member is refused (and the attempt is in the audit trail), a value out of range comes
// back as a field error and saves nothing, a submission changes only what it changes, and a slash
// command's options save at once.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { loadConfig } from '../../src/config/load-config.ts';
import { ChannelSettingsService } from '../../src/core/channel-settings.ts';
import { ActionRefs } from '../../src/core/interactions/action-refs.ts';
import { InteractionEngine } from '../../src/core/interactions/engine.ts';
import type { Flow } from '../../src/core/interactions/flow.ts';
import { PendingFlows } from '../../src/core/interactions/pending-flows.ts';
import { SettingsFlow, SettingsShowFlow } from '../../src/core/interactions/settings-flow.ts';
import { signingKeys } from '../../src/core/interactions/signing-keys.ts';
import { messages } from '../../src/core/messages.ts';
import { silentLogger } from '../../src/log/logger.ts';
import type { Actor, FormValues, Place, Shown } from '../../src/model/interaction.ts';
import type { ThreadRef } from '../../src/model/thread-ref.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import { MockPort } from '../support/mock-port.ts';

const store = new SqliteStore(':memory:');
after(() => store.close());

let channels = 0;
function setup() {
  channels += 1;
  const ref: ThreadRef = {
    platform: 'slack',
    projectId: 'T1',
    channelId: `C${channels}`,
    sessionId: '1.0',
  };
  const place: Place = { ref, to: { ref, context: {} } };
  const service = new ChannelSettingsService({
    store,
    defaults: loadConfig({ env: {} }).channels.defaults,
    overrides: {},
    models: async () => ['qwen3-8b'],
  });
  const port = new MockPort();
  const engine = new InteractionEngine({
    flows: [
      new SettingsFlow(service) as unknown as Flow<never>,
      new SettingsShowFlow(service) as unknown as Flow<never>,
    ],
    refs: new ActionRefs(signingKeys([Buffer.alloc(32, 3)], store)),
    pending: new PendingFlows(store),
    ttlMs: 60_000,
    botName: 'bot',
    platform: () => ({
      port,
      settings: {
        projectNoun: 'workspace',
        settingsAdmins: 'admins',
        thinkingText: '',
        updateIntervalMs: 1,
        nativeStreaming: false,
      },
      interactive: true,
    }),
    claimOnce: async () => true,
    emit: () => undefined,
    log: silentLogger(),
  });
  const who = (id: string, admin: boolean): Actor => ({ id, may: async () => admin });
  const start = (
    actor: Actor,
    values?: FormValues,
    flow: 'settings' | 'settings-show' = 'settings',
  ) =>
    engine.start({
      flow,
      actor,
      place,
      via: 'interaction',
      traceId: 't',
      ...(values ? { values } : {}),
    });
  const save = (form: Shown, actor: Actor, values: FormValues) => {
    assert.ok(form.kind === 'form');
    return engine.act({
      ref: form.form.submit.ref,
      actor,
      project: ref,
      values,
      traceId: 't',
    });
  };
  return { ref, service, start, save, who };
}

const words = (s: Shown | undefined) => (s?.kind === 'notice' ? s.text.text : '');

describe('the settings flow', () => {
  test('the form is the schema: ids, controls, limits, choices and current values', async () => {
    const { start, who } = setup();
    const shown = (await start(who('UADMIN', true))).show[0];
    assert.ok(shown?.kind === 'form');
    const byId = Object.fromEntries(shown.form.fields.map((f) => [f.id, f]));
    assert.deepEqual(Object.keys(byId), [
      'reply_mode',
      'instructions',
      'model',
      'tools',
      'channel_context',
      'knowledge_audience',
      'daily_token_budget',
      'monthly_token_budget',
      'fair_share_weight',
      'mcp_servers',
      'mcp_always_approved',
    ]);
    assert.deepEqual(byId.channel_context, {
      id: 'channel_context',
      label: messages.settingText('channelContext').label,
      kind: 'number',
      min: 0,
      max: 50,
      initial: 10,
    });
    assert.equal(byId.instructions?.kind === 'long' && byId.instructions.maxLength, 1500);
    assert.deepEqual(byId.model?.kind === 'select' && byId.model.choices.map((c) => c.value), [
      'default',
      'qwen3-8b',
    ]);
    assert.deepEqual(byId.tools?.kind === 'multi' && byId.tools.initial, [
      'files',
      'images',
      'knowledge',
    ]);
  });

  test('a member is refused at the start and at the save, and the audit trail says so', async () => {
    const { ref, service, start, save, who } = setup();
    const refused = await start(who('UGUEST', false));
    assert.equal(refused.outcome, 'refused');
    assert.equal(words(refused.show[0]), 'Only admins can change how I behave in this channel.');
    const form = (await start(who('UADMIN', true))).show[0] as Shown;
    // Someone else submitting the admin's form is refused too.
    const other = await save(form, who('UOTHER', true), { reply_mode: 'all' });
    assert.equal(other.outcome, 'refused');
    const audit = await service.audit(ref);
    assert.deepEqual(
      audit.map((a) => [a.by, a.allowed, a.reason]),
      [['UGUEST', false, 'not allowed']],
    );
    assert.equal((await service.effective(ref)).settings.replyMode, 'thread');
    // Anyone may look: the settings, and the refusal in their changes.
    const shown = await start(who('UGUEST', false), undefined, 'settings-show');
    assert.match(words(shown.show[0]), /• Reply mode: `thread`/);
    assert.match(words(shown.show[0]), /UGUEST: no change — refused \(not allowed\)/);
  });

  test('a negative or absurd token budget is a field error', async () => {
    const { ref, service, start, save, who } = setup();
    const admin = who('UADMIN', true);
    const form = (await start(admin)).show[0] as Shown;
    const bad = await save(form, admin, {
      daily_token_budget: '-5',
      monthly_token_budget: '99999999999',
    });
    assert.equal(bad.outcome, 'invalid');
    const again = bad.show[0];
    assert.ok(again?.kind === 'form');
    assert.deepEqual(again.errors, {
      daily_token_budget: 'A whole number from 0 to 1000000000.',
      monthly_token_budget: 'A whole number from 0 to 1000000000.',
    });
    assert.equal((await service.effective(ref)).settings.dailyTokenBudget, 0);
  });

  test('a value out of range is a field error; the form stays and saves nothing', async () => {
    const { ref, service, start, save, who } = setup();
    const admin = who('UADMIN', true);
    const form = (await start(admin)).show[0] as Shown;
    const bad = await save(form, admin, { channel_context: '99', model: 'gpt-9' });
    assert.equal(bad.outcome, 'invalid');
    const again = bad.show[0];
    assert.ok(again?.kind === 'form');
    assert.deepEqual(again.errors, {
      model: 'The model server does not serve “gpt-9”. It serves: qwen3-8b.',
      channel_context: 'A whole number from 0 to 50.',
    });
    assert.equal((await service.effective(ref)).settings.channelContext, 10);
    // The same form, corrected, saves: only what changed is told and recorded.
    const good = await save(again, admin, {
      reply_mode: 'thread',
      channel_context: '3',
      tools: ['files'],
      instructions: '',
    });
    assert.equal(good.outcome, 'done');
    assert.equal(
      words(good.show[0]),
      'Saved: images off, knowledge off, channel context → 3. It applies from the next message.',
    );
    const now = (await service.effective(ref)).settings;
    assert.equal(now.channelContext, 3);
    assert.deepEqual(now.tools, { files: true, images: false, knowledge: false, web: false });
  });

  test("a slash command's options save at once; their problems are told in words", async () => {
    const { ref, service, start, who } = setup();
    const admin = who('UADMIN', true);
    const bad = await start(admin, { channel_context: 51 });
    assert.equal(bad.outcome, 'invalid');
    assert.match(
      words(bad.show[0]),
      /Not saved:\n• Channel messages .*: A whole number from 0 to 50\./,
    );
    const ok = await start(admin, { knowledge: false, instructions: 'Be brief.' });
    assert.equal(ok.outcome, 'done');
    const now = (await service.effective(ref)).settings;
    assert.deepEqual(now.tools, { files: true, images: true, knowledge: false, web: false });
    assert.equal(now.instructions, 'Be brief.');
    await start(admin, { instructions: '-' });
    assert.equal((await service.effective(ref)).settings.instructions, '');
  });
});

// Interactions that would never become a discord.js Interaction: a component, command or
// interaction type newer than the library (it logs "unknown type" and drops them), one in a channel
// it takes for not text-based, or one whose shape makes it throw. Discord still waits 3 s for their
// answer and then shows "This interaction failed". Every INTERACTION_CREATE is seen raw first, on
// the very object discord.js goes on to read: the two lists discord.js reads unconditionally and
// interactions older than them lack (`entitlements`, `authorizing_integration_owners`) are filled
// in empty, which is what they meant then. One the interactionCreate event still did not take in
// the same turn is answered here over the interaction callback, as an unknown one is: privately
// "no longer active", an autocomplete with no choices.
import {
  type Client,
  Events,
  InteractionResponseType,
  InteractionType,
  MessageFlags,
  Routes,
  Status,
} from 'discord.js';
import type { Logger } from '../../src/log/logger.ts';
import { unknownText } from './discord-unknown.ts';

interface RawInteraction {
  id: string;
  token: string;
  type: number;
  data?: { type?: number; name?: string; component_type?: number };
  entitlements?: unknown[];
  authorizing_integration_owners?: Record<string, string>;
}

export function answerUntaken(client: Client, log: Logger): void {
  // Raw dispatches whose Interaction has not been emitted yet.
  const waiting = new Set<string>();
  client.on(Events.InteractionCreate, (i) => {
    waiting.delete(i.id);
  });
  client.on(Events.Raw, (packet: { t?: string | null; d?: unknown }) => {
    if (packet.t !== 'INTERACTION_CREATE') return;
    const d = packet.d as RawInteraction;
    d.entitlements ??= [];
    d.authorizing_integration_owners ??= {};
    // discord.js makes and emits the Interaction in this same turn, unless it is still
    // (re)connecting: then it queues the dispatch and takes it later.
    if (client.ws.status !== Status.Ready) return;
    waiting.add(d.id);
    setImmediate(() => {
      if (!waiting.delete(d.id)) return;
      log.debug(
        { type: d.type, dataType: d.data?.type, componentType: d.data?.component_type },
        'discord interaction discord.js did not take: answered as not known here',
      );
      client.rest
        .post(Routes.interactionCallback(d.id, d.token), { body: answerOf(d), auth: false })
        .catch((err: unknown) => log.debug({ err }, 'discord: untaken interaction unanswered'));
    });
  });
}

function answerOf(d: RawInteraction): unknown {
  if (d.type === InteractionType.Ping) return { type: InteractionResponseType.Pong };
  if (d.type === InteractionType.ApplicationCommandAutocomplete) {
    return {
      type: InteractionResponseType.ApplicationCommandAutocompleteResult,
      data: { choices: [] },
    };
  }
  const name = d.type === InteractionType.ApplicationCommand ? d.data?.name : undefined;
  const command = name === undefined ? undefined : d.data?.type === 1 ? `/${name}` : name;
  return {
    type: InteractionResponseType.ChannelMessageWithSource,
    data: {
      content: unknownText(command),
      flags: MessageFlags.Ephemeral,
      allowed_mentions: { parse: [] },
    },
  };
}

// Discord's JSON answers: `{ message, code }` error objects (with nested `errors` for form
// validation, as @discordjs/rest flattens them into the DiscordAPIError message) and the
// handful of codes the routes use.

export interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export const ok = (body: unknown, status = 200): Answer => ({ status, body });
export const noContent = (): Answer => ({ status: 204 });

export function apiError(status: number, code: number, message: string, errors?: unknown): Answer {
  const body: Record<string, unknown> = { message, code };
  if (errors !== undefined) body.errors = errors;
  return { status, body };
}

/** 400 Invalid Form Body with one field error, nested as Discord nests them. */
export function formError(path: string[], code: string, message: string): Answer {
  let errors: Record<string, unknown> = { _errors: [{ code, message }] };
  for (const key of [...path].reverse()) errors = { [key]: errors };
  return apiError(400, 50035, 'Invalid Form Body', errors);
}

export const Errors = {
  unknownApplication: () => apiError(404, 10002, 'Unknown Application'),
  unknownChannel: () => apiError(404, 10003, 'Unknown Channel'),
  unknownGuild: () => apiError(404, 10004, 'Unknown Guild'),
  unknownMember: () => apiError(404, 10007, 'Unknown Member'),
  unknownMessage: () => apiError(404, 10008, 'Unknown Message'),
  unknownUser: () => apiError(404, 10013, 'Unknown User'),
  unknownEmoji: () => apiError(400, 10014, 'Unknown Emoji'),
  unknownWebhook: () => apiError(404, 10015, 'Unknown Webhook'),
  unknownInteraction: () => apiError(404, 10062, 'Unknown interaction'),
  unknownCommand: () => apiError(404, 10063, 'Unknown application command'),
  tooLarge: () => apiError(413, 40005, 'Request entity too large'),
  alreadyAcknowledged: () => apiError(400, 40060, 'Interaction has already been acknowledged.'),
  missingAccess: () => apiError(403, 50001, 'Missing Access'),
  notAuthor: () => apiError(403, 50005, 'Cannot edit a message authored by another user'),
  emptyMessage: () => apiError(400, 50006, 'Cannot send an empty message'),
  missingPermissions: () => apiError(403, 50013, 'Missing Permissions'),
  wrongChannelType: () => apiError(400, 50024, 'Cannot execute action on this channel type'),
  invalidWebhookToken: () => apiError(401, 50027, 'Invalid Webhook Token'),
  invalidJson: () => apiError(400, 50109, 'The request body contains invalid JSON.'),
};

// A flow begun by a typed message answers in its conversation: notices as messages, a card or a
// confirmation through the platform's interaction surface (with its buttons), or as its words
// where the platform has none.
import type { InteractionSurface, Shown } from '../../model/interaction.ts';
import type { Destination, PlatformPort } from '../../model/platform-port.ts';
import type { RenderedText } from '../../model/rendered-text.ts';

/** The words of something shown, as messages, for a platform that cannot show it. */
function words(s: Shown): RenderedText[] {
  switch (s.kind) {
    case 'notice':
      return [s.text];
    case 'card':
      return [
        s.card.text,
        ...(s.card.fields ?? []).map((f) => f.value),
        ...(s.card.context ? [s.card.context] : []),
      ];
    case 'confirm':
      return [
        s.confirmation.question,
        ...(s.confirmation.consequences ? [s.confirmation.consequences] : []),
      ];
    case 'form':
      return s.form.intro ? [s.form.intro] : [];
    case 'file':
      return [s.text];
  }
}

export async function showInConversation(
  shown: readonly Shown[],
  o: { port: PlatformPort; surface: InteractionSurface | undefined; to: Destination },
): Promise<void> {
  for (const s of shown) {
    if ((s.kind === 'card' || s.kind === 'confirm') && o.surface) await o.surface.post(o.to, s);
    else for (const text of words(s)) await o.port.post(o.to, text);
  }
}

// Cutting a label or a text to a platform's limit, in code points (as Slack and Discord count), so
// an emoji is never cut in half; a cut text ends in an ellipsis.

/** `text` cut to `max` characters, marked with an ellipsis when cut. */
export function clip(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

/** `text` cut to `max` characters at a space in its second half where there is one, with an ellipsis. */
export function clipAtWord(text: string, max: number): string {
  const chars = [...text];
  if (chars.length <= max) return text;
  const cut = chars.slice(0, max - 1).join('');
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

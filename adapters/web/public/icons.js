// The page's icons as inline SVG, so they show on a machine without an emoji font (where 👍 or ✅
// are empty boxes). An icon with a label is announced by it; one beside words is decoration.
const SVG = 'http://www.w3.org/2000/svg';

const THUMB =
  'M7 10v11H3V10h4zm0 0l4-8c1.7 0 3 1.3 3 3v4h5.2c1.3 0 2.2 1.2 2 2.4l-1.4 7.6c-.2 1.2-1.2 2-2.4 2H7';

/** Each icon's strokes on a 24×24 grid. */
const PATHS = {
  up: [THUMB],
  down: [THUMB],
  ok: ['M4 12.5l5 5L20 6.5'],
  warning: ['M12 3L1.5 21h21L12 3z', 'M12 9.5v5', 'M12 17.5v.5'],
  file: ['M6 2h8.5L19 6.5V22H6V2z', 'M14 2v5h5'],
};

/** An `<svg>` icon; `label` names it for screen readers, else it is hidden from them. */
export function icon(name, label) {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('class', `icon icon-${name}`);
  svg.setAttribute('fill', 'none');
  svg.setAttribute('stroke', 'currentColor');
  svg.setAttribute('stroke-width', '2');
  svg.setAttribute('stroke-linecap', 'round');
  svg.setAttribute('stroke-linejoin', 'round');
  if (label) {
    svg.setAttribute('role', 'img');
    svg.setAttribute('aria-label', label);
    const title = document.createElementNS(SVG, 'title');
    title.textContent = label;
    svg.append(title);
  } else svg.setAttribute('aria-hidden', 'true');
  const g = document.createElementNS(SVG, 'g');
  // 👎 is 👍 turned over.
  if (name === 'down') g.setAttribute('transform', 'rotate(180 12 12)');
  for (const d of PATHS[name] ?? []) {
    const path = document.createElementNS(SVG, 'path');
    path.setAttribute('d', d);
    g.append(path);
  }
  svg.append(g);
  return svg;
}

/** The bot's vote buttons by their label: the icon and the words a screen reader says. */
export const VOTE_ICONS = {
  '👍': { icon: 'up', name: 'Good answer' },
  '👎': { icon: 'down', name: 'Bad answer' },
};

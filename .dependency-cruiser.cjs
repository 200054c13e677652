// The layers of ARCHITECTURE.md ("Layers"), checked by `npm run lint:deps` (part of `npm run lint`
// and so of `npm test`). Every rule is an error; its name says in plain words what was broken, and
// its comment says why (`npx depcruise src adapters --config .dependency-cruiser.cjs
// --output-type err-long` prints the comments too).

/** Bottom to top. A layer may import its own and lower layers, never a higher one. */
const LAYERS = [
  { name: 'text-util', path: '^src/(text|util)/' },
  { name: 'model', path: '^src/model/' },
  { name: 'log', path: '^src/log/' },
  { name: 'scope-store-llm-net', path: '^src/(scope|store|llm|net)/' },
  {
    name: 'memory-attachments-knowledge-webtools',
    path: '^src/(memory|attachments|knowledge|webtools)/',
  },
  { name: 'agent', path: '^src/agent/' },
  { name: 'core', path: '^src/core/' },
  // The BullMQ queue, the workers and the gateway lease of the split roles: they drive the core.
  { name: 'queue', path: '^src/queue/' },
  // src/config reads src/knowledge/settings.ts, so it sits above knowledge (and the core).
  { name: 'config', path: '^src/config/' },
  // src/http has its own, narrower rule below; here it only sits where nothing but the composition
  // root may import it.
  { name: 'adapters-http', path: '^(adapters/|src/http/)' },
  // src/doctor runs every check, the adapters' platform checks included, like the composition root.
  { name: 'composition-root', path: '^src/(compose/|cli/|doctor/|main\\.ts$)' },
];

const ORDER = LAYERS.map((l) => l.name).join(' → ');

const layerRules = LAYERS.slice(0, -1).map((layer, i) => {
  const higher = LAYERS.slice(i + 1);
  return {
    name: `layer-${layer.name}-must-not-import-a-higher-layer`,
    comment: `Lower layers never import upper ones. Order, bottom to top: ${ORDER}. This file is in "${layer.name}" and imports from "${higher.map((l) => l.name).join('", "')}".`,
    severity: 'error',
    from: { path: layer.path },
    to: { path: higher.map((l) => l.path) },
  };
});

// As resolved (node_modules/…) and, should resolution fail, as written.
const PLATFORM_SDKS = [
  '(^|/)node_modules/(@slack|@discordjs)/',
  '(^|/)node_modules/discord\\.js/',
  '^(@slack|@discordjs)/',
  '^discord\\.js$',
];

module.exports = {
  forbidden: [
    {
      name: 'no-circular-imports',
      comment: 'Modules must not import each other in a circle (type-only imports count too).',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'model-imports-only-model-and-text',
      comment:
        'src/model is the shared vocabulary every layer may use: it imports nothing but itself and src/text (no npm package, no node builtin).',
      severity: 'error',
      from: { path: '^src/model/' },
      to: { pathNot: '^src/(model|text)/' },
    },
    {
      name: 'text-imports-only-text-and-node-builtins',
      comment: 'src/text is the bottom layer: only itself and node builtins, no npm packages.',
      severity: 'error',
      from: { path: '^src/text/' },
      to: { pathNot: '^src/text/', dependencyTypesNot: ['core'] },
    },
    {
      name: 'util-imports-only-util-and-node-builtins',
      comment: 'src/util is the bottom layer: only itself and node builtins, no npm packages.',
      severity: 'error',
      from: { path: '^src/util/' },
      to: { pathNot: '^src/util/', dependencyTypesNot: ['core'] },
    },
    {
      name: 'no-platform-sdk-outside-adapters-and-compose',
      comment:
        'Slack and Discord SDKs (@slack/*, discord.js, @discordjs/*) belong to adapters/*; under src/ only src/compose may import them.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/compose/' },
      to: { path: PLATFORM_SDKS },
    },
    {
      name: 'only-compose-doctor-and-main-import-adapters',
      comment:
        'The core never knows a platform: under src/ only src/compose, src/doctor (the platform checks) and src/main.ts import adapters/*.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(compose/|doctor/|main\\.ts$)' },
      to: { path: '^adapters/' },
    },
    {
      name: 'http-imports-only-log-and-model',
      comment:
        'src/http (health, readiness, metrics) may import src/log and src/model only (and npm packages and node builtins).',
      severity: 'error',
      from: { path: '^src/http/' },
      to: { path: '^(src|adapters)/', pathNot: '^src/(http|log|model|util)/' },
    },
    {
      name: 'adapters-must-not-import-each-other',
      comment:
        'adapters/slack, adapters/discord and adapters/web are independent: share code through src/.',
      severity: 'error',
      from: { path: '^adapters/([^/]+)/' },
      to: { path: '^adapters/', pathNot: '^adapters/$1/' },
    },
    {
      name: 'adapters-talk-only-to-core-model-log-text-util-config-and-download',
      comment:
        'An adapter talks to src/core, src/model, src/log, src/text, src/util, src/config and src/attachments/download.ts only; never directly to src/store, src/memory, src/agent, src/llm, src/knowledge (or anything else under src/).',
      severity: 'error',
      from: { path: '^adapters/' },
      to: {
        path: '^src/',
        pathNot: '^src/((core|model|log|text|util|config)/|attachments/download\\.ts$)',
      },
    },
    {
      name: 'every-src-file-belongs-to-a-layer',
      comment: `A file under src/ outside every layer (${ORDER}): add its folder to LAYERS in .dependency-cruiser.cjs and to ARCHITECTURE.md.`,
      severity: 'error',
      from: { path: '^src/', pathNot: LAYERS.map((l) => l.path) },
      to: {},
    },
    ...layerRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports are dependencies too.
    tsPreCompilationDeps: true,
    // `.ts` import specifiers (allowImportingTsExtensions) resolve through the project's tsconfig.
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'types', 'node', 'default', 'require'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    skipAnalysisNotInRules: true,
  },
};

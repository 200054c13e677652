// deploy/k8s/ checked offline: every document against the Kubernetes schema of its kind
// (kubernetes-models bundles the API's JSON schemas as validators), then the references between
// them — selectors that select, probes on the bot's endpoints, the role of each Deployment.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

const DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../deploy/k8s');

interface Doc {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
  [k: string]: unknown;
}

function load(): { file: string; doc: Doc }[] {
  return readdirSync(DIR)
    .filter((f) => f.endsWith('.yaml'))
    .flatMap((file) =>
      parseAllDocuments(readFileSync(path.join(DIR, file), 'utf8')).map((d) => {
        assert.deepEqual(d.errors, [], `${file} parses`);
        return { file, doc: d.toJS() as Doc };
      }),
    );
}

type Model = new (data: unknown) => { validate(): void };

async function modelOf(apiVersion: string, kind: string): Promise<Model> {
  const mod = (await import(`kubernetes-models/${apiVersion}`)) as Record<string, Model>;
  const cls = mod[kind];
  if (!cls) throw new Error(`no schema for ${apiVersion} ${kind}`);
  return cls;
}

type Container = {
  env?: { name: string; value?: string }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  readinessProbe?: { httpGet?: { path: string } };
  livenessProbe?: { httpGet?: { path: string } };
};
type Workload = Doc & {
  spec: {
    selector: { matchLabels: Record<string, string> };
    template: { metadata: { labels: Record<string, string> }; spec: { containers: Container[] } };
  };
};

const matches = (selector: Record<string, string>, labels: Record<string, string> | undefined) =>
  Object.entries(selector).every(([k, v]) => labels?.[k] === v);

test('every manifest is valid against the Kubernetes schema of its kind', async () => {
  const docs = load();
  assert.ok(docs.length >= 10);
  for (const { file, doc } of docs) {
    const Cls = await modelOf(doc.apiVersion, doc.kind);
    assert.doesNotThrow(() => new Cls(doc).validate(), `${file}: ${doc.kind} ${doc.metadata.name}`);
  }
});

test('the schema check rejects a broken manifest (the validator is live)', async () => {
  const Cls = await modelOf('apps/v1', 'Deployment');
  const broken = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'x' },
    spec: {
      selector: {},
      template: { spec: { containers: [{ name: 'a', ports: [{ containerPort: 'http' }] }] } },
    },
  };
  assert.throws(() => new Cls(broken).validate(), /containerPort must be integer/);
});

test('one Deployment per role, probes on /readyz and /healthz, config and secrets by reference', () => {
  const docs = load().map((d) => d.doc);
  const byKind = (kind: string) => docs.filter((d) => d.kind === kind);
  // The bot's own Deployments; model servers (vllm-embed) are checked below.
  const deployments = (byKind('Deployment') as Workload[]).filter(
    (d) => d.metadata.labels?.['app.kubernetes.io/name'] === 'threadmind',
  );
  const roles = deployments.map((d) => {
    const c = d.spec.template.spec.containers[0];
    assert.ok(c, d.metadata.name);
    assert.ok(matches(d.spec.selector.matchLabels, d.spec.template.metadata.labels), 'selector');
    assert.equal(c.readinessProbe?.httpGet?.path, '/readyz', `${d.metadata.name} readiness`);
    assert.equal(c.livenessProbe?.httpGet?.path, '/healthz', `${d.metadata.name} liveness`);
    for (const from of c.envFrom ?? []) {
      if (from.configMapRef)
        assert.ok(byKind('ConfigMap').some((m) => m.metadata.name === from.configMapRef?.name));
      if (from.secretRef)
        assert.ok(byKind('Secret').some((m) => m.metadata.name === from.secretRef?.name));
    }
    return c.env?.find((e) => e.name === 'THREADMIND_ROLE')?.value;
  });
  assert.deepEqual(roles.sort(), ['gateway', 'ingress', 'worker']);
  // No secret value in a ConfigMap, and the example Secret holds none either.
  for (const cm of byKind('ConfigMap'))
    for (const key of Object.keys((cm.data as Record<string, string>) ?? {}))
      assert.doesNotMatch(key, /TOKEN|SECRET|PASSWORD|KEY/);
  for (const s of byKind('Secret'))
    for (const v of Object.values((s.stringData as Record<string, string>) ?? {}))
      assert.equal(v, '');

  const workload = (name: string) => deployments.find((d) => d.metadata.name === name);
  const [hpa] = byKind('HorizontalPodAutoscaler');
  const target = hpa?.spec?.scaleTargetRef as { name: string } | undefined;
  assert.ok(target && workload(target.name), 'the HPA scales a Deployment');
  assert.match(JSON.stringify(hpa?.spec?.metrics), /threadmind_queue_jobs/);
  for (const pdb of byKind('PodDisruptionBudget')) {
    const sel =
      (pdb.spec?.selector as { matchLabels: Record<string, string> } | undefined)?.matchLabels ??
      {};
    assert.ok(
      deployments.some((d) => matches(sel, d.spec.template.metadata.labels)),
      `${pdb.metadata.name} selects pods`,
    );
  }
  const service = byKind('Service').find((s) => s.metadata.name === 'threadmind-ingress');
  const ingressPods = workload('threadmind-ingress')?.spec.template.metadata.labels;
  assert.ok(service && matches(service.spec?.selector as Record<string, string>, ingressPods));
  assert.match(JSON.stringify(byKind('Ingress')[0]?.spec), /\/slack\/events/);
});

for (const variable of ['LLM_EMBED_BASE_URL', 'LLM_RERANK_BASE_URL']) {
  test(`the model server ${variable} names exists: a Service on that port selecting vLLM with --runner=pooling`, () => {
    const docs = load().map((d) => d.doc);
    const config = docs.find(
      (d) => d.kind === 'ConfigMap' && d.metadata.name === 'threadmind-config',
    );
    const url = new URL((config?.data as Record<string, string> | undefined)?.[variable] ?? '');
    assert.equal(url.pathname, '/v1');
    const service = docs.find((d) => d.kind === 'Service' && d.metadata.name === url.hostname);
    assert.ok(service, `a Service named ${url.hostname}`);
    const ports = service.spec?.ports as { port: number; targetPort: string }[];
    const port = ports.find((p) => p.port === Number(url.port));
    assert.ok(port, `the Service listens on ${url.port}`);
    const server = (docs.filter((d) => d.kind === 'Deployment') as Workload[]).find((d) =>
      matches(service.spec?.selector as Record<string, string>, d.spec.template.metadata.labels),
    );
    assert.ok(server, 'the Service selects a Deployment');
    const c = server.spec.template.spec.containers[0] as Container & {
      args?: string[];
      ports?: { name: string; containerPort: number }[];
    };
    assert.ok(
      c.args?.includes('--runner=pooling'),
      'vLLM serves a pooling (embedding or scoring) model',
    );
    const named = c.ports?.find((p) => p.name === port.targetPort);
    assert.ok(named && c.args?.includes(`--port=${named.containerPort}`), 'ports line up');
    assert.equal(c.readinessProbe?.httpGet?.path, '/health');
  });
}

test('compose.yaml: the roles with their replicas on one Redis, four vLLM servers splitting one GPU', () => {
  const file = path.resolve(DIR, '../../compose.yaml');
  // Compose applies YAML merge keys (<<: *env).
  const compose = parseAllDocuments(readFileSync(file, 'utf8'), { merge: true })[0]?.toJS() as {
    services: Record<
      string,
      { environment?: Record<string, string>; deploy?: { replicas?: number }; command?: string[] }
    >;
  };
  const replicas = Object.fromEntries(
    ['ingress', 'worker', 'gateway'].map((role) => {
      const s = compose.services[role];
      assert.equal(s?.environment?.THREADMIND_ROLE, role);
      assert.match(s?.environment?.STORE_URL ?? '', /^redis:\/\//);
      assert.equal(s?.environment?.WEB_ENABLED, 'false');
      return [role, s?.deploy?.replicas];
    }),
  );
  assert.deepEqual(replicas, { ingress: 2, worker: 3, gateway: 2 });
  const share = (name: string) =>
    Number(
      compose.services[name]?.command
        ?.find((a) => a.startsWith('--gpu-memory-utilization='))
        ?.split('=')[1],
    );
  assert.ok(
    share('vllm-text') + share('vllm-vision') + share('vllm-embed') + share('vllm-rerank') <= 0.9,
    'the GPU memory split leaves room',
  );
  assert.ok(compose.services['vllm-embed']?.command?.includes('--runner=pooling'));
  const embedUrl = new URL(compose.services.worker?.environment?.LLM_EMBED_BASE_URL ?? '');
  assert.equal(embedUrl.hostname, 'vllm-embed');
  assert.ok(compose.services['vllm-embed']?.command?.includes(`--port=${embedUrl.port}`));
  const rerankUrl = new URL(compose.services.worker?.environment?.LLM_RERANK_BASE_URL ?? '');
  assert.equal(rerankUrl.hostname, 'vllm-rerank');
  assert.ok(compose.services['vllm-rerank']?.command?.includes(`--port=${rerankUrl.port}`));
  const text = compose.services['vllm-text']?.command ?? [];
  assert.ok(text.includes('--enable-auto-tool-choice'));
  assert.ok(text.some((a) => a.startsWith('--tool-call-parser=')));
});

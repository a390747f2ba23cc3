// The seed's real-client check of the repo toolset: the TypeScript SDK v1
// client (@modelcontextprotocol/sdk), written by someone else, drives
// `kontext mcp --toolsets repo` over stdio against a real repository. The
// SDK parses and validates every message (structuredContent against each
// tool's outputSchema included) and negotiates the revision itself.
//
//   node internal/interop/testdata/node/repo-check.mjs <kontext binary> <repository root>
//
// Prints one JSON line per check ({"check","ok","detail"}) and exits 1 when
// any check failed. internal/interop runs it under go test, on a fixture
// repository and on kontext's own.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';

import { Runner, assert, assertEqual, describeError, expectRejection, lastRequest, parseArgs, serverEnv, tap, textOf } from './harness.mjs';

const WANT_VERSION = '2025-11-25';
const COMPACT_BUDGET = 25000;
const REPO_TOOLS = [
  'explain_module',
  'get_architecture',
  'get_change_impact',
  'get_context_for_task',
  'get_conventions',
  'get_decisions',
  'get_dependencies',
  'get_dependents',
  'get_module_history',
  'get_repository_context',
  'get_revision_diff',
  'get_revision_snapshot',
  'search_context',
];

const { server, root } = parseArgs('repo-check.mjs');
const run = new Runner();

const transport = new StdioClientTransport({
  command: server,
  args: ['mcp', '--toolsets', 'repo', '--root', root, '--log-level', 'warn'],
  env: serverEnv(),
  stderr: 'inherit',
});
const wire = tap(transport);
const client = new Client({ name: 'kontext-repo-check', version: '1.0.0' }, { capabilities: {} });

// countKey counts the occurrences of a key anywhere in a JSON value.
function countKey(v, key) {
  if (Array.isArray(v)) return v.reduce((n, x) => n + countKey(x, key), 0);
  if (v && typeof v === 'object') return Object.entries(v).reduce((n, [k, x]) => n + (k === key ? 1 : 0) + countKey(x, key), 0);
  return 0;
}

// call runs a tool that must succeed and returns its structured content,
// checking that the text block is the same JSON.
async function call(name, args) {
  const res = await client.callTool({ name, arguments: args });
  assert(!res.isError, `${name} ${JSON.stringify(args)} failed: ${textOf(res)}`);
  assert(res.structuredContent && typeof res.structuredContent === 'object', `${name}: no structuredContent`);
  assertEqual(JSON.parse(textOf(res)), res.structuredContent, `${name}: text block vs structuredContent`);
  return { data: res.structuredContent, chars: textOf(res).length };
}

const ok = await run.check('handshake', async () => {
  await client.connect(transport);
  const init = wire.received.find((r) => r.message.id !== undefined && r.message.result && r.message.result.protocolVersion);
  assert(init, 'no initialize result seen on the wire');
  assertEqual(init.message.result.protocolVersion, WANT_VERSION, 'negotiated protocolVersion');
  const info = client.getServerVersion();
  assert(info && info.name === 'kontext', `serverInfo ${JSON.stringify(info)}`);
  const caps = client.getServerCapabilities();
  assert(caps.tools && caps.resources && caps.prompts, `capabilities ${JSON.stringify(caps)}`);
  return { asked: lastRequest(wire, 'initialize').params.protocolVersion, negotiated: init.message.result.protocolVersion, server: info };
});
if (!ok) run.exit();

await run.check('tools/list', async () => {
  const { tools } = await client.listTools();
  assertEqual(tools.map((t) => t.name).sort(), REPO_TOOLS, 'tool names');
  for (const t of tools) {
    const s = t.inputSchema;
    assert(s && s.type === 'object' && s.additionalProperties === false, `${t.name}: inputSchema ${JSON.stringify(s)}`);
    assert(s.properties.root && s.properties.root.type === 'string', `${t.name}: no root parameter`);
    assertEqual(s.properties.detail && s.properties.detail.enum, ['compact', 'full'], `${t.name}: detail enum`);
    assertEqual(s.properties.detail.default, 'compact', `${t.name}: detail default`);
    assert(t.outputSchema && t.outputSchema.type === 'object' && t.outputSchema.properties.schemaVersion, `${t.name}: outputSchema ${JSON.stringify(t.outputSchema)}`);
    assert(t.annotations && t.annotations.readOnlyHint === true && t.annotations.openWorldHint === false, `${t.name}: annotations ${JSON.stringify(t.annotations)}`);
  }
  return { tools: tools.length, withOutputSchema: tools.filter((t) => t.outputSchema).length };
});

// The repository decides the targets: its most central module (listed
// first) and the modules that use it.
let repo;
await run.check('call get_repository_context', async () => {
  const { data, chars } = await call('get_repository_context', {});
  assert(data.schemaVersion === 1 && data.summary.files > 0, `summary ${JSON.stringify(data.summary)}`);
  assert(data.modules.length > 0, 'no modules');
  repo = data;
  return { name: data.summary.name, modules: data.modules.length, central: data.modules[0].id, chars };
});
if (!repo) run.exit();
const central = { ...repo.modules[0] };
// The summary may cut a module's usedBy to fit (and says so in truncated):
// explain_module holds the module whole.
if ((repo.truncated || []).some((c) => c.field === 'modules[].usedBy')) {
  const explained = await client.callTool({ name: 'explain_module', arguments: { path: central.id } });
  const whole = explained.structuredContent;
  if (whole && !(whole.truncated || []).some((c) => c.field === 'module.usedBy')) central.usedBy = whole.module.usedBy;
}

await run.check('call get_context_for_task', async () => {
  const { data } = await call('get_context_for_task', { task: `change how ${central.name} works`, target: central.id, maxModules: 3 });
  assertEqual(data.modules[0].id, central.id, 'the target module leads');
  assert(data.modules[0].reason.includes("the target's module"), `reason ${data.modules[0].reason}`);
  assert(data.modules.length <= 3, `${data.modules.length} modules for maxModules 3`);
  return { modules: data.modules.map((m) => `${m.id} (${m.reason})`), files: data.files.length };
});

await run.check('call get_change_impact', async () => {
  const { data } = await call('get_change_impact', { target: central.id });
  assertEqual(data.kind, 'module', 'kind');
  for (const m of central.usedBy) assert(data.directDependents.includes(m), `direct dependents ${JSON.stringify(data.directDependents)} lack ${m}`);
  return { direct: data.directDependents.length, transitive: data.transitiveDependents.length, files: data.files.length, tests: data.tests.length, truncated: data.truncated || [] };
});

await run.check('call explain_module', async () => {
  const { data } = await call('explain_module', { path: central.id });
  assertEqual(data.module.id, central.id, 'module');
  assert(data.files.length > 0, 'no files');
  const res = await client.callTool({ name: 'explain_module', arguments: { path: 'no/such/module' } });
  assertEqual(res.isError, true, 'an unknown path is a failed tool result');
  assert(textOf(res).includes('no/such/module'), `the error does not name the path: ${textOf(res)}`);
  return { files: data.files.length, symbols: data.symbols.length, unknownPath: textOf(res) };
});

await run.check('call get_dependents', async () => {
  const { data } = await call('get_dependents', { module: central.id });
  const direct = data.direct.map((e) => e.from).sort();
  assertEqual(direct, [...central.usedBy].sort(), 'direct dependents vs usedBy');
  // Consistent with get_dependencies: each dependent depends on the module.
  for (const from of direct.slice(0, 3)) {
    const { data: deps } = await call('get_dependencies', { module: from });
    assert(deps.internal.some((e) => e.to === central.id), `get_dependencies(${from}) lacks ${central.id}`);
  }
  return { direct: direct.length, transitive: data.transitive.length };
});

await run.check('call search_context', async () => {
  const query = central.id.split('/').pop();
  const { data } = await call('search_context', { query, limit: 5 });
  assert(data.results.length > 0, `nothing found for ${query}`);
  for (let i = 0; i < data.results.length; i++) {
    const r = data.results[i];
    assert(/^matched terms: .+; ranked by bm25$/.test(r.reason), `reason ${r.reason}`);
    assert(i === 0 || r.score <= data.results[i - 1].score, 'not ranked by score');
  }
  return data.results.map((r) => `${r.type} ${r.id} ${r.score}`);
});

await run.check('compact/full size contract', async () => {
  const sizes = {};
  const calls = [
    ['get_repository_context', { maxModules: 100, maxEntryPoints: 200, maxExternalDependencies: 200, maxConventions: 200, maxDecisions: 200, maxCycles: 200 }],
    ['get_architecture', {}],
    ['get_dependencies', {}],
    ['explain_module', { path: central.id }],
    ['get_conventions', {}],
    ['get_decisions', {}],
  ];
  let fullEvidence = 0;
  for (const [name, args] of calls) {
    const compact = await call(name, args);
    const full = await call(name, { ...args, detail: 'full' });
    assert(compact.chars <= COMPACT_BUDGET, `${name} compact is ${compact.chars} characters`);
    assert(full.chars <= COMPACT_BUDGET, `${name} full is ${full.chars} characters`);
    // Full adds the evidence within the same bound: larger, unless it says
    // what it cut to stay within it.
    const fullCuts = full.data.truncated || [];
    assert(full.chars > compact.chars || fullCuts.length > 0, `${name} full (${full.chars}) is no larger than compact (${compact.chars}) and cut nothing`);
    for (const cut of [...(compact.data.truncated || []), ...fullCuts]) {
      assert(typeof cut.field === 'string' && typeof cut.kept === 'number' && typeof cut.narrow === 'string', `${name}: cut ${JSON.stringify(cut)} lacks its field, counts or how to narrow`);
    }
    assertEqual(countKey(compact.data, 'evidence'), 0, `${name} compact evidence lists`);
    // Full adds one key to one answer: get_architecture's Mermaid map.
    if (name === 'get_architecture') assert(String(full.data.map).startsWith('flowchart TD\n'), 'get_architecture full: no Mermaid map');
    const fullOnly = (k) => k === 'truncated' || (name === 'get_architecture' && k === 'map');
    assertEqual(Object.keys(compact.data).filter((k) => k !== 'truncated').sort(), Object.keys(full.data).filter((k) => !fullOnly(k)).sort(), `${name}: compact and full keys`);
    fullEvidence += countKey(full.data, 'evidence');
    sizes[name] = { compact: compact.chars, full: full.chars, truncated: (compact.data.truncated || []).map((c) => c.field) };
  }
  assert(fullEvidence > 0, 'no full answer carries evidence');
  return { sizes, fullEvidenceLists: fullEvidence };
});

await run.check('invalid detail is -32602', async () => {
  const err = await expectRejection(() => client.callTool({ name: 'get_repository_context', arguments: { detail: 'verbose' } }), 'detail: verbose');
  assert(err instanceof McpError, `not an McpError: ${JSON.stringify(describeError(err))}`);
  assertEqual(err.code, -32602, 'code');
  assert(err.data && err.data.tool === 'get_repository_context' && JSON.stringify(err.data.violations).includes('detail'), `data ${JSON.stringify(err.data)}`);
  const sent = lastRequest(wire, 'tools/call', (m) => m.params.arguments && m.params.arguments.detail === 'verbose');
  const answer = wire.received.find((r) => r.message.id === sent.id);
  assert(answer && answer.message.error && !answer.message.result, 'the answer on the wire is not a JSON-RPC error');
  return { code: err.code, violations: err.data.violations };
});

await run.check('unknown argument is -32602', async () => {
  const err = await expectRejection(() => client.callTool({ name: 'explain_module', arguments: { path: central.id, verbose: true } }), 'verbose: true');
  assert(err instanceof McpError && err.code === -32602, `got ${JSON.stringify(describeError(err))}`);
  return { code: err.code, violations: err.data.violations };
});

await run.check('resources/read agent://repository/context', async () => {
  const { resources } = await client.listResources();
  const uris = resources.map((r) => r.uri).filter((u) => u.startsWith('agent://repository/')).sort();
  assertEqual(uris, ['agent://repository/architecture', 'agent://repository/context', 'agent://repository/conventions', 'agent://repository/decisions', 'agent://repository/dependencies'], 'resources');
  const res = await client.readResource({ uri: 'agent://repository/context' });
  assertEqual(res.contents[0].mimeType, 'application/json', 'mimeType');
  const data = JSON.parse(res.contents[0].text);
  assertEqual(data.summary.name, repo.summary.name, 'summary name');
  return { uris, chars: res.contents[0].text.length };
});

await run.check('prompts/get review_change_impact', async () => {
  const { prompts } = await client.listPrompts();
  assertEqual(prompts.map((p) => p.name).sort(), ['explain_architecture', 'onboard_to_repository', 'review_change_impact'], 'prompts');
  const res = await client.getPrompt({ name: 'review_change_impact', arguments: { target: central.id } });
  const text = res.messages[0].content.text;
  assert(text.includes('get_change_impact') && text.includes(central.id), `prompt text ${text}`);
  return res.messages[0].content.text.split('\n')[0];
});

await client.close();
run.exit();

// The apps toolset driven by the TypeScript SDK, a client written by
// someone else: `kontext mcp --toolsets apps` over stdio, with a real
// examples/notes process started after the broker. With `v1` the SDK v1
// client negotiates 2025-11-25 (resources/subscribe); with `v2` the SDK v2
// client pins 2026-07-28 (per-request _meta, subscriptions/listen). Either
// SDK validates every message it reads, structuredContent against each
// tool's outputSchema included.
//
//   node internal/interop/testdata/node/apps-check.mjs <kontext> <notes> <runtime dir> v1|v2
//
// Prints one JSON line per check ({"check","ok","detail"}) and exits 1 when
// any check failed. internal/interop runs it under go test.

import { spawn } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';

import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ResourceUpdatedNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';

import { Runner, assert, assertEqual, serverEnv, tap, textOf } from './harness.mjs';

const [server, notesBin, runtime, sdk] = process.argv.slice(2);
if (!server || !notesBin || !runtime || !['v1', 'v2'].includes(sdk)) {
  process.stderr.write('usage: node apps-check.mjs <kontext> <notes> <runtime dir> v1|v2\n');
  process.exit(2);
}
const WANT_VERSION = sdk === 'v1' ? '2025-11-25' : '2026-07-28';
const META_ACTION = 'org.appcontextprotocol/action';
const STABLE = ['app_call', 'app_describe', 'app_state', 'apps_list'];

const run = new Runner();
const env = { ...serverEnv(), APPCONTEXT_RUNTIME_DIR: runtime };
const args = ['mcp', '--toolsets', 'apps', '--log-level', 'warn'];
let client;
let transport;
if (sdk === 'v1') {
  transport = new StdioV1({ command: server, args, env, stderr: 'inherit' });
  client = new ClientV1({ name: 'kontext-apps-check-v1', version: '1.0.0' }, { capabilities: {} });
} else {
  transport = new StdioV2({ command: server, args, env, stderr: 'inherit' });
  client = new ClientV2(
    { name: 'kontext-apps-check-v2', version: '1.0.0' },
    { capabilities: {}, versionNegotiation: { mode: { pin: WANT_VERSION } } },
  );
}
const wire = tap(transport);

// on registers a notification handler the way each SDK wants it.
function on(method, handler) {
  if (sdk === 'v1') {
    const schema = { 'notifications/tools/list_changed': ToolListChangedNotificationSchema, 'notifications/resources/updated': ResourceUpdatedNotificationSchema }[method];
    client.setNotificationHandler(schema, handler);
  } else {
    client.setNotificationHandler(method, handler);
  }
}

// follow asks for updates of a resource: resources/subscribe in
// 2025-11-25, a subscriptions/listen stream in 2026-07-28. It resolves once
// the broker confirmed, with a function that stops following.
async function follow(uri) {
  if (sdk === 'v1') {
    await client.subscribeResource({ uri });
    return () => client.unsubscribeResource({ uri });
  }
  const sub = await client.listen({ resourceSubscriptions: [uri] });
  assertEqual(sub.honoredFilter.resourceSubscriptions, [uri], 'honoured resourceSubscriptions');
  return () => sub.close();
}

async function listTools() {
  const { tools } = sdk === 'v1' ? await client.listTools() : await client.listTools(undefined, { cacheMode: 'refresh' });
  return tools;
}

async function until(what, cond, ms = 15000) {
  for (const end = Date.now() + ms; Date.now() < end; await delay(25)) {
    const v = await cond();
    if (v) return v;
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function callOK(name, args) {
  const res = await client.callTool({ name, arguments: args });
  assert(!res.isError, `${name} failed: ${textOf(res)}`);
  return res;
}

let notes;
let changed = 0;
let listChanged;
const updates = [];

try {
  const ok = await run.check('handshake', async () => {
    await client.connect(transport);
    const caps = client.getServerCapabilities();
    assert(caps.tools && caps.tools.listChanged && caps.resources && caps.resources.subscribe, `capabilities ${JSON.stringify(caps)}`);
    const asked = wire.sent.find((r) => r.message.method === 'initialize' || (r.message.params && r.message.params._meta));
    return { server: client.getServerVersion(), era: WANT_VERSION, first: asked && asked.message.method };
  });
  if (!ok) run.exit();

  on('notifications/tools/list_changed', () => { changed++; });
  on('notifications/resources/updated', (n) => updates.push(n.params.uri));
  if (sdk === 'v2') listChanged = await client.listen({ toolsListChanged: true });

  await run.check('stable tools before any application', async () => {
    const names = (await listTools()).map((t) => t.name).sort();
    assertEqual(names, STABLE, 'tools/list');
    return { names };
  });

  let instanceId;
  let typed;
  await run.check('discovery: an application started after the broker', async () => {
    notes = spawn(notesBin, [], { env: { ...process.env, APPCONTEXT_RUNTIME_DIR: runtime }, stdio: ['ignore', 'ignore', 'pipe'] });
    let said = '';
    notes.stderr.on('data', (c) => { said += c.toString(); });
    instanceId = await until('notes to write its manifest', () => (said.match(/instance (\S+), manifest/) || [])[1]);
    await until('notifications/tools/list_changed', () => changed > 0);
    typed = await until('the typed tools', async () => {
      const mine = (await listTools()).filter((t) => t._meta && t._meta[META_ACTION] && t._meta[META_ACTION].instanceId === instanceId);
      return mine.length === 4 ? mine : undefined;
    });
    const byAction = Object.fromEntries(typed.map((t) => [t._meta[META_ACTION].action, t]));
    assertEqual(Object.keys(byAction).sort(), ['add_note', 'clear_notes', 'list_notes', 'touch'], 'actions');
    for (const t of typed) assert(/^[A-Za-z0-9_-]{1,48}$/.test(t.name), `typed name ${t.name} outside [A-Za-z0-9_-]{1,48}`);
    assertEqual(byAction.list_notes.annotations.readOnlyHint, true, 'list_notes readOnlyHint');
    assertEqual(byAction.add_note.annotations.destructiveHint, false, 'add_note destructiveHint');
    assertEqual(byAction.touch.annotations.destructiveHint, true, 'touch (no hints) destructiveHint');
    const { structuredContent } = await callOK('apps_list', {});
    const inst = structuredContent.instances.find((i) => i.instanceId === instanceId);
    assert(inst && inst.available === true && inst.appId === 'dev.kontext.notes', `apps_list ${JSON.stringify(structuredContent)}`);
    typed = byAction;
    return { instanceId, names: typed && Object.values(byAction).map((t) => t.name), listChanged: changed };
  });
  if (!typed || !typed.add_note) run.exit();

  await run.check('typed and stable calls', async () => {
    await callOK(typed.add_note.name, { text: 'from the TypeScript SDK' });
    const listed = await callOK(typed.list_notes.name, {});
    assert(JSON.stringify(listed.structuredContent || textOf(listed)).includes('from the TypeScript SDK'), `list_notes ${textOf(listed)}`);
    const call = await callOK('app_call', { instanceId, action: 'list_notes', arguments: {} });
    assertEqual(call.structuredContent.instanceId, instanceId, 'app_call instanceId');
    assertEqual(call.structuredContent.appId, 'dev.kontext.notes', 'app_call appId');
    const state = await callOK('app_state', { instanceId, keys: ['count'] });
    assertEqual(state.structuredContent.state.count, 1, 'app_state count');
    return { count: state.structuredContent.state.count };
  });

  await run.check('state subscription and resources/updated', async () => {
    const uri = `appcontext://apps/dev.kontext.notes/${instanceId}/state/count`;
    const stop = await follow(uri);
    try {
      await callOK(typed.add_note.name, { text: 'second' });
      await until(`notifications/resources/updated for ${uri}`, () => updates.includes(uri));
      const res = await client.readResource({ uri });
      assertEqual(res.contents[0].text, '2', 'state/count after the update');
      return { uri, updates: updates.length };
    } finally {
      await stop();
    }
  });
} finally {
  if (notes) notes.kill('SIGTERM');
  if (listChanged) await listChanged.close().catch(() => {});
  await client.close().catch(() => {});
}
run.exit();

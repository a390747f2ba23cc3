// The TypeScript SDK v2 client (@modelcontextprotocol/client), pinned to the
// modern 2026-07-28 era, driving a real kontext-testkit process over stdio,
// or over streamable HTTP (the SDK's StreamableHTTPClientTransport against
// `mcp --http`) when KONTEXT_INTEROP_HTTP=1.
//
//   node internal/interop/testdata/node/ts-sdk-v2.mjs <kontext-testkit binary> <root dir>
//
// Prints one JSON line per check ({"check","ok","detail"}) and exits 1 when
// any check failed. internal/interop runs it under go test.
//
// Era selection: ClientOptions.versionNegotiation = {mode: {pin: '2026-07-28'}}
// probes server/discover (on a short-lived sibling process for the SDK's own
// StdioClientTransport; as a POST to the same endpoint over HTTP) and then
// speaks 2026-07-28 only: every request carries the per-request _meta, there
// is no initialize and no ping.

import { Client, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

import {
  Runner,
  assert,
  assertEqual,
  checkCalls,
  checkToolList,
  delay,
  describeError,
  expectRejection,
  lastRequest,
  parseArgs,
  recordingFetch,
  serverEnv,
  startHTTP,
  tap,
  textOf,
} from './harness.mjs';

const WANT_VERSION = '2026-07-28';
const { server, root } = parseArgs('ts-sdk-v2.mjs');
const run = new Runner();

const overHTTP = process.env.KONTEXT_INTEROP_HTTP === '1';

// start starts a server and a client for it; stop ends the server when it
// is an HTTP one (a stdio one ends with its client).
async function start(extraArgs = [], traceSuffix) {
  const args = ['mcp', '--root', root, ...extraArgs];
  let transport;
  let stop = async () => {};
  let posts;
  if (overHTTP) {
    const served = await startHTTP(server, args, serverEnv(traceSuffix));
    const recorded = recordingFetch();
    transport = new StreamableHTTPClientTransport(new URL(served.url), { fetch: recorded.fetch });
    posts = recorded.posts;
    stop = served.stop;
  } else {
    transport = new StdioClientTransport({ command: server, args, env: serverEnv(traceSuffix), stderr: 'inherit' });
  }
  const wire = tap(transport);
  const client = new Client(
    { name: 'kontext-interop-ts-sdk-v2', version: '1.0.0' },
    { capabilities: {}, versionNegotiation: { mode: { pin: WANT_VERSION } } },
  );
  return { client, transport, wire, stop, posts };
}

const main = await start();
const { client, wire } = main;

const modernMeta = (m) =>
  m.params && m.params._meta && m.params._meta['io.modelcontextprotocol/protocolVersion'] === WANT_VERSION && m.params._meta['io.modelcontextprotocol/clientCapabilities'];

const ok = await run.check('handshake', async () => {
  await client.connect(main.transport);
  assertEqual(client.getNegotiatedProtocolVersion(), WANT_VERSION, 'negotiated protocol version');
  assertEqual(client.getProtocolEra(), 'modern', 'protocol era');
  const discover = client.getDiscoverResult();
  assert(discover && discover.supportedVersions.includes(WANT_VERSION), `DiscoverResult ${JSON.stringify(discover)}`);
  assert(client.getServerCapabilities().tools, 'the server does not advertise tools');
  const info = client.getServerVersion();
  assert(info && info.name === 'kontext', `serverInfo ${JSON.stringify(info)}`);
  assert(!wire.sent.some((s) => s.message.method === 'initialize'), 'the pinned client sent initialize');
  return { negotiated: client.getNegotiatedProtocolVersion(), era: client.getProtocolEra(), supportedVersions: discover.supportedVersions, server: info };
});
if (!ok) run.exit();

await run.check('tools/list', async () => {
  const { tools } = await client.listTools();
  const req = lastRequest(wire, 'tools/list');
  assert(req && modernMeta(req), `tools/list went out without the modern _meta: ${JSON.stringify(req)}`);
  return checkToolList(tools);
});

// The modern era has no ping: after the cancel an echo alone shows the
// server is free again.
await checkCalls(run, client, wire, {
  ProtocolError,
  callTool: (params, options) => client.callTool(params, options),
  posts: main.posts,
});

await run.check('prompts/get greet', async () => {
  const res = await client.getPrompt({ name: 'greet', arguments: { who: 'Ann', style: 'formal' } });
  assertEqual(res.messages.length, 1, 'messages');
  assertEqual(res.messages[0].content, { type: 'text', text: 'Good day, Ann.' }, 'message content');
  return res.messages[0];
});

await run.check('resources/read testkit://status', async () => {
  const res = await client.readResource({ uri: 'testkit://status' }, { cacheMode: 'bypass' });
  assertEqual(res.contents.length, 1, 'contents');
  assertEqual(res.contents[0].uri, 'testkit://status', 'uri');
  assert(/^notes written: \d+$/.test(res.contents[0].text), `text ${JSON.stringify(res.contents[0].text)}`);
  return res.contents[0];
});

await run.check('subscriptions/listen: resource updated', async () => {
  const updates = [];
  client.setNotificationHandler('notifications/resources/updated', (n) => updates.push(n.params.uri));
  const sub = await client.listen({ resourceSubscriptions: ['testkit://status'] });
  try {
    assertEqual(sub.honoredFilter.resourceSubscriptions, ['testkit://status'], 'honoured resourceSubscriptions');
    const res = await client.callTool({ name: 'write_note', arguments: { name: 'ts-v2', text: 'from the TS SDK v2' } });
    assert(!res.isError, `write_note: ${textOf(res)}`);
    for (let i = 0; i < 50 && !updates.includes('testkit://status'); i++) await delay(20);
    assert(updates.includes('testkit://status'), `no notifications/resources/updated for testkit://status (got ${JSON.stringify(updates)})`);
    return { honoured: sub.honoredFilter, updates };
  } finally {
    await sub.close();
  }
});

await run.check('subscriptions/listen: tools/list_changed', async () => {
  let changed = 0;
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    changed++;
  });
  const sub = await client.listen({ toolsListChanged: true });
  try {
    assertEqual(sub.honoredFilter.toolsListChanged, true, 'honoured toolsListChanged');
    const res = await client.callTool({ name: 'toggle_bonus', arguments: {} });
    assertEqual(textOf(res), 'bonus added', 'toggle_bonus');
    for (let i = 0; i < 50 && changed === 0; i++) await delay(20);
    assert(changed > 0, 'no notifications/tools/list_changed after toggle_bonus');
    const { tools } = await client.listTools(undefined, { cacheMode: 'refresh' });
    assert(tools.some((t) => t.name === 'bonus'), 'bonus is not listed after toggle_bonus');
    await client.callTool({ name: 'toggle_bonus', arguments: {} });
    return { notifications: changed };
  } finally {
    await sub.close();
  }
});

await client.close();
await main.stop();

await run.check('request timeout', async () => {
  const slow = await start(['--request-timeout', '500ms'], 'timeout');
  try {
    await slow.client.connect(slow.transport);
    assertEqual(slow.client.getNegotiatedProtocolVersion(), WANT_VERSION, 'negotiated protocol version');
    const started = Date.now();
    const err = await expectRejection(() => slow.client.callTool({ name: 'sleep', arguments: { ms: 3000 } }), 'sleep 3000 ms');
    const took = Date.now() - started;
    assert(err instanceof ProtocolError, `not a ProtocolError: ${JSON.stringify(describeError(err))}`);
    assertEqual(err.code, -32603, 'error code');
    assert(err.data && err.data.timeoutMs === 500, `error data ${JSON.stringify(err.data)}, want timeoutMs 500`);
    assert(took < 2500, `the timeout answered after ${took} ms`);
    return { code: err.code, data: err.data, tookMs: took };
  } finally {
    await slow.client.close();
    await slow.stop();
  }
});

run.exit();

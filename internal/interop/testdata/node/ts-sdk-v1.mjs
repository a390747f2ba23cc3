// The TypeScript SDK v1 client (@modelcontextprotocol/sdk, legacy era only)
// driving a real kontext-testkit process over stdio, or over streamable HTTP
// (StreamableHTTPClientTransport against `mcp --http`) when
// KONTEXT_INTEROP_HTTP=1.
//
//   node internal/interop/testdata/node/ts-sdk-v1.mjs <kontext-testkit binary> <root dir>
//
// Prints one JSON line per check ({"check","ok","detail"}) and exits 1 when
// any check failed. internal/interop runs it under go test.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  McpError,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

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
  serverEnv,
  startHTTP,
  tap,
  textOf,
} from './harness.mjs';

const WANT_VERSION = '2025-11-25';
const { server, root } = parseArgs('ts-sdk-v1.mjs');
const run = new Runner();

const overHTTP = process.env.KONTEXT_INTEROP_HTTP === '1';

// start starts a server and a client for it; stop ends the server when it
// is an HTTP one (a stdio one ends with its client).
async function start(extraArgs = [], traceSuffix) {
  const args = ['mcp', '--root', root, ...extraArgs];
  let transport;
  let stop = async () => {};
  if (overHTTP) {
    const served = await startHTTP(server, args, serverEnv(traceSuffix));
    transport = new StreamableHTTPClientTransport(new URL(served.url));
    stop = served.stop;
  } else {
    transport = new StdioClientTransport({ command: server, args, env: serverEnv(traceSuffix), stderr: 'inherit' });
  }
  const wire = tap(transport);
  const client = new Client({ name: 'kontext-interop-ts-sdk-v1', version: '1.0.0' }, { capabilities: {} });
  return { client, transport, wire, stop };
}

const main = await start();
const { client, wire } = main;

const ok = await run.check('handshake', async () => {
  await client.connect(main.transport);
  const init = wire.received.find((r) => r.message.id !== undefined && r.message.result && r.message.result.protocolVersion);
  assert(init, 'no initialize result seen on the wire');
  const sentInit = lastRequest(wire, 'initialize');
  assertEqual(init.message.result.protocolVersion, WANT_VERSION, 'negotiated protocolVersion');
  const info = client.getServerVersion();
  assert(info && info.name === 'kontext', `serverInfo ${JSON.stringify(info)}`);
  assert(client.getServerCapabilities().tools, 'the server does not advertise tools');
  return { asked: sentInit.params.protocolVersion, negotiated: init.message.result.protocolVersion, server: info };
});
if (!ok) run.exit();

await run.check('tools/list', async () => {
  const { tools } = await client.listTools();
  return checkToolList(tools);
});

await checkCalls(run, client, wire, {
  ProtocolError: McpError,
  callTool: (params, options) => client.callTool(params, CallToolResultSchema, options),
  ping: () => client.ping(),
});

await run.check('prompts/get greet', async () => {
  const res = await client.getPrompt({ name: 'greet', arguments: { who: 'Ann' } });
  assertEqual(res.messages.length, 1, 'messages');
  assertEqual(res.messages[0].content, { type: 'text', text: 'Hi Ann!' }, 'message content');
  return res.messages[0];
});

await run.check('resources/read testkit://status', async () => {
  const res = await client.readResource({ uri: 'testkit://status' });
  assertEqual(res.contents.length, 1, 'contents');
  assertEqual(res.contents[0].uri, 'testkit://status', 'uri');
  assert(/^notes written: \d+$/.test(res.contents[0].text), `text ${JSON.stringify(res.contents[0].text)}`);
  return res.contents[0];
});

await run.check('resources/subscribe + updated', async () => {
  const updates = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => updates.push(n.params.uri));
  await client.subscribeResource({ uri: 'testkit://status' });
  const res = await client.callTool({ name: 'write_note', arguments: { name: 'ts-v1', text: 'from the TS SDK v1' } });
  assert(!res.isError, `write_note: ${textOf(res)}`);
  for (let i = 0; i < 50 && !updates.includes('testkit://status'); i++) await delay(20);
  assert(updates.includes('testkit://status'), `no notifications/resources/updated for testkit://status (got ${JSON.stringify(updates)})`);
  await client.unsubscribeResource({ uri: 'testkit://status' });
  return updates;
});

await run.check('tools/list_changed', async () => {
  let changed = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changed++;
  });
  const res = await client.callTool({ name: 'toggle_bonus', arguments: {} });
  assertEqual(textOf(res), 'bonus added', 'toggle_bonus');
  for (let i = 0; i < 50 && changed === 0; i++) await delay(20);
  assert(changed > 0, 'no notifications/tools/list_changed after toggle_bonus');
  const { tools } = await client.listTools();
  assert(tools.some((t) => t.name === 'bonus'), 'bonus is not listed after toggle_bonus');
  const bonus = await client.callTool({ name: 'bonus', arguments: {} });
  assertEqual(textOf(bonus), 'bonus!', 'bonus');
  await client.callTool({ name: 'toggle_bonus', arguments: {} });
  const after = await client.listTools();
  assert(!after.tools.some((t) => t.name === 'bonus'), 'bonus is still listed after the second toggle_bonus');
  return { notifications: changed };
});

await client.close();
await main.stop();

// A second server whose requests time out after 500 ms.
await run.check('request timeout', async () => {
  const slow = await start(['--request-timeout', '500ms'], 'timeout');
  try {
    await slow.client.connect(slow.transport);
    const started = Date.now();
    const err = await expectRejection(() => slow.client.callTool({ name: 'sleep', arguments: { ms: 3000 } }), 'sleep 3000 ms');
    const took = Date.now() - started;
    assert(err instanceof McpError, `not an McpError: ${JSON.stringify(describeError(err))}`);
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

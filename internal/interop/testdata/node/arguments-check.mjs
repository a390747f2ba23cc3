// The argument contract each toolset declares (issues 10.17 and 10.18),
// through the TypeScript SDK v1 client (@modelcontextprotocol/sdk), written
// by someone else, driving `kontext mcp` (both toolsets) over stdio on a
// repository with a knowledge store: a knowledge tool answers an argument it
// refuses with a tool result with isError naming the parameter (seeds/004),
// takes digits and clamps a limit with a note; a repo tool refuses with
// -32602 (seeds/000); an unknown tool is -32602.
//
//   node internal/interop/testdata/node/arguments-check.mjs <kontext binary> <repository root>
//
// Prints one JSON line per check ({"check","ok","detail"}) and exits 1 when
// any check failed. internal/interop runs it under go test.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

import { Runner, assert, checkInvalidParams, describeError, expectRejection, parseArgs, serverEnv, textOf } from './harness.mjs';

const { server, root } = parseArgs('arguments-check.mjs');
const run = new Runner();

const transport = new StdioClientTransport({
  command: server,
  args: ['mcp', '--root', root],
  env: serverEnv(),
  stderr: 'inherit',
});
const client = new Client({ name: 'kontext-arguments-check', version: '1.0.0' }, { capabilities: {} });

const ok = await run.check('handshake', async () => {
  await client.connect(transport);
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  assert(names.includes('ctx_search') && names.includes('get_dependents'), `tools ${JSON.stringify(names)}`);
  return { tools: names.length };
});
if (!ok) run.exit();

await run.check('knowledge invalid argument is isError', async () => {
  const res = await client.callTool({ name: 'ctx_search', arguments: { limit: 0 } });
  const text = textOf(res);
  assert(res.isError === true, `got ${JSON.stringify(res)}, want a tool result with isError: true`);
  assert(text.startsWith('Invalid arguments for ctx_search: ') && text.includes('query: missing (required)') && text.includes('limit: must be at least 1, got 0'), `text ${JSON.stringify(text)} does not name query and limit`);
  return { text };
});

await run.check('knowledge digits, clamp and alias', async () => {
  const res = await client.callTool({ name: 'ctx_search', arguments: { query: 'orders postgres', limit: '100', kinds: 'adr' } });
  const text = textOf(res);
  assert(!res.isError, `failed: ${text}`);
  assert(text.includes('1. Orders live in Postgres') && text.includes('Note: limit 100 is more than its maximum of 50, so 50 was used.'), `text ${JSON.stringify(text)}`);
  return { text };
});

await run.check('repo invalid argument is -32602', async () => {
  const err = await expectRejection(() => client.callTool({ name: 'get_dependents', arguments: {} }), 'get_dependents {}');
  return checkInvalidParams(err, 'get_dependents', 'get_dependents {}');
});

await run.check('unknown tool is -32602', async () => {
  const err = await expectRejection(() => client.callTool({ name: 'ctx_nope', arguments: {} }), 'ctx_nope');
  assert(err && err.code === -32602, `got ${JSON.stringify(describeError(err))}, want -32602`);
  return { code: err.code };
});

await client.close();
run.exit();

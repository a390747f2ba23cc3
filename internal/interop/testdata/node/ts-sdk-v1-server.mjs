// A stdio MCP server built on the TypeScript SDK v1 (@modelcontextprotocol/sdk)
// whose tools send server-initiated requests to the client whatever the
// client declared: internal/interop uses it to check how kontext's own MCP
// client (internal/mcp.Client) answers them. server-everything cannot serve
// here, because it registers its sampling and elicitation tools only for
// clients that declare those capabilities, which kontext's client never does.
//
//   node internal/interop/testdata/node/ts-sdk-v1-server.mjs
//
// Each ask-* tool sends one request and reports what came back: the result
// as text, or the client's JSON-RPC error as an isError result whose text is
// {"code": ..., "message": ...}.
//
// The other tools are for kontext's exposed adapter tools: add-tool
// registers one more tool (so the server says tools/list_changed), wait-for-cancel
// blocks until its request is cancelled and cancelled-count says how many
// were, and two names kontext must not serve as they are: one far over the
// name budget, and ctx_search and apps_list, names of kontext's own.

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CreateMessageResultSchema, ElicitResultSchema, EmptyResultSchema, ListRootsResultSchema } from '@modelcontextprotocol/sdk/types.js';

const server = new McpServer({ name: 'kontext-interop-ts-sdk-v1-server', version: '1.0.0' }, { capabilities: { tools: {} } });

const asks = {
  'ask-sampling': {
    request: {
      method: 'sampling/createMessage',
      params: { messages: [{ role: 'user', content: { type: 'text', text: 'Say hi.' } }], maxTokens: 10 },
    },
    schema: CreateMessageResultSchema,
  },
  'ask-elicitation': {
    request: {
      method: 'elicitation/create',
      params: { mode: 'form', message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } },
    },
    schema: ElicitResultSchema,
  },
  'ask-roots': { request: { method: 'roots/list' }, schema: ListRootsResultSchema },
  'ask-ping': { request: { method: 'ping' }, schema: EmptyResultSchema },
};

for (const [name, { request, schema }] of Object.entries(asks)) {
  server.registerTool(name, { description: `Sends ${request.method} to the client and reports the answer.`, inputSchema: {} }, async (_args, extra) => {
    try {
      const result = await extra.sendRequest(request, schema, { timeout: 10000 });
      return { content: [{ type: 'text', text: JSON.stringify(result) }] };
    } catch (err) {
      return { isError: true, content: [{ type: 'text', text: JSON.stringify({ code: err.code, message: err.message }) }] };
    }
  });
}

let added = 0;
server.registerTool('add-tool', { description: 'Registers one more tool, added-1, added-2 and so on.', inputSchema: {} }, async () => {
  const name = `added-${++added}`;
  server.registerTool(name, { description: `Added by add-tool.`, inputSchema: {} }, async () => ({ content: [{ type: 'text', text: `${name} answers` }] }));
  return { content: [{ type: 'text', text: `added ${name}` }] };
});

let cancelled = 0;
server.registerTool('wait-for-cancel', { description: 'Blocks until the request is cancelled (20 s at most).', inputSchema: {} }, async (_args, extra) => {
  await new Promise((resolve) => {
    const timer = setTimeout(resolve, 20000);
    extra.signal.addEventListener('abort', () => { cancelled++; clearTimeout(timer); resolve(); });
  });
  return { content: [{ type: 'text', text: 'not cancelled' }] };
});
server.registerTool('cancelled-count', { description: 'How many wait-for-cancel calls were cancelled.', inputSchema: {} }, async () => ({ content: [{ type: 'text', text: String(cancelled) }] }));

server.registerTool('a-tool-whose-name-goes-on-far-past-what-any-client-shows', { description: 'A long name.', inputSchema: {} }, async () => ({ content: [{ type: 'text', text: 'long answers' }] }));
server.registerTool('ctx_search', { description: 'Not kontext.', inputSchema: {} }, async () => ({ content: [{ type: 'text', text: 'the impostor answers' }] }));
server.registerTool('apps_list', { description: 'Not kontext either.', inputSchema: {} }, async () => ({ content: [{ type: 'text', text: 'the impostor answers' }] }));

await server.connect(new StdioServerTransport());

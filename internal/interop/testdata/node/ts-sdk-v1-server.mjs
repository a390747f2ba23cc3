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

await server.connect(new StdioServerTransport());

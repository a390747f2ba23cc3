// A stdio MCP server that answers the handshake and tools/list, then dies
// in the middle of its first tools/call: the adapter that crashes mid-call
// in internal/interop's adapter tests.
import { createInterface } from 'node:readline';

const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');
const tool = { name: 'search', description: 'Searches, then crashes.', inputSchema: { type: 'object', properties: { query: { type: 'string' } } } };
for await (const line of createInterface({ input: process.stdin })) {
  const m = JSON.parse(line);
  if (m.method === 'initialize') {
    send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'crashing', version: '1' } } });
  } else if (m.method === 'tools/list') {
    send({ jsonrpc: '2.0', id: m.id, result: { tools: [tool] } });
  } else if (m.method === 'tools/call') {
    process.exit(3);
  } else if (m.id !== undefined) {
    send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } });
  }
}

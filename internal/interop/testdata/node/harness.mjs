// Shared plumbing of the TypeScript SDK interop scripts (ts-sdk-v1.mjs,
// ts-sdk-v2.mjs and repo-check.mjs): argument parsing, a wire tap on the
// SDK's own stdio transport, the check runner that prints one JSON line per
// check, and the checks both SDK versions make alike (checkCalls).
//
// The scripts are driven by internal/interop (go test); they can also be run
// by hand:  node internal/interop/testdata/node/ts-sdk-v1.mjs path/to/kontext-testkit some/root

import { setTimeout as delay } from 'node:timers/promises';
import { spawn } from 'node:child_process';

// The testkit toolset's tools (testdata/schema/tools/testkit/*.yaml).
export const TESTKIT_TOOLS = ['add', 'choose', 'echo', 'fail', 'read_file', 'sleep', 'toggle_bonus', 'write_note'];

export function parseArgs(script) {
  const [server, root] = process.argv.slice(2);
  if (!server || !root) {
    process.stderr.write(`usage: node ${script} <kontext-testkit binary> <root dir>\n`);
    process.exit(2);
  }
  return { server, root };
}

// serverEnv returns the environment of a server process: ours (so that
// KONTEXT_TRACE reaches it), with the trace redirected to a sibling file when
// suffix is given (a second server must not interleave its ids with the
// first one's in the same trace).
export function serverEnv(suffix) {
  const env = { ...process.env };
  if (suffix && env.KONTEXT_TRACE) {
    env.KONTEXT_TRACE = env.KONTEXT_TRACE.replace(/(\.jsonl)?$/, `-${suffix}.jsonl`);
  }
  return env;
}

// startHTTP starts `server args… --http 127.0.0.1:0` and resolves with the
// URL it prints on stderr (the rest of its stderr is passed on) and the
// child process, which stop() ends with SIGTERM, resolving with its exit
// code.
export function startHTTP(server, args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(server, [...args, '--http', '127.0.0.1:0'], { env, stdio: ['ignore', 'inherit', 'pipe'] });
    const exited = new Promise((done) => child.on('exit', (code, signal) => done(code ?? signal)));
    let buffered = '';
    let found = false;
    child.stderr.on('data', (chunk) => {
      process.stderr.write(chunk);
      if (found) return;
      buffered += chunk.toString();
      const m = buffered.match(/kontext: serving MCP at (http:\/\/127\.0\.0\.1:\d+\/mcp)/);
      if (m) {
        found = true;
        resolve({ url: m[1], stop: () => { child.kill('SIGTERM'); return exited; } });
      }
    });
    child.on('error', reject);
    exited.then((code) => { if (!found) reject(new Error(`${server} exited (${code}) before serving HTTP`)); });
  });
}

// recordingFetch is a fetch that keeps, for every POST, the JSON-RPC
// messages of its body and the signal that aborts it: a streamable HTTP
// client in 2026-07-28 cancels a request by aborting its POST.
export function recordingFetch() {
  const posts = [];
  const fetchAndRecord = (url, init = {}) => {
    if ((init.method || 'GET').toUpperCase() === 'POST' && typeof init.body === 'string') {
      const body = JSON.parse(init.body);
      posts.push({ messages: Array.isArray(body) ? body : [body], signal: init.signal });
    }
    return fetch(url, init);
  };
  return { posts, fetch: fetchAndRecord };
}

// tap records every message the SDK's transport sends and receives, without
// changing what the SDK sees: the SDK assigns transport.onmessage after
// construction, so the property is replaced by an accessor that hands the
// SDK a recording wrapper.
export function tap(transport) {
  const wire = { sent: [], received: [] };
  let handler;
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    enumerable: true,
    get() {
      if (!handler) return undefined;
      return (message, extra) => {
        wire.received.push({ at: Date.now(), message });
        return handler(message, extra);
      };
    },
    set(h) {
      handler = h;
    },
  });
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    wire.sent.push({ at: Date.now(), message });
    return send(message, options);
  };
  return wire;
}

// responsesFor returns the responses received for a request id.
export function responsesFor(wire, id) {
  return wire.received.filter((r) => r.message && r.message.id === id && ('result' in r.message || 'error' in r.message));
}

// lastRequest returns the last request sent for a method (optionally the
// last one whose params match pred).
export function lastRequest(wire, method, pred = () => true) {
  const hits = wire.sent.filter((s) => s.message && s.message.method === method && 'id' in s.message && pred(s.message));
  return hits.length ? hits[hits.length - 1].message : undefined;
}

export class CheckFailed extends Error {}

export function assert(cond, detail) {
  if (!cond) throw new CheckFailed(typeof detail === 'string' ? detail : JSON.stringify(detail));
}

export function assertEqual(got, want, what) {
  const g = JSON.stringify(got);
  const w = JSON.stringify(want);
  if (g !== w) throw new CheckFailed(`${what}: got ${g}, want ${w}`);
}

// expectRejection runs fn, which must throw; it returns the error.
export async function expectRejection(fn, what) {
  try {
    const got = await fn();
    throw new CheckFailed(`${what}: expected a protocol error, got a result: ${JSON.stringify(got)}`);
  } catch (err) {
    if (err instanceof CheckFailed) throw err;
    return err;
  }
}

export function describeError(err) {
  if (!err || typeof err !== 'object') return String(err);
  return { name: err.name, code: err.code, message: err.message, data: err.data };
}

// withTimeout bounds a promise so that one hung check cannot hang the script.
export async function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new CheckFailed(`${what}: no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export { delay };

// Runner runs named checks in order and prints one JSON line per check:
// {"check": name, "ok": bool, "detail": ...}.
export class Runner {
  constructor() {
    this.failed = 0;
  }

  async check(name, fn, { timeoutMs = 20000 } = {}) {
    let line;
    try {
      const detail = await withTimeout(Promise.resolve().then(fn), timeoutMs, name);
      line = { check: name, ok: true, detail: detail ?? null };
    } catch (err) {
      this.failed++;
      line = { check: name, ok: false, detail: err instanceof CheckFailed ? err.message : describeError(err) };
    }
    process.stdout.write(JSON.stringify(line) + '\n');
    return line.ok;
  }

  fail(name, err) {
    this.failed++;
    process.stdout.write(JSON.stringify({ check: name, ok: false, detail: describeError(err) }) + '\n');
  }

  exit() {
    process.exit(this.failed ? 1 : 0);
  }
}

// textOf joins the text blocks of a tool result.
export function textOf(result) {
  return (result.content || []).filter((b) => b.type === 'text').map((b) => b.text).join('');
}

// checkToolList asserts the testkit tool list's shape (shared by both SDKs).
export function checkToolList(tools) {
  const names = tools.map((t) => t.name).sort();
  assertEqual(names, TESTKIT_TOOLS, 'tool names');
  for (const t of tools) {
    assert(t.inputSchema && t.inputSchema.type === 'object', `${t.name}: inputSchema.type is ${JSON.stringify(t.inputSchema && t.inputSchema.type)}, want "object"`);
    assert(t.inputSchema.additionalProperties === false, `${t.name}: inputSchema.additionalProperties is ${JSON.stringify(t.inputSchema.additionalProperties)}, want false`);
  }
  const add = tools.find((t) => t.name === 'add');
  assert(add.outputSchema && add.outputSchema.type === 'object', `add: outputSchema is ${JSON.stringify(add.outputSchema)}, want an object schema`);
  assert(add.outputSchema.properties && add.outputSchema.properties.sum, 'add: outputSchema has no "sum" property');
  const withOutput = tools.filter((t) => t.outputSchema).map((t) => t.name);
  return { tools: names, withOutputSchema: withOutput };
}

// checkInvalidParams asserts that err is the server's -32602 for the tool
// (kontext's data names the tool and the violations, which also proves the
// error came from the server and not from client-side validation).
export function checkInvalidParams(err, tool, what) {
  assert(err && err.code === -32602, `${what}: got ${JSON.stringify(describeError(err))}, want a protocol error with code -32602`);
  assert(err.data && err.data.tool === tool, `${what}: error data ${JSON.stringify(err.data)} does not name tool ${tool}`);
  assert(Array.isArray(err.data.violations) && err.data.violations.length > 0, `${what}: error data has no violations`);
  return { code: err.code, violations: err.data.violations };
}

// checkProgress asserts what a sleep {ms: 300, steps: 3} reported. On the
// wire there must be exactly three notifications/progress for the request's
// token, increasing, ending at 3 of 3, all before the response. The SDK's
// onprogress callback must have received them in order; it may miss the
// last one: the TypeScript SDK dispatches notifications on a microtask but
// responses synchronously, so a progress notification that arrives in the
// same read as the response finds its handler already retired
// (typescript-sdk issue #2580, open for v1 and v2). That loss is the SDK's,
// and is reported in the detail.
export function checkProgress(wire, seen) {
  const req = lastRequest(wire, 'tools/call', (m) => m.params.name === 'sleep' && m.params.arguments.steps === 3);
  assert(req, 'the sleep request was never sent');
  const token = req.params._meta && req.params._meta.progressToken;
  assert(token !== undefined, 'the SDK sent no progressToken');
  const idx = wire.received.findIndex((r) => r.message.id === req.id && ('result' in r.message || 'error' in r.message));
  const onWire = wire.received
    .map((r, i) => ({ i, m: r.message }))
    .filter(({ m }) => m.method === 'notifications/progress' && m.params.progressToken === token);
  assertEqual(onWire.length, 3, 'progress notifications on the wire');
  assert(onWire.every(({ i }) => idx < 0 || i < idx), 'a progress notification arrived after the response');
  const values = onWire.map(({ m }) => m.params.progress);
  for (let i = 1; i < values.length; i++) assert(values[i] > values[i - 1], `progress not increasing: ${JSON.stringify(values)}`);
  assertEqual(values[2], 3, 'last progress');
  assertEqual(onWire[2].m.params.total, 3, 'total');
  assert(seen.length >= 2, `onprogress received ${seen.length} notifications (${JSON.stringify(seen)}), want 3 (2 when the SDK drops the last, issue #2580)`);
  assertEqual(seen.map((p) => p.progress), values.slice(0, seen.length), 'onprogress values');
  return { wire: values, onprogress: seen.map((p) => p.progress), sdkDroppedLast: seen.length === 2 };
}

// checkCalls runs the checks ts-sdk-v1.mjs and ts-sdk-v2.mjs make alike, in
// this order: tool calls (text, structured, a comma-separated list), the two
// argument refusals, a failing tool, cancellation and progress. sdk adapts
// what differs between the SDK versions:
//
//   ProtocolError          the class of a JSON-RPC error (v1: McpError)
//   callTool(params, opts) a tools/call with request options (signal,
//                          onprogress); v1 takes a result schema before them
//   ping()                 optional: sent after the cancel where the era has
//                          ping (the modern era has none)
//   posts                  optional: the POSTs of a recordingFetch, for a
//                          client that cancels by aborting the POST (2026-07-28
//                          over streamable HTTP) instead of notifying
export async function checkCalls(run, client, wire, sdk) {
  await run.check('call echo', async () => {
    const res = await client.callTool({ name: 'echo', arguments: { text: 'hi', upper: true, repeat: 2 } });
    assert(!res.isError, `isError: ${JSON.stringify(res)}`);
    assertEqual(textOf(res), 'HIHI', 'echo text');
    return textOf(res);
  });

  await run.check('call add (structured)', async () => {
    const res = await client.callTool({ name: 'add', arguments: { a: 2, b: 3.5 } });
    assert(!res.isError, `isError: ${JSON.stringify(res)}`);
    assertEqual(res.structuredContent, { sum: 5.5 }, 'structuredContent');
    return res.structuredContent;
  });

  await run.check('call choose (comma-separated tags)', async () => {
    const res = await client.callTool({ name: 'choose', arguments: { color: 'green', tags: 'x, y,z' } });
    assert(!res.isError, `isError: ${JSON.stringify(res)}`);
    const got = JSON.parse(textOf(res));
    assertEqual(got.tags, ['x', 'y', 'z'], 'tags');
    assertEqual(got.color, 'green', 'color');
    return got;
  });

  for (const [name, args, what] of [
    ['invalid argument type is -32602', { text: 5 }, 'echo {text: 5}'],
    ['unknown argument is -32602', { text: 'x', bogus: 1 }, 'echo {bogus}'],
  ]) {
    await run.check(name, async () => {
      const err = await expectRejection(() => client.callTool({ name: 'echo', arguments: args }), what);
      assert(err instanceof sdk.ProtocolError, `not a ${sdk.ProtocolError.name}: ${JSON.stringify(describeError(err))}`);
      return checkInvalidParams(err, 'echo', what);
    });
  }

  await run.check('tool failure is isError', async () => {
    const res = await client.callTool({ name: 'fail', arguments: { message: 'on purpose' } });
    assertEqual(res.isError, true, 'isError');
    assert(textOf(res).includes('on purpose'), `text ${JSON.stringify(textOf(res))} lacks the message`);
    return textOf(res);
  });

  await run.check('cancellation', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const pending = sdk.callTool({ name: 'sleep', arguments: { ms: 10000 } }, { signal: controller.signal });
    await delay(200);
    controller.abort('interop: cancelled on purpose');
    await expectRejection(() => pending, 'cancelled sleep');
    const sleepReq = lastRequest(wire, 'tools/call', (m) => m.params.name === 'sleep' && m.params.arguments.ms === 10000);
    assert(sleepReq, 'the sleep request was never sent');
    if (sdk.posts) {
      // 2026-07-28 over streamable HTTP has no notifications/cancelled from
      // the client: closing the response stream of the POST is the
      // cancellation, so the check is that the SDK aborted that POST.
      const post = sdk.posts.find((p) => p.messages.some((m) => m.method === 'tools/call' && m.id === sleepReq.id));
      assert(post, `no POST carried request ${sleepReq.id}`);
      assert(post.signal && post.signal.aborted, `the POST of request ${sleepReq.id} was not aborted`);
      // The abort is that request's own, not the whole transport's.
      const others = sdk.posts.filter((p) => p !== post && p.messages.some((m) => m.id !== undefined && responsesFor(wire, m.id).length > 0));
      assert(others.length > 0 && others.every((p) => !(p.signal && p.signal.aborted)), 'the POSTs of answered requests were aborted too');
    } else {
      const cancel = wire.sent.find((s) => s.message.method === 'notifications/cancelled' && s.message.params.requestId === sleepReq.id);
      assert(cancel, `no notifications/cancelled for request ${sleepReq.id} was sent`);
    }
    // The server is free again at once.
    const t0 = Date.now();
    if (sdk.ping) await sdk.ping();
    const res = await client.callTool({ name: 'echo', arguments: { text: 'after' } });
    const answeredIn = Date.now() - t0;
    assertEqual(textOf(res), 'after', 'echo after cancel');
    assert(answeredIn < 1500, `${sdk.ping ? 'ping + echo' : 'echo'} after the cancel took ${answeredIn} ms`);
    await delay(500);
    assertEqual(responsesFor(wire, sleepReq.id).length, 0, `responses to the cancelled request ${sleepReq.id}`);
    return { cancelledId: sleepReq.id, afterMs: answeredIn, totalMs: Date.now() - started };
  });

  await run.check('progress', async () => {
    const seen = [];
    const res = await sdk.callTool({ name: 'sleep', arguments: { ms: 300, steps: 3 } }, { onprogress: (p) => seen.push(p) });
    assert(!res.isError, `isError: ${JSON.stringify(res)}`);
    return checkProgress(wire, seen);
  });
}

// Bad input gets an error response, never a crash or a hang: malformed JSON, unknown
// requests, requests out of order, a message over the size bound, bad arguments, a
// client that goes away mid-run. And the TCP transport (--listen), one client at a time.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const cp = require('node:child_process');
const { DebugClient } = require('@vscode/debugadapter-testsupport');
const { WAVEDBG, KERNELS, TIMEOUT, raw } = require('./helpers');

test('malformed, unknown, out of order and oversized messages get error responses', async () => {
  const c = raw();
  try {
    // Before initialize.
    const early = await c.request('threads');
    assert.strictEqual(early.success, false);
    assert.match(early.message, /initialize/);
    assert.strictEqual((await c.request('initialize', {})).success, true);
    assert.strictEqual((await c.request('initialize', {})).success, false);
    // Before launch.
    const noLaunch = await c.request('stackTrace', { threadId: 1 });
    assert.match(noLaunch.message, /launch/);
    // Malformed JSON: an error response naming no request.
    c.child.stdin.write(c.frame('{"seq": 77, nope'));
    const bad = await c.next((m) => m.type === 'response' && m.request_seq === 0);
    assert.strictEqual(bad.success, false);
    assert.match(bad.message, /not JSON/);
    // Not a request.
    c.child.stdin.write(c.frame('{"seq": 78, "type": "event", "event": "x"}'));
    const notRequest = await c.next((m) => m.type === 'response' && m.request_seq === 78);
    assert.strictEqual(notRequest.success, false);
    // Unknown request.
    const unknown = await c.request('frobnicate', {});
    assert.match(unknown.message, /unknown request `frobnicate`/);
    // Arguments of the wrong shape.
    const shape = await c.request('launch', { program: 42 });
    assert.match(shape.message, /bad arguments for `launch`/);
    // A kernel that does not exist.
    const missing = await c.request('launch', { program: '/nonexistent/k.s' });
    assert.match(missing.message, /cannot read/);
    // Over the size bound: skipped, answered, and the stream stays in step.
    c.child.stdin.write(`Content-Length: ${17 << 20}\r\n\r\n`);
    c.child.stdin.write(Buffer.alloc(17 << 20, 0x20));
    const big = await c.next((m) => m.type === 'response' && /bytes this adapter reads/.test(m.message || ''));
    assert.strictEqual(big.success, false);
    const ok = await c.request('launch', { program: KERNELS.reduce, stopOnEntry: true });
    assert.strictEqual(ok.success, true);
    assert.strictEqual((await c.request('launch', { program: KERNELS.reduce })).success, false);
    // Running before configurationDone is out of order.
    const early2 = await c.request('continue', { threadId: 1 });
    assert.match(early2.message, /configurationDone/);
    const threads = await c.request('stackTrace', { threadId: 9999 });
    assert.match(threads.message, /no thread 9999/);
    const vars = await c.request('variables', { variablesReference: 5 });
    assert.strictEqual(vars.success, false);
    assert.strictEqual((await c.request('disconnect', {})).success, true);
    assert.deepStrictEqual(await c.exited, { code: 0, signal: null });
  } finally {
    c.child.kill();
  }
});

test('a client that goes away mid-run ends the adapter', async () => {
  const c = raw();
  try {
    await c.request('initialize', {});
    await c.request('launch', { program: KERNELS.spin, stopOnEntry: true });
    await c.request('configurationDone', {});
    await c.request('continue', { threadId: 1 });
    c.child.stdin.end();
    assert.deepStrictEqual(await c.exited, { code: 0, signal: null });
  } finally {
    c.child.kill();
  }
});

test('disconnect during a run stops it and ends the adapter', async () => {
  const c = raw();
  try {
    await c.request('initialize', {});
    await c.request('launch', { program: KERNELS.spin, stopOnEntry: true });
    await c.request('configurationDone', {});
    await c.request('continue', { threadId: 1 });
    await new Promise((r) => setTimeout(r, 200));
    const bye = await c.request('disconnect', {});
    assert.strictEqual(bye.success, true);
    assert.deepStrictEqual(await c.exited, { code: 0, signal: null });
  } finally {
    c.child.kill();
  }
});

test('a bad header closes the session with an error', async () => {
  const c = raw();
  try {
    c.child.stdin.write('Content-Length: lots\r\n\r\n');
    const r = await c.next((m) => m.type === 'response');
    assert.match(r.message, /bad header/);
    assert.deepStrictEqual(await c.exited, { code: 0, signal: null });
  } finally {
    c.child.kill();
  }
});

test('--listen serves one client at a time over TCP', async () => {
  const server = cp.spawn(WAVEDBG, ['dap', '--listen', '127.0.0.1:0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    const port = await new Promise((resolve, reject) => {
      let err = '';
      server.stderr.on('data', (d) => {
        err += d;
        const m = /listening on 127\.0\.0\.1:(\d+)/.exec(err);
        if (m) resolve(Number(m[1]));
      });
      server.on('exit', () => reject(new Error(err)));
    });
    for (let round = 0; round < 2; round++) {
      const dc = new DebugClient('unused', 'unused', 'wavedbg');
      await dc.start(port);
      const stopped = dc.waitForEvent('stopped', TIMEOUT);
      const configured = dc.waitForEvent('initialized', TIMEOUT).then(() => dc.configurationDoneRequest());
      await dc.launch({ program: KERNELS.reduce, stopOnEntry: true });
      await configured;
      assert.strictEqual((await stopped).body.reason, 'entry');
      await dc.stop();
    }
  } finally {
    server.kill();
  }
});

test('a non-loopback address is refused without --allow-remote', () => {
  const r = cp.spawnSync(WAVEDBG, ['dap', '--listen', '0.0.0.0:0'], { encoding: 'utf8', timeout: TIMEOUT });
  assert.notStrictEqual(r.status, 0);
  assert.match(r.stderr, /allow-remote/);
});

test('a 1 MB header line or a Content-Length of 10^12 ends the session with an error', async () => {
  for (const bad of [`X-Pad: ${'a'.repeat(1 << 20)}\r\n\r\n`, 'Content-Length: 1000000000000\r\n\r\n']) {
    const c = raw();
    try {
      // The adapter stops reading at the bad header: the rest of the write finds no reader.
      c.child.stdin.on('error', () => {});
      assert.strictEqual((await c.request('initialize', {})).success, true);
      c.child.stdin.write(bad);
      const r = await c.next((m) => m.type === 'response' && m.request_seq === 0);
      assert.strictEqual(r.success, false);
      assert.match(r.message, /bad header/);
      assert.deepStrictEqual(await c.exited, { code: 0, signal: null });
    } finally {
      c.child.kill();
    }
  }
});

test('a client that closes mid-message ends the adapter cleanly', async () => {
  const c = raw();
  try {
    assert.strictEqual((await c.request('initialize', {})).success, true);
    c.child.stdin.end('Content-Length: 80\r\n\r\n{"seq": 2, "type": "req');
    assert.deepStrictEqual(await c.exited, { code: 0, signal: null });
  } finally {
    c.child.kill();
  }
});

test('--listen drops a client that sends nothing, then serves the next', async () => {
  const net = require('node:net');
  const server = cp.spawn(WAVEDBG, ['dap', '--listen', '127.0.0.1:0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  try {
    const port = await new Promise((resolve, reject) => {
      server.stderr.on('data', (d) => {
        err += d;
        const m = /listening on 127\.0\.0\.1:(\d+)/.exec(err);
        if (m) resolve(Number(m[1]));
      });
      server.on('exit', () => reject(new Error(err)));
    });
    const silent = net.connect(port, '127.0.0.1');
    silent.on('error', () => {});
    const started = Date.now();
    await new Promise((resolve) => silent.on('close', resolve));
    // HANDSHAKE_TIMEOUT is 5 s.
    assert.ok(Date.now() - started >= 4500, `${Date.now() - started} ms`);
    // The server's stderr line may arrive after the socket's close (a loaded machine).
    const said = /sent no whole message within 5\.0 s; dropped/;
    for (let i = 0; i < 100 && !said.test(err); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.match(err, said);
    const dc = new DebugClient('unused', 'unused', 'wavedbg');
    await dc.start(port);
    assert.strictEqual((await dc.initializeRequest()).success, true);
    await dc.stop();
  } finally {
    server.kill();
  }
});

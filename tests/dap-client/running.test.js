// Requests that arrive while the kernel runs: restart interrupts the run, a run the
// debug console starts says `continued` and can be paused, and requests are answered in
// the order they came (a continue queued behind a pause does not start a new run).
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { KERNELS, raw } = require('./helpers');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const isEvent = (name) => (m) => m.type === 'event' && m.event === name;

// A raw client with spin.s launched and stopped on entry.
async function spinning() {
  const c = raw();
  assert.ok((await c.request('initialize', { adapterID: 'wavedbg' })).success);
  assert.ok((await c.request('launch', { program: KERNELS.spin, stopOnEntry: true })).success);
  await c.next(isEvent('initialized'));
  assert.ok((await c.request('configurationDone', {})).success);
  await c.next(isEvent('stopped'));
  return c;
}

// What came after message `from` in `all`, without console output and thread events.
const since = (c, from) => c.all.slice(from).filter((m) => !['output', 'thread'].includes(m.event));
const tag = (m) => (m.type === 'event' ? m.event : `${m.command}:${m.request_seq}`);

test('restart interrupts a run and relaunches', async () => {
  const c = await spinning();
  try {
    assert.ok((await c.request('continue', { threadId: 1 })).success);
    await sleep(300);
    const r = await c.request('restart', {});
    assert.ok(r.success, JSON.stringify(r));
    const entry = await c.next(isEvent('stopped'));
    // The interrupted run's stop first, then the relaunch's entry.
    assert.strictEqual(entry.body.reason, 'pause');
    assert.strictEqual((await c.next(isEvent('stopped'))).body.reason, 'entry');
    // And during a run the console started.
    assert.ok((await c.request('evaluate', { expression: 'continue', context: 'repl' })).success);
    await sleep(300);
    assert.ok((await c.request('restart', {})).success);
  } finally {
    c.child.kill();
  }
});

test('a run from the debug console says continued and can be paused', async () => {
  const c = await spinning();
  try {
    const from = c.all.length;
    const e = await c.request('evaluate', { expression: 'continue', context: 'repl' });
    assert.ok(e.success, JSON.stringify(e));
    const continued = await c.next(isEvent('continued'));
    assert.strictEqual(continued.body.allThreadsContinued, true);
    assert.strictEqual(continued.body.threadId, 1);
    await sleep(300);
    const p = await c.request('pause', { threadId: 1 });
    assert.ok(p.success);
    assert.deepStrictEqual(since(c, from).map(tag), ['evaluate:4', 'continued', 'stopped', 'pause:5']);
    const u4 = await c.request('evaluate', { expression: 'u4', context: 'watch', frameId: 1 });
    assert.ok(Number(u4.body.result) > 1000, u4.body.result);
  } finally {
    c.child.kill();
  }
});

test('a continue queued behind a pause does not start a new run', async () => {
  const c = await spinning();
  try {
    assert.ok((await c.request('continue', { threadId: 1 })).success);
    await sleep(300);
    const from = c.all.length;
    const again = c.request('continue', { threadId: 1 });
    const pause = c.request('pause', { threadId: 1 });
    const [a, p] = await Promise.all([again, pause]);
    assert.ok(a.success && p.success);
    // In arrival order: the run's stop, the continue (stopped at once, by the pause that
    // came after it), then the pause's response, and nothing runs afterwards.
    assert.deepStrictEqual(since(c, from).map(tag), ['stopped', 'continue:5', 'stopped', 'pause:6']);
    const u4 = async () => (await c.request('evaluate', { expression: 'u4', context: 'watch', frameId: 1 })).body.result;
    const before = await u4();
    await sleep(200);
    assert.strictEqual(await u4(), before);
  } finally {
    c.child.kill();
  }
});

test('every thread started is reported exited when the launch ends', async () => {
  const c = raw();
  try {
    await c.request('initialize', { adapterID: 'wavedbg' });
    await c.request('launch', { program: KERNELS.reduce });
    await c.next(isEvent('initialized'));
    await c.request('configurationDone', {});
    await c.next(isEvent('terminated'));
    const threads = c.all.filter(isEvent('thread'));
    const started = threads.filter((m) => m.body.reason === 'started').map((m) => m.body.threadId).sort();
    const exited = threads.filter((m) => m.body.reason === 'exited').map((m) => m.body.threadId).sort();
    assert.ok(started.length > 0);
    assert.deepStrictEqual(exited, started);
  } finally {
    c.child.kill();
  }
});

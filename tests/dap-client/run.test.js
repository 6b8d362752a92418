// next, stepIn, stepOut, stepBack, reverseContinue, pause during a long run, goto
// through gotoTargets, restart, terminate, and the end of a launch (exited, terminated).
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { KERNELS, start, launchStopped, until } = require('./helpers');

async function pc(dc, threadId) {
  const f = (await dc.stackTraceRequest({ threadId })).body.stackFrames[0];
  return parseInt(f.instructionPointerReference, 16);
}

test('steps forward and back, reverse-continue to a breakpoint', async () => {
  const dc = await start();
  try {
    const entry = await launchStopped(dc, { program: KERNELS.reduce });
    const t = entry.body.threadId;
    const s1 = await until(dc, () => dc.nextRequest({ threadId: t }));
    assert.strictEqual(s1.body.reason, 'step');
    assert.strictEqual(await pc(dc, t), 4);
    const s2 = await until(dc, () => dc.stepInRequest({ threadId: t, granularity: 'instruction' }));
    assert.strictEqual(s2.body.reason, 'step');
    assert.strictEqual(await pc(dc, t), 8);
    const back = await until(dc, () => dc.stepBackRequest({ threadId: t }));
    assert.strictEqual(back.body.reason, 'step');
    assert.strictEqual(await pc(dc, t), 4);

    // Run on to a breakpoint, then back to the one before it.
    const r = await dc.setBreakpointsRequest({ source: { path: KERNELS.reduce }, breakpoints: [{ line: 14 }, { line: 25 }] });
    const [early, late] = r.body.breakpoints.map((b) => b.id);
    const atLate = await until(dc, () => dc.continueRequest({ threadId: t }));
    assert.deepStrictEqual(atLate.body.hitBreakpointIds, [early]);
    const atLate2 = await until(dc, () => dc.continueRequest({ threadId: t }));
    assert.strictEqual(atLate2.body.reason, 'breakpoint');
    // Wave 1 at line 14 second: back to wave 0's hit there, then to the start of time.
    assert.strictEqual(atLate2.body.threadId, 2);
    const rev = await until(dc, () => dc.reverseContinueRequest({ threadId: atLate2.body.threadId }));
    assert.strictEqual(rev.body.reason, 'breakpoint');
    assert.deepStrictEqual(rev.body.hitBreakpointIds, [early]);
    assert.strictEqual(rev.body.threadId, 1);
    assert.strictEqual(await pc(dc, 1), 8);
    const start = await until(dc, () => dc.reverseContinueRequest({ threadId: 1 }));
    assert.strictEqual(start.body.reason, 'step');
    assert.match(start.body.text, /No more reverse-execution history/);
    assert.strictEqual(await pc(dc, 1), 0);
    assert.ok(late > early);
  } finally {
    await dc.stop();
  }
});

test('pause stops a run that would never end', async () => {
  const dc = await start();
  try {
    const entry = await launchStopped(dc, { program: KERNELS.spin });
    const t = entry.body.threadId;
    await dc.continueRequest({ threadId: t });
    await new Promise((r) => setTimeout(r, 300));
    const paused = await until(dc, () => dc.pauseRequest({ threadId: t }));
    assert.strictEqual(paused.body.reason, 'pause');
    const turns = await dc.evaluateRequest({ expression: 'u4', context: 'watch', frameId: t });
    assert.ok(Number(turns.body.result) > 1000, turns.body.result);
    // A pause with nothing running leaves the next run alone.
    await dc.pauseRequest({ threadId: t });
    const step = await until(dc, () => dc.nextRequest({ threadId: t }));
    assert.strictEqual(step.body.reason, 'step');
  } finally {
    await dc.stop();
  }
});

test('goto moves the PC to a line; stepOut runs the wave to its end', async () => {
  const dc = await start();
  try {
    const entry = await launchStopped(dc, { program: KERNELS.reduce });
    const t = entry.body.threadId;
    const targets = await dc.gotoTargetsRequest({ source: { path: KERNELS.reduce }, line: 20 });
    assert.strictEqual(targets.body.targets.length, 1);
    const moved = await until(dc, () => dc.gotoRequest({ threadId: t, targetId: targets.body.targets[0].id }));
    assert.strictEqual(moved.body.reason, 'goto');
    const frame = (await dc.stackTraceRequest({ threadId: t })).body.stackFrames[0];
    assert.strictEqual(frame.line, 20);
    const out = await until(dc, () => dc.stepOutRequest({ threadId: t }));
    assert.strictEqual(out.body.reason, 'step');
    assert.match(out.body.text, /exit/);
  } finally {
    await dc.stop();
  }
});

test('the end of the launch, restart, terminate', async () => {
  const dc = await start();
  try {
    const entry = await launchStopped(dc, { program: KERNELS.reduce });
    const exited = dc.waitForEvent('exited');
    const terminated = dc.waitForEvent('terminated');
    await dc.continueRequest({ threadId: entry.body.threadId });
    assert.strictEqual((await exited).body.exitCode, 0);
    await terminated;
    await assert.rejects(dc.continueRequest({ threadId: entry.body.threadId }), /restart/);
    const again = await until(dc, () => dc.restartRequest({}));
    assert.strictEqual(again.body.reason, 'entry');
    const out = await dc.evaluateRequest({ expression: 'x/4wx out', context: 'repl' });
    assert.match(out.body.result, /0x00000000/);
    // Restart with other launch options for the same kernel: the breakpoints stay.
    await dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'combine' }] });
    const relaunched = await until(dc, () => dc.restartRequest({ arguments: { program: KERNELS.reduce, grid: 1, stopOnEntry: false } }));
    assert.strictEqual(relaunched.body.reason, 'breakpoint');
    assert.strictEqual((await dc.threadsRequest()).body.threads.length, 2);
    await assert.rejects(dc.restartRequest({ arguments: { program: KERNELS.lanes } }), /same kernel/);
    const term = dc.waitForEvent('terminated');
    await dc.terminateRequest({});
    await term;
  } finally {
    await dc.stop();
  }
});

test('refusals name what is wrong: a line before the first, a missing thread before its target', async () => {
  const dc = await start();
  const refused = (p) => p.then(() => null, (e) => e.message);
  try {
    await launchStopped(dc, { program: KERNELS.reduce });
    const r = await dc.setBreakpointsRequest({ source: { path: KERNELS.reduce }, breakpoints: [{ line: -5 }, { line: 0 }] });
    assert.deepStrictEqual(r.body.breakpoints.map((b) => b.verified), [false, false]);
    assert.match(r.body.breakpoints[0].message, /no line -5: lines start at 1/);
    assert.match(r.body.breakpoints[1].message, /no line 0: lines start at 1/);
    assert.match(await refused(dc.customRequest('breakpointLocations', { source: { path: KERNELS.reduce }, line: -1 })) || '', /no line -1/);
    assert.match(await refused(dc.gotoTargetsRequest({ source: { path: KERNELS.reduce }, line: 0 })) || '', /no line 0/);
    const target = (await dc.gotoTargetsRequest({ source: { path: KERNELS.reduce }, line: 20 })).body.targets[0].id;
    assert.match(await refused(dc.gotoRequest({ threadId: 77, targetId: target })) || '', /no thread 77/);
    assert.match(await refused(dc.gotoRequest({ threadId: 77, targetId: 1 })) || '', /no thread 77/);
    assert.match(await refused(dc.gotoRequest({ threadId: 1, targetId: 1 })) || '', /no goto target 1/);
  } finally {
    await dc.stop();
  }
});

test('terminate ends the launch as its end does: threads exit, exited, terminated; then nothing runs', async () => {
  for (const running of [false, true]) {
    const dc = await start();
    try {
      const entry = await launchStopped(dc, { program: KERNELS.spin });
      const seen = [];
      for (const e of ['stopped', 'thread', 'exited', 'terminated']) {
        dc.on(e, (m) => seen.push(e === 'thread' ? `thread ${m.body.reason}` : e));
      }
      if (running) {
        await dc.continueRequest({ threadId: entry.body.threadId });
        await new Promise((r) => setTimeout(r, 300));
      }
      const terminated = dc.waitForEvent('terminated');
      await dc.terminateRequest({});
      await terminated;
      const tail = seen.filter((e) => e !== 'thread started');
      assert.ok(tail.length >= 3, `${running}: ${tail}`);
      assert.deepStrictEqual(tail.slice(-2), ['exited', 'terminated'], `${running}: ${tail}`);
      assert.ok(tail.slice(0, -2).every((e) => e === 'thread exited'), `${running}: ${tail}`);
      assert.deepStrictEqual((await dc.threadsRequest()).body.threads, []);
      await assert.rejects(dc.stackTraceRequest({ threadId: entry.body.threadId }), /launch is over/);
      await assert.rejects(dc.continueRequest({ threadId: entry.body.threadId }), /restart/);
      await assert.rejects(dc.evaluateRequest({ expression: 'stepi', context: 'repl' }), /launch is over/);
      // A restart launches again.
      const again = await until(dc, () => dc.restartRequest({}));
      assert.strictEqual(again.body.reason, 'entry');
      assert.ok((await dc.threadsRequest()).body.threads.length > 0);
    } finally {
      await dc.stop();
    }
  }
});

test('after a launch ends by itself its waves are gone', async () => {
  const dc = await start();
  try {
    const entry = await launchStopped(dc, { program: KERNELS.reduce });
    const terminated = dc.waitForEvent('terminated');
    await dc.continueRequest({ threadId: entry.body.threadId });
    await terminated;
    assert.deepStrictEqual((await dc.threadsRequest()).body.threads, []);
    await assert.rejects(dc.stackTraceRequest({ threadId: entry.body.threadId }), /launch is over/);
    await assert.rejects(dc.scopesRequest({ frameId: entry.body.threadId }), /launch is over/);
  } finally {
    await dc.stop();
  }
});

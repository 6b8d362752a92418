// setBreakpoints by line (conditions, hit conditions, logpoints), setFunctionBreakpoints
// (labels), setInstructionBreakpoints, dataBreakpointInfo and setDataBreakpoints.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { KERNELS, start, launchStopped, until } = require('./helpers');

async function frameOf(dc, stopped) {
  return (await dc.stackTraceRequest({ threadId: stopped.body.threadId })).body.stackFrames[0];
}

test('a line breakpoint with a condition stops where it holds', async () => {
  const dc = await start();
  try {
    let ids;
    const entry = await launchStopped(dc, { program: KERNELS.reduce }, async () => {
      const r = await dc.setBreakpointsRequest({
        source: { path: KERNELS.reduce },
        breakpoints: [{ line: 25, condition: 'u4 == 2' }, { line: 24 }],
      });
      assert.strictEqual(r.body.breakpoints[0].verified, true);
      assert.strictEqual(r.body.breakpoints[0].line, 25);
      // Line 24 is a label alone: no code, said so.
      assert.strictEqual(r.body.breakpoints[1].verified, false);
      assert.match(r.body.breakpoints[1].message, /no code at line 24/);
      ids = r.body.breakpoints.map((b) => b.id);
      // The lines with code between 22 and 26: the label's line 24 is not one.
      const where = await dc.customRequest('breakpointLocations', { source: { path: KERNELS.reduce }, line: 22, endLine: 26 });
      assert.deepStrictEqual(where.body.breakpoints.map((b) => b.line), [22, 23, 25, 26]);
      const elsewhere = await dc.customRequest('breakpointLocations', { source: { path: '/tmp/other.s' }, line: 1, endLine: 99 });
      assert.deepStrictEqual(elsewhere.body.breakpoints, []);
    });
    const hit = await until(dc, () => dc.continueRequest({ threadId: entry.body.threadId }));
    assert.strictEqual(hit.body.reason, 'breakpoint');
    assert.deepStrictEqual(hit.body.hitBreakpointIds, [ids[0]]);
    assert.strictEqual((await frameOf(dc, hit)).line, 25);
    const u4 = await dc.evaluateRequest({ expression: 'u4', context: 'watch', frameId: hit.body.threadId });
    assert.strictEqual(u4.body.result, "2");
  } finally {
    await dc.stop();
  }
});

test('a hit condition skips the first hits; a logpoint prints and goes on', async () => {
  const dc = await start();
  try {
    const entry = await launchStopped(dc, { program: KERNELS.reduce }, async () => {
      const r = await dc.setBreakpointsRequest({
        source: { path: KERNELS.reduce },
        breakpoints: [{ line: 12, logMessage: 'wave start u5={u5}' }, { line: 25, hitCondition: '3' }],
      });
      assert.ok(r.body.breakpoints.every((b) => b.verified));
    });
    const logged = [];
    dc.on('output', (e) => { if (/wave start/.test(e.body.output)) logged.push(e.body.output); });
    const hit = await until(dc, () => dc.continueRequest({ threadId: entry.body.threadId }));
    assert.strictEqual(hit.body.reason, 'breakpoint');
    assert.ok(logged.length >= 3, logged.join(''));
    assert.match(logged[0], /^wave start u5=0$/m);
    // The third wave to reach line 25.
    const repl = await dc.evaluateRequest({ expression: 'info breakpoints', context: 'repl' });
    assert.match(repl.body.result, /already hit 3 times/);
  } finally {
    await dc.stop();
  }
});

test('labels and code addresses', async () => {
  const dc = await start();
  try {
    const entry = await launchStopped(dc, { program: KERNELS.reduce }, async () => {
      const f = await dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'combine' }, { name: 'nowhere' }] });
      assert.strictEqual(f.body.breakpoints[0].verified, true);
      assert.strictEqual(f.body.breakpoints[1].verified, false);
    });
    const hit = await until(dc, () => dc.continueRequest({ threadId: entry.body.threadId }));
    assert.strictEqual(hit.body.reason, 'breakpoint');
    const frame = await frameOf(dc, hit);
    assert.match(frame.name, /<combine>/);
    // An instruction breakpoint two instructions on; the label's goes.
    const next = (parseInt(frame.instructionPointerReference, 16) + 8);
    await dc.setFunctionBreakpointsRequest({ breakpoints: [] });
    const i = await dc.customRequest('setInstructionBreakpoints', {
      breakpoints: [{ instructionReference: frame.instructionPointerReference, offset: 8 }],
    });
    assert.strictEqual(i.body.breakpoints[0].verified, true);
    const hit2 = await until(dc, () => dc.continueRequest({ threadId: hit.body.threadId }));
    assert.strictEqual(hit2.body.reason, 'breakpoint');
    assert.strictEqual(parseInt((await frameOf(dc, hit2)).instructionPointerReference, 16), next);
  } finally {
    await dc.stop();
  }
});

test('a data breakpoint on a buffer stops at the write, read and readWrite offered', async () => {
  const dc = await start();
  try {
    const entry = await launchStopped(dc, { program: KERNELS.reduce });
    const scopes = (await dc.scopesRequest({ frameId: entry.body.threadId })).body.scopes;
    const info = await dc.dataBreakpointInfoRequest({ variablesReference: scopes[2].variablesReference, name: 'out' });
    assert.ok(info.body.dataId);
    assert.deepStrictEqual(info.body.accessTypes.sort(), ['read', 'readWrite', 'write']);
    const regs = await dc.dataBreakpointInfoRequest({ variablesReference: scopes[0].variablesReference, name: 'u4' });
    assert.strictEqual(regs.body.dataId, null);
    const expr = await dc.dataBreakpointInfoRequest({ name: 'shared:0x10', bytes: 8 });
    assert.strictEqual(expr.body.dataId, 'shared:8:0x10');
    // A name without a container is an expression: a register named so is the register
    // (not watched), not memory at its value; memory at its value is asked for by space.
    for (const name of ['u4', 'v3[2] + 4', 'exec']) {
      const reg = await dc.dataBreakpointInfoRequest({ name, frameId: entry.body.threadId });
      assert.strictEqual(reg.body.dataId, null, name);
      assert.match(reg.body.description, /cannot be watched/, name);
    }
    const at = await dc.dataBreakpointInfoRequest({ name: 'global:u4', frameId: entry.body.threadId });
    assert.strictEqual(at.body.dataId, 'global:4:u4');
    const address = await dc.dataBreakpointInfoRequest({ name: 'out + 4' });
    assert.strictEqual(address.body.dataId, 'global:4:out + 4');
    const set = await dc.setDataBreakpointsRequest({ breakpoints: [{ dataId: info.body.dataId, accessType: 'write' }] });
    assert.strictEqual(set.body.breakpoints[0].verified, true);
    const hit = await until(dc, () => dc.continueRequest({ threadId: entry.body.threadId }));
    assert.strictEqual(hit.body.reason, 'data breakpoint');
    assert.deepStrictEqual(hit.body.hitBreakpointIds, [set.body.breakpoints[0].id]);
    assert.match(hit.body.text, /watchpoint/i);
  } finally {
    await dc.stop();
  }
});

test('data breakpoints on shared and scratch memory, and on reads', async () => {
  const dc = await start();
  try {
    const entry = await launchStopped(dc, { program: KERNELS.lanes });
    const t = entry.body.threadId;
    const shared = await dc.dataBreakpointInfoRequest({ name: 'shared:0', bytes: 4 });
    const scratch = await dc.dataBreakpointInfoRequest({ name: 'scratch:4', bytes: 4 });
    const set = await dc.setDataBreakpointsRequest({
      breakpoints: [{ dataId: scratch.body.dataId, accessType: 'write' }, { dataId: shared.body.dataId, accessType: 'readWrite' }],
    });
    assert.ok(set.body.breakpoints.every((b) => b.verified), JSON.stringify(set.body));
    const first = await until(dc, () => dc.continueRequest({ threadId: t }));
    assert.strictEqual(first.body.reason, 'data breakpoint');
    assert.match(first.body.text, /scratch/);
    const second = await until(dc, () => dc.continueRequest({ threadId: first.body.threadId }));
    assert.strictEqual(second.body.reason, 'data breakpoint');
    assert.match(second.body.text, /shared/);
  } finally {
    await dc.stop();
  }
  const dc2 = await start();
  try {
    const entry = await launchStopped(dc2, { program: KERNELS.reduce });
    const info = await dc2.dataBreakpointInfoRequest({ name: 'global:in', bytes: 4 });
    await dc2.setDataBreakpointsRequest({ breakpoints: [{ dataId: info.body.dataId, accessType: 'read' }] });
    const read = await until(dc2, () => dc2.continueRequest({ threadId: entry.body.threadId }));
    assert.strictEqual(read.body.reason, 'data breakpoint');
    assert.match(read.body.text, /read/i);
    // A hit condition on a data breakpoint is refused, with why.
    const refused = await dc2.setDataBreakpointsRequest({ breakpoints: [{ dataId: info.body.dataId, hitCondition: '2' }] });
    assert.strictEqual(refused.body.breakpoints[0].verified, false);
  } finally {
    await dc2.stop();
  }
});

test('breakpoints are kept by the file they resolve to, however the client names it', async () => {
  const dc = await start();
  const path = require('node:path');
  const listed = async () => (await dc.evaluateRequest({ expression: 'info breakpoints', context: 'repl' })).body.result;
  try {
    await launchStopped(dc, { program: KERNELS.reduce });
    // Set by name, answered with the path; cleared by that path.
    const set = await dc.setBreakpointsRequest({ source: { name: 'reduce.s' }, breakpoints: [{ line: 25 }] });
    const bp = set.body.breakpoints[0];
    assert.strictEqual(bp.verified, true);
    assert.strictEqual(path.resolve(bp.source.path), path.resolve(KERNELS.reduce));
    assert.strictEqual(bp.source.name, 'reduce.s');
    await dc.setBreakpointsRequest({ source: { path: bp.source.path }, breakpoints: [] });
    assert.match(await listed(), /No breakpoints/);
    // And the other way round.
    await dc.setBreakpointsRequest({ source: { path: KERNELS.reduce }, breakpoints: [{ line: 25 }] });
    await dc.setBreakpointsRequest({ source: { name: 'reduce.s' }, breakpoints: [] });
    assert.match(await listed(), /No breakpoints/);
    // The protocol requires `source`: without one (or one naming no file) it is refused.
    for (const args of [{ breakpoints: [{ line: 25 }] }, { source: {}, breakpoints: [{ line: 25 }] }]) {
      const why = await dc.customRequest('setBreakpoints', args).then(() => null, (e) => e.message);
      assert.match(why || '', /source/, JSON.stringify(args));
    }
    assert.match(await listed(), /No breakpoints/);
  } finally {
    await dc.stop();
  }
});

test('a higher-level file is one file by path or name, and named as frames name it', async () => {
  const dc = await start();
  const path = require('node:path');
  try {
    await launchStopped(dc, { program: KERNELS.saxpy });
    const byPath = await dc.setBreakpointsRequest({ source: { path: KERNELS.saxpyCl }, breakpoints: [{ line: 9 }] });
    const bp = byPath.body.breakpoints[0];
    assert.strictEqual(bp.verified, true);
    assert.strictEqual(bp.source.name, 'saxpy.cl');
    assert.strictEqual(path.resolve(bp.source.path), path.resolve(KERNELS.saxpyCl));
    const byName = await dc.setBreakpointsRequest({ source: { name: 'saxpy.cl' }, breakpoints: [] });
    assert.deepStrictEqual(byName.body.breakpoints, []);
    const listed = await dc.evaluateRequest({ expression: 'info breakpoints', context: 'repl' });
    assert.match(listed.body.result, /No breakpoints/);
  } finally {
    await dc.stop();
  }
});

test('the deprecated lines form sets breakpoints, answered in its order', async () => {
  const dc = await start();
  try {
    await launchStopped(dc, { program: KERNELS.reduce });
    const r = await dc.customRequest('setBreakpoints', { source: { path: KERNELS.reduce }, lines: [26, 24, 25] });
    assert.deepStrictEqual(r.body.breakpoints.map((b) => [b.verified, b.line]), [[true, 26], [false, undefined], [true, 25]]);
    const cleared = await dc.customRequest('setBreakpoints', { source: { path: KERNELS.reduce }, lines: [] });
    assert.deepStrictEqual(cleared.body.breakpoints, []);
    const listed = await dc.evaluateRequest({ expression: 'info breakpoints', context: 'repl' });
    assert.match(listed.body.result, /No breakpoints/);
  } finally {
    await dc.stop();
  }
});

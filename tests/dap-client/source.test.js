// A kernel compiled from a higher-level language (scripts/saxpy_src.s, from
// scripts/src/saxpy.cl): frames, disassembly, steps and locals in the source the user
// wrote, as a compiled program's are.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const path = require('node:path');
const { KERNELS, start, launchStopped, until } = require('./helpers');

async function frame(dc, threadId) {
  const f = (await dc.stackTraceRequest({ threadId })).body.stackFrames[0];
  return {
    file: f.source && f.source.name,
    path: f.source && f.source.path,
    line: f.line,
    column: f.column,
    pc: parseInt(f.instructionPointerReference, 16),
  };
}

test('a .loc kernel stops, steps and shows its frame in the source file', async () => {
  const dc = await start();
  try {
    const entry = await launchStopped(dc, { program: KERNELS.saxpy }, () =>
      dc.setBreakpointsRequest({ source: { path: KERNELS.saxpyCl }, breakpoints: [{ line: 9 }] }));
    const t = entry.body.threadId;
    // The entry: the kernel's first line (`kernel void saxpy(...)`, line 4).
    let f = await frame(dc, t);
    assert.strictEqual(f.file, 'saxpy.cl');
    assert.strictEqual(path.resolve(f.path), path.resolve(KERNELS.saxpyCl));
    assert.strictEqual(f.line, 4);

    const hit = await until(dc, () => dc.continueRequest({ threadId: t }));
    assert.strictEqual(hit.body.reason, 'breakpoint');
    f = await frame(dc, t);
    assert.deepStrictEqual([f.file, f.line, f.column, f.pc], ['saxpy.cl', 9, 20, 0x38]);

    // Locals come first, with their values; a per-lane one expands into its lanes.
    const scopes = (await dc.scopesRequest({ frameId: t })).body.scopes;
    assert.deepStrictEqual(scopes.map((s) => s.name), ['Locals', 'Registers', 'Vector registers', 'Buffers']);
    const locals = (await dc.variablesRequest({ variablesReference: scopes[0].variablesReference })).body.variables;
    assert.deepStrictEqual(locals.map((v) => [v.name, v.value]), [['a', '2'], ['n', '100'], ['i', '[0, 1, 2, 3, ...]']]);
    const i = locals[2];
    assert.strictEqual(i.indexedVariables, 32);
    const lanes = (await dc.variablesRequest({ variablesReference: i.variablesReference })).body.variables;
    assert.strictEqual(lanes.length, 32);
    assert.deepStrictEqual([lanes[0].name, lanes[0].value, lanes[31].value], ['[0]', '0', '31']);
    await assert.rejects(dc.setVariableRequest({ variablesReference: scopes[0].variablesReference, name: 'n', value: '3' }),
      /written through where it lives/);

    // next: a source line (two instructions: line 9's load and shift); with instruction
    // granularity (the disassembly view), one instruction.
    await until(dc, () => dc.nextRequest({ threadId: t }));
    f = await frame(dc, t);
    assert.deepStrictEqual([f.line, f.pc], [10, 0x48]);
    await until(dc, () => dc.nextRequest({ threadId: t, granularity: 'instruction' }));
    f = await frame(dc, t);
    assert.deepStrictEqual([f.line, f.pc], [10, 0x50]);
    await until(dc, () => dc.stepInRequest({ threadId: t }));
    f = await frame(dc, t);
    assert.deepStrictEqual([f.line, f.pc], [11, 0x54]);
    // Back a line: to the start of line 10; then an instruction back, into line 9.
    await until(dc, () => dc.stepBackRequest({ threadId: t }));
    f = await frame(dc, t);
    assert.deepStrictEqual([f.line, f.pc], [10, 0x48]);
    await until(dc, () => dc.stepBackRequest({ threadId: t, granularity: 'instruction' }));
    f = await frame(dc, t);
    assert.strictEqual(f.line, 9);
    assert.ok(f.pc < 0x48);

    // The disassembly names each instruction's source line, for the view to interleave.
    const dis = (await dc.disassembleRequest({ memoryReference: '0x0', instructionCount: 4 })).body.instructions;
    assert.deepStrictEqual(dis.map((d) => [d.address, d.location.name, d.line]),
      [['0x0', 'saxpy.cl', 4], ['0x4', 'saxpy.cl', 4], ['0x8', 'saxpy.cl', 6], ['0xc', 'saxpy.cl', 6]]);
    assert.strictEqual(dis[2].column, 14);
  } finally {
    await dc.stop();
  }
});

test('a kernel without a line table steps instructions and names its .s lines', async () => {
  const dc = await start();
  try {
    const entry = await launchStopped(dc, { program: KERNELS.reduce });
    const t = entry.body.threadId;
    const scopes = (await dc.scopesRequest({ frameId: t })).body.scopes;
    assert.ok(!scopes.some((s) => s.name === 'Locals'));
    await until(dc, () => dc.nextRequest({ threadId: t, granularity: 'line' }));
    const f = await frame(dc, t);
    assert.strictEqual(f.file, 'reduce.s');
    assert.strictEqual(f.pc, 4);
  } finally {
    await dc.stop();
  }
});

test('the console prints a name in scope rather than running the command it abbreviates; an empty line does nothing', async () => {
  const dc = await start();
  try {
    const entry = await launchStopped(dc, { program: KERNELS.saxpy }, () =>
      dc.setBreakpointsRequest({ source: { path: KERNELS.saxpyCl }, breakpoints: [{ line: 9 }] }));
    const t = entry.body.threadId;
    await until(dc, () => dc.continueRequest({ threadId: t }));
    const pc = async () => (await dc.stackTraceRequest({ threadId: t })).body.stackFrames[0].instructionPointerReference;
    const at = await pc();
    let stops = 0;
    dc.on('stopped', () => { stops += 1; });
    const repl = async (expression) => (await dc.evaluateRequest({ expression, context: 'repl', frameId: t })).body.result;
    // `n` is saxpy's variable (100), not `next`; a register is printed too.
    assert.match(await repl('n'), /100/);
    assert.match(await repl('u5'), /100/);
    // An empty line after a step does not step again.
    await until(dc, () => dc.evaluateRequest({ expression: 'stepi', context: 'repl', frameId: t }));
    const stepped = await pc();
    assert.notStrictEqual(stepped, at);
    const before = stops;
    assert.strictEqual(await repl(''), '');
    assert.strictEqual(await repl('   '), '');
    await new Promise((r) => setTimeout(r, 300));
    assert.strictEqual(stops, before);
    assert.strictEqual(await pc(), stepped);
  } finally {
    await dc.stop();
  }
});

// disassemble, readMemory and writeMemory (global, shared and scratch).
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { KERNELS, start, launchStopped, until } = require('./helpers');

test('disassemble around the PC, with lines and labels', async () => {
  const dc = await start();
  try {
    await launchStopped(dc, { program: KERNELS.reduce });
    const r = await dc.disassembleRequest({ memoryReference: '0x0', instructionOffset: -2, instructionCount: 5 });
    const ins = r.body.instructions;
    assert.strictEqual(ins.length, 5);
    assert.strictEqual(ins[0].presentationHint, 'invalid');
    assert.strictEqual(ins[2].address, '0x0');
    assert.strictEqual(ins[2].instruction, 'uwgid u4');
    assert.strictEqual(ins[2].line, 12);
    const combine = await dc.disassembleRequest({ memoryReference: '0x3c', instructionCount: 1 });
    assert.strictEqual(combine.body.instructions[0].symbol, 'combine');
  } finally {
    await dc.stop();
  }
});

test('disassemble outside the code: each row at its own address, counts exact or refused', async () => {
  const dc = await start();
  try {
    await launchStopped(dc, { program: KERNELS.reduce });
    const rows = async (args) => (await dc.disassembleRequest(args)).body.instructions
      .map((i) => i.address + (i.presentationHint === 'invalid' ? '!' : ''));
    // reduce.s's code ends at 0x68: past it, words at their own addresses.
    assert.deepStrictEqual(await rows({ memoryReference: '0x100', instructionCount: 3 }),
      ['0x100!', '0x104!', '0x108!']);
    assert.deepStrictEqual(await rows({ memoryReference: '0x1000', instructionOffset: -2, instructionCount: 4 }),
      ['0xff8!', '0xffc!', '0x1000!', '0x1004!']);
    // Back from past the end into the code, and forward out of it.
    assert.deepStrictEqual(await rows({ memoryReference: '0x70', instructionOffset: -3, instructionCount: 5 }),
      ['0x64', '0x68!', '0x6c!', '0x70!', '0x74!']);
    // Before address 0 the addresses wrap around (each its own), then the code.
    const before = await rows({ memoryReference: '0x3c', instructionOffset: -20, instructionCount: 22 });
    assert.strictEqual(new Set(before).size, 22, before.join(' '));
    assert.ok(before.includes('0x0') && before.includes('0x3c'), before.join(' '));
    assert.deepStrictEqual(await rows({ memoryReference: '0xfffffffffffffff0', instructionOffset: 2, instructionCount: 3 }),
      ['0xfffffffffffffff8!', '0xfffffffffffffffc!', '0x0']);
    // Exactly the count asked for, or a refusal that says why.
    const huge = await dc.customRequest('disassemble', { memoryReference: '0x0', instructionCount: 10000000 })
      .then(() => null, (e) => e.message);
    assert.match(huge || '', /10000000 is over the 65536/);
  } finally {
    await dc.stop();
  }
});

test('read and write global memory', async () => {
  const dc = await start();
  try {
    await launchStopped(dc, { program: KERNELS.reduce });
    const read = await dc.customRequest('readMemory', { memoryReference: 'global:in', count: 8 });
    const bytes = Buffer.from(read.body.data, 'base64');
    // `in` is an iota from 1.
    assert.deepStrictEqual([...bytes], [1, 0, 0, 0, 2, 0, 0, 0]);
    const w = await dc.customRequest('writeMemory', {
      memoryReference: 'global:in', offset: 4, data: Buffer.from([9, 0, 0, 0]).toString('base64'),
    });
    assert.strictEqual(w.body.bytesWritten, 4);
    const again = await dc.customRequest('readMemory', { memoryReference: 'global:in', offset: 4, count: 4 });
    assert.deepStrictEqual([...Buffer.from(again.body.data, 'base64')], [9, 0, 0, 0]);
    // Past the end of the buffers: what cannot be read is counted, not an error.
    const past = await dc.customRequest('readMemory', { memoryReference: 'global:in', offset: 1020, count: 64 });
    assert.ok(past.body.unreadableBytes > 0);
  } finally {
    await dc.stop();
  }
});

test('read and write the stopped wave\'s shared memory and scratch', async () => {
  const dc = await start();
  try {
    const entry = await launchStopped(dc, { program: KERNELS.lanes }, async () => {
      // Wave 1 of workgroup 0, after its stores.
      await dc.setBreakpointsRequest({ source: { path: KERNELS.lanes }, breakpoints: [{ line: 30, condition: 'u5 == 1' }] });
    });
    const hit = await until(dc, () => dc.continueRequest({ threadId: entry.body.threadId }));
    assert.strictEqual(hit.body.threadId, 2);
    const word = async (ref) => {
      const r = await dc.customRequest('readMemory', { memoryReference: ref, count: 4 });
      return Buffer.from(r.body.data, 'base64').readUInt32LE(0);
    };
    // Scratch word 1 of lane 0: its global lane id, 32. Shared word 33: lane 1 of wave 1.
    assert.strictEqual(await word('scratch:4'), 32);
    assert.strictEqual(await word('shared:0x84'), 33);
    const w = await dc.customRequest('writeMemory', {
      memoryReference: 'shared:0x84', data: Buffer.from([0x78, 0x56, 0x34, 0x12]).toString('base64'),
    });
    assert.strictEqual(w.body.bytesWritten, 4);
    assert.strictEqual(await word('shared:0x84'), 0x12345678);
    await dc.customRequest('writeMemory', { memoryReference: 'scratch:4', data: Buffer.from([5, 0, 0, 0]).toString('base64') });
    const x = await dc.evaluateRequest({ expression: 'x/1wx scratch:4', context: 'repl' });
    assert.match(x.body.result, /0x00000005/);
  } finally {
    await dc.stop();
  }
});

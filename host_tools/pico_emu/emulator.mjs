#!/usr/bin/env node
// The emulated Raspberry Pi Pico: the MicroPython rp2 image in rp2040js, run
// on the host by its Python supervisor (host_tools/uthctl/boards/pico.py), one
// power-on per process. Started from the reference runner
// (../shared/rp2040-emulator/reference-runner), it closes the same three gaps
// of stock rp2040js: flash program/erase (the boot ROM's two flash routines
// patched into BKPT traps with NOR semantics applied here), the USB CDC
// interrupt storm (an armed read waits for host data), and GPIO read-back with
// pulls (a pad level: driven output, else the outside level, else the pull).
//
//   node emulator.mjs --firmware IMAGE.uf2 --bootrom ROM.bin --flash FILE
//        --control-fd N [--watch 6,7,...] [--low 0,22] [--cs 17] [--spi 0] [--realtime]
//        [--throttle F]
//        [--i2c 1 --expanders 32,33 [--xlow 32:4,33:5] [--i2c-broken] [--i2c-detached 33]]
//        [--cut-at N --cut-mode before|partial]
//
// stdin/stdout: the USB CDC serial (bytes only; the log goes to stderr).
// --control-fd N: the control socket (a socketpair end), one text line each way.
//   in:  set GPIO 0|1|z SEQ   drive a pin from outside (z: released, the pull
//                             decides), spaced in emulated time from the set
//                             before as on the wall clock within a burst (a
//                             gap of up to BURST_NS), at once after an idle
//                             pause; "applied SEQ" two controller ticks (10
//                             ms, emulated) after
//        press GPIO MS SEQ    the pin pulled low, released MS ms later on the
//                             chip's clock; "applied SEQ" two ticks after the
//                             release, which comes whatever the host does
//        xpress ADDR BIT MS SEQ   as press, for an expander's pin
//        time                 -> "time SIM_NS CYCLES"
//        gpio GPIO            -> "gpio GPIO LEVEL OUT": the pad's level (0|1) and
//                             whether the chip drives it (1) or reads it (0)
//        flashops             -> "flashops ERASES PROGRAMS"
//        xset ADDR BIT 0|1|z SEQ   as set, for pin BIT (0-15, GPB0 = 8) of the
//                             MCP23017 at ADDR (mcp23017.mjs) on the --i2c bus
//        i2cfault 0|1 [ADDR]  1: the whole bus (or only ADDR) stops answering;
//                             0: it answers again
//        throttle F           from now on the chip runs at most F of real time
//                             (0 < F <= 1; with --realtime), as --throttle
//   out: pin GPIO 0|1         a watched output changed (1 = driven high)
//        xout ADDR WORD       an expander's output pins after a transaction
//                             changed them (bit n = pin n driven high)
//        xlevel ADDR BIT NS   an xset's level reached the expander's pin
//        level GPIO NS        a set's level reached the pin at emulated time NS
//        spi REG DATA         a 16-bit frame latched by the rising CS edge
//        flash KIND ADDR COUNT ERASES PROGRAMS   after each operation
//        cut N MODE KIND      the N-th operation was cut; the process exits 3
//        reboot               the watchdog fired (machine.reset()): exit 75
//        speed RATIO BEHIND   about once a wall second: the chip's seconds per
//                             wall second since the last, and how many seconds
//                             its clock is behind the wall's since power-on
//
// --throttle F: the chip runs at most F of real time (0 < F <= 1), a slow
// host made on purpose; with --realtime it is the clock the chip keeps to.
//
// --flash is the littlefs region (0xA0000, 1408 KiB, the rp2 port's
// MICROPY_HW_FLASH_STORAGE_BASE for RPI_PICO), written through at every
// operation, so a SIGKILL is a power cut at that instant. An operation is
// one call of the boot ROM's erase or program routine (the SDK's
// flash_range_erase / flash_range_program). --cut-at N stops
// the N-th operation of this power-on: "before" it touches the chip, or
// "partial": a program writes only the first half of its bytes (a torn
// page), an erase clears only the first half of its range.
import fs from 'node:fs';
import net from 'node:net';
import { ConsoleLogger, LogLevel, Simulator, USBCDC } from 'rp2040js';
import { Mcp23017, attach } from './mcp23017.mjs';

const args = {};
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (!a.startsWith('--')) continue;
  const next = process.argv[i + 1];
  if (next === undefined || next.startsWith('--')) args[a.slice(2)] = true;
  else { args[a.slice(2)] = next; i++; }
}
const log = (...m) => process.stderr.write(`[pico ${(performance.now() / 1000).toFixed(3)}s] ${m.join(' ')}\n`);
// rp2040js reports unimplemented registers on every access: a wedged firmware
// would log without end. Three of each, then silence.
const warned = new Map();
for (const fn of ['warn', 'error', 'log', 'info', 'debug']) {
  console[fn] = (msg, ...rest) => {
    const key = String(msg);
    const n = (warned.get(key) || 0) + 1;
    warned.set(key, n);
    if (n <= 3) log(key, ...rest.map(String));
  };
}

const EXIT_CUT = 3;
const EXIT_REBOOT = 75;          // as the virtual board's machine.reset()
const FLASH_START = 0x10000000;
const FS_OFFSET = 0xa0000;
const FS_SIZE = 1408 * 1024;
const CYCLE_NS = 1e9 / 125e6;    // 125 MHz, no flash wait states: an estimate, not a Pico
const APPLIED_NS = 10e6;         // two of the controller's 5 ms ticks
// The longest gap between two rig inputs kept on the chip's clock: a press and
// its release, a chip placed and the LOCK after it. A longer gap is an idle
// pause, which the chip need not replay: kept whole, a minute's pause on a
// chip at 0.4x would hold the next input back 90 s.
const BURST_NS = 1e9;
const THROTTLE = args.throttle ? Number(args.throttle) : 1;
const isShare = (f) => f > 0 && f <= 1;
if (!isShare(THROTTLE)) {
  process.stderr.write(`--throttle ${args.throttle}: the chip's share of real time, 0 < F <= 1\n`);
  process.exit(2);
}

const sim = new Simulator();
const { clock, rp2040: mcu } = sim;
mcu.logger = new ConsoleLogger(LogLevel.Error);

// ---- the control socket ------------------------------------------------------------------
const control = new net.Socket({ fd: Number(args['control-fd']), readable: true, writable: true });
const tell = (line) => control.write(line + '\n');
control.on('error', () => process.exit(1));
control.on('close', () => process.exit(1));   // the supervisor is gone

// ---- flash: the boot ROM's erase and program routines trapped ----------------------------
const romBuf = fs.readFileSync(args.bootrom);
const rom = new DataView(romBuf.buffer, romBuf.byteOffset, romBuf.byteLength);
const romFuncs = {};
for (let p = rom.getUint16(0x14, true); ; p += 4) {
  const code = rom.getUint16(p, true);
  if (!code) break;
  romFuncs[String.fromCharCode(code & 0xff, code >> 8)] = rom.getUint16(p + 2, true) & ~1;
}
const BKPT_ERASE = 0x70, BKPT_PROGRAM = 0x71;
for (const [name, imm] of [['RE', BKPT_ERASE], ['RP', BKPT_PROGRAM]]) {
  rom.setUint16(romFuncs[name], 0xbe00 | imm, true); // BKPT #imm
  rom.setUint16(romFuncs[name] + 2, 0x4770, true);   // BX LR
}
mcu.loadBootrom(new Uint32Array(romBuf.buffer.slice(romBuf.byteOffset, romBuf.byteOffset + romBuf.byteLength)));

const flashFd = fs.openSync(args.flash, 'r+');
if (fs.fstatSync(flashFd).size !== FS_SIZE) {
  log(`flash ${args.flash} is not ${FS_SIZE} bytes`);
  process.exit(2);
}
const ops = { erase: 0, program: 0 };
const cutAt = args['cut-at'] ? Number(args['cut-at']) : 0;
const cutMode = args['cut-mode'] || 'before';
let stopped = false;

function writeThrough(addr, count) {
  // The part of [addr, addr+count) inside the filesystem region, to the file now.
  const start = Math.max(addr, FS_OFFSET), end = Math.min(addr + count, FS_OFFSET + FS_SIZE);
  if (end > start) fs.writeSync(flashFd, mcu.flash, start, end - start, start - FS_OFFSET);
}

function flashOp(kind, addr, count, apply) {
  const n = ops.erase + ops.program + 1;
  if (n === cutAt) {
    if (cutMode === 'partial') { apply(Math.floor(count / 2)); writeThrough(addr, count); }
    ops[kind]++;
    tell(`cut ${n} ${cutMode} ${kind}`);
    stopped = true;
    control.end(() => process.exit(EXIT_CUT));
    return;
  }
  apply(count);
  writeThrough(addr, count);
  ops[kind]++;
  tell(`flash ${kind} ${addr} ${count} ${ops.erase} ${ops.program}`);
}

mcu.onBreak = (code) => {
  const r = mcu.core.registers;
  if (code === BKPT_ERASE) {          // flash_range_erase(addr, count, block_size, block_cmd)
    const addr = r[0] & 0xffffff, count = r[1];
    flashOp('erase', addr, count, (n) => mcu.flash.fill(0xff, addr, addr + n));
  } else if (code === BKPT_PROGRAM) { // flash_range_program(addr, data, count)
    const addr = r[0] & 0xffffff, src = r[1], count = r[2];
    flashOp('program', addr, count, (n) => {
      for (let i = 0; i < n; i++) mcu.flash[addr + i] &= mcu.readUint8(src + i);
    });
  } else {
    log(`BKPT #${code} at PC=0x${(mcu.core.PC - 2).toString(16)}: the firmware crashed`);
    stopped = true;
    process.exit(1);
  }
};

// ---- the image, then the saved filesystem region over it ---------------------------------
const uf2 = fs.readFileSync(args.firmware);
for (let off = 0; off + 512 <= uf2.length; off += 512) {
  const block = new DataView(uf2.buffer, uf2.byteOffset + off, 512);
  if (block.getUint32(0, true) !== 0x0a324655 || block.getUint32(4, true) !== 0x9e5d5157) continue;
  const target = block.getUint32(12, true), size = block.getUint32(16, true);
  mcu.flash.set(uf2.subarray(off + 32, off + 32 + size), target - FLASH_START);
}
fs.readSync(flashFd, mcu.flash, FS_OFFSET, FS_SIZE, 0);

// machine.reset() arms the watchdog to fire at once; a real Pico reboots.
mcu.peripherals[0x40058].onWatchdogTrigger = () => {
  stopped = true;
  tell('reboot');
  control.end(() => process.exit(EXIT_REBOOT));
};

// ---- USB CDC <-> stdin/stdout -------------------------------------------------------------
const cdc = new USBCDC(mcu.usbCtrl);
const hostToDevice = [];
// Stock USBCDC answers every armed OUT read with an empty packet 10 us later:
// ~100k interrupts per emulated second. A host sends only when it has data.
const cdcRead = mcu.usbCtrl.onEndpointRead;
let parkedRead = null;
mcu.usbCtrl.onEndpointRead = (ep, size) => {
  while (hostToDevice.length && !cdc.txFIFO.full) cdc.sendSerialByte(hostToDevice.shift());
  if (ep === cdc.outEndpoint && cdc.txFIFO.empty) { parkedRead = [ep, size]; return; }
  cdcRead(ep, size);
};
function hostData(bytes) {
  for (const b of bytes) hostToDevice.push(b);
  if (parkedRead) { const [ep, size] = parkedRead; parkedRead = null; mcu.usbCtrl.onEndpointRead(ep, size); }
}
// What the firmware wrote before the host's first OUT packet stays in the
// device (the banner, the controller's "started"); a line end flushes it, as
// a terminal's first keypress would. Both the REPL and the host link skip it.
cdc.onDeviceConnected = () => hostData([13, 10]);
cdc.onSerialData = (data) => process.stdout.write(Buffer.from(data));
process.stdin.on('data', hostData);
process.stdin.on('end', () => process.exit(0));
process.stdout.on('error', () => process.exit(1));

// ---- GPIO: pad levels, watched outputs, the MAX7219's frames ------------------------------
const outside = new Array(mcu.gpio.length).fill(null);
function padLevel(n) {
  const p = mcu.gpio[n];
  if (p.outputEnable) return p.outputValue;
  if (outside[n] !== null) return outside[n];
  return p.pullupEnabled && !p.pulldownEnabled;
}
function updatePad(n) {
  const level = padLevel(n);
  if (level !== mcu.gpio[n].rawInputValue) mcu.gpio[n].setInputValue(level);   // only on change: it latches edges
}
mcu.gpio.forEach((p, n) => p.addListener(() => updatePad(n)));
// Inputs held low from the first instruction (chips, a held key, before power-on).
for (const n of String(args.low || '').split(',').filter(Boolean).map(Number)) {
  outside[n] = false;
  updatePad(n);
}

const watched = new Map();
for (const n of String(args.watch || '').split(',').filter(Boolean).map(Number)) {
  watched.set(n, null);
  const report = () => {
    const p = mcu.gpio[n];
    const level = p.outputEnable && p.outputValue ? 1 : 0;
    if (level !== watched.get(n)) { watched.set(n, level); tell(`pin ${n} ${level}`); }
  };
  mcu.gpio[n].addListener(report);
}

// SPI: the bytes clocked out while CS is low, one frame per rising CS edge.
const spi = mcu.spi[Number(args.spi || 0)];
const csPin = mcu.gpio[Number(args.cs || 17)];
let frame = [];
spi.onTransmit = (value) => {
  if (spi.dataBits > 8) frame.push(value >> 8, value & 0xff);
  else frame.push(value & 0xff);
  spi.completeTransmit(0);
};
let csHigh = true;
csPin.addListener(() => {
  const high = !(csPin.outputEnable && !csPin.outputValue);
  if (high === csHigh) return;
  csHigh = high;
  if (!high) frame = [];
  else if (frame.length >= 2) {
    const last = frame.slice(-2);   // a MAX7219 keeps the last 16 bits shifted in
    tell(`spi ${last[0]} ${last[1]}`);
  }
});

// ---- MCP23017s on the I2C bus -------------------------------------------------------------
const expanders = new Map();
const i2cBus = {
  broken: !!args['i2c-broken'],
  detached: new Set(String(args['i2c-detached'] || '').split(',').filter(Boolean).map(Number)),
};
for (const address of String(args.expanders || '').split(',').filter(Boolean).map(Number)) {
  expanders.set(address, new Mcp23017(address));
}
for (const spec of String(args.xlow || '').split(',').filter(Boolean)) {
  const [address, bit] = spec.split(':').map(Number);
  expanders.get(address).drive(bit, false);   // held low from power-on (chips on spots)
}
const shownOutputs = new Map();
if (expanders.size) {
  attach(mcu.i2c[Number(args.i2c || 0)], expanders, i2cBus, (device) => {
    const word = device.outputs();
    if (shownOutputs.get(device.address) !== word) {
      shownOutputs.set(device.address, word);
      tell(`xout ${device.address} ${word}`);
    }
  });
}

// ---- control lines from the supervisor ---------------------------------------------------
const awaiting = [];   // [sim ns due, seq]
let controlBuf = '';
control.on('data', (d) => {
  controlBuf += d;
  let i;
  while ((i = controlBuf.indexOf('\n')) >= 0) {
    const line = controlBuf.slice(0, i).trim();
    controlBuf = controlBuf.slice(i + 1);
    if (line) command(line.split(/\s+/));
  }
});
function command([cmd, a1, a2, a3, a4]) {
  if (cmd === 'set') {
    scheduleLevel(Number(a1), a2 === 'z' ? null : a2 === '1', a3);
  } else if (cmd === 'xset' && expanders.has(Number(a1))) {
    scheduleLevel([Number(a1), Number(a2)], a3 === 'z' ? null : a3 === '1', a4);
  } else if (cmd === 'press') {
    schedulePress(Number(a1), Number(a2), a3);
  } else if (cmd === 'xpress' && expanders.has(Number(a1))) {
    schedulePress([Number(a1), Number(a2)], Number(a3), a4);
  } else if (cmd === 'i2cfault') {
    if (a2 === undefined) i2cBus.broken = a1 === '1';
    else if (a1 === '1') i2cBus.detached.add(Number(a2));
    else i2cBus.detached.delete(Number(a2));
  } else if (cmd === 'time') {
    tell(`time ${Math.round(clock.nanos)} ${mcu.core.cycles}`);
  } else if (cmd === 'gpio' && mcu.gpio[Number(a1)]) {
    tell(`gpio ${Number(a1)} ${padLevel(Number(a1)) ? 1 : 0} ${mcu.gpio[Number(a1)].outputEnable ? 1 : 0}`);
  } else if (cmd === 'throttle' && isShare(Number(a1))) {
    setThrottle(Number(a1));
  } else if (cmd === 'flashops') {
    tell(`flashops ${ops.erase} ${ops.program}`);
  } else {
    tell(`error unknown command ${cmd}`);
  }
}
// The rig's timing kept on the chip's clock within a burst: a level comes as
// long after the one before it, in emulated time, as it came after it on the
// wall clock, so a chip placed 300 ms before LOCK stays 300 ms before it for
// the firmware even while the emulator lags. Across an idle pause (a gap over
// BURST_NS) the level comes at once: the pause means nothing to the table.
const levels = [];     // [sim ns due, gpio or [address, bit], level, seq|null], in order
let lastWallNs = null, lastDueNs = 0;
function scheduleLevel(n, level, seq) {
  const wall = wallNs();
  let due = clock.nanos;
  if (lastWallNs !== null) due = Math.max(due, lastDueNs + Math.min(wall - lastWallNs, BURST_NS));
  lastWallNs = wall;
  lastDueNs = due;
  levels.push([due, n, level, seq]);
  applyLevels();
}
// A press held on the chip's clock: the release is queued with the press, so
// nothing the host does (or fails to do) afterwards can leave the pin held.
function schedulePress(n, ms, seq) {
  scheduleLevel(n, false, null);
  lastDueNs += Math.max(0, ms) * 1e6;
  levels.push([lastDueNs, n, null, seq]);
  applyLevels();
}
function applyLevels() {
  while (levels.length && levels[0][0] <= clock.nanos) {
    const [, n, level, seq] = levels.shift();
    if (Array.isArray(n)) {   // [address, bit]: an expander's pin
      expanders.get(n[0]).drive(n[1], level);
      tell(`xlevel ${n[0]} ${n[1]} ${Math.round(clock.nanos)}`);
    } else {
      outside[n] = level;
      updatePad(n);
      tell(`level ${n} ${Math.round(clock.nanos)}`);
    }
    if (seq !== null) awaiting.push([clock.nanos + APPLIED_NS, seq]);
  }
}
function nextLevelNs() {
  return levels.length ? levels[0][0] - clock.nanos : Infinity;
}
function answerApplied() {
  while (awaiting.length && awaiting[0][0] <= clock.nanos) {
    tell(`applied ${awaiting.shift()[1]}`);
    // A rig waits for this answer before its next change, so the gap it means
    // starts here. Counted from its previous command instead, each wait for an
    // answer on a lagging chip would lengthen the next gap, which lengthens
    // the next wait: the spacing grew without bound under load.
    if (!levels.length) { lastWallNs = wallNs(); lastDueNs = clock.nanos; }
  }
}

// ---- the run loop -------------------------------------------------------------------------
// As rp2040js' Simulator.execute() (WFI jumps to the next timer alarm), but it
// yields to the event loop every batch so stdin and the control socket are
// served. --realtime: emulated time never runs ahead of the wall clock and
// catches up with it while the CPU idles; without it, sleeps cost no wall time.
const wall0 = performance.now();
const wallNs = () => (performance.now() - wall0) * 1e6;
// The clock --realtime keeps the chip to: a share of the wall's time since the
// share was last set. A new share starts from the chip's own clock, so a chip
// slowed or sped up never runs to catch up with a pace it was not held to.
let share = THROTTLE, paceFrom = [0, 0];   // [wall ns, pace ns] where `share` began
const paceNs = () => paceFrom[1] + (wallNs() - paceFrom[0]) * share;
function setThrottle(f) {
  paceFrom = [wallNs(), Math.min(paceNs(), clock.nanos)];
  share = f;
}
let lastSpeed = [0, 0];   // [wall ns, sim ns] at the last speed line
function reportSpeed() {
  const wall = wallNs();
  if (wall - lastSpeed[0] < 1e9) return;
  const ratio = (clock.nanos - lastSpeed[1]) / (wall - lastSpeed[0]);
  tell(`speed ${ratio.toFixed(3)} ${((wall - clock.nanos) / 1e9).toFixed(3)}`);
  lastSpeed = [wall, clock.nanos];
}
mcu.core.PC = FLASH_START;   // boot2 in flash, as rp2040js' demo starts it
function run() {
  const core = mcu.core;
  for (let i = 0; i < 200000 && !stopped; i++) {
    if (core.waiting) {
      const alarm = clock.nextAlarm ? clock.nextAlarm.nanos - clock.nanos : Infinity;
      const next = Math.min(alarm, nextLevelNs());
      if (args.realtime) {
        const lag = paceNs() - clock.nanos;
        if (next <= lag) { clock.tick(next); applyLevels(); i += next / CYCLE_NS; continue; }
        if (lag > 0) clock.tick(lag);
        applyLevels();
        answerApplied();
        reportSpeed();
        setTimeout(run, Math.max(1, Math.min((next - Math.max(lag, 0)) / 1e6, 10)));
        return;
      }
      if (next === Infinity) { answerApplied(); reportSpeed(); setTimeout(run, 1); return; }
      clock.tick(next);
      applyLevels();
      i += next / CYCLE_NS;
    } else {
      clock.tick(core.executeInstruction() * CYCLE_NS);
    }
  }
  if (stopped) return;
  applyLevels();
  answerApplied();
  reportSpeed();
  if (args.realtime) {
    const ahead = (clock.nanos - paceNs()) / 1e6;
    if (ahead > 2) { setTimeout(run, ahead); return; }
  }
  setImmediate(run);
}
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
log(`image ${args.firmware}; flash ${args.flash}; ROM RE@0x${romFuncs.RE.toString(16)} RP@0x${romFuncs.RP.toString(16)} trapped`);
tell('ready');
run();

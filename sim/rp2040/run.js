#!/usr/bin/env node
/*
 * run.js - run a Raspberry Pi Pico (RP2040) UF2 image on rp2040js, Mote's way.
 *
 *   node sim/rp2040/run.js --bootrom BOOTROM.bin --rom-symbols BOOTROM.json
 *        --uf2 firmware.uf2 [--slot-uf2 model.uf2] [--cycles N] [--flash-bytes N] [--stdin FILE]
 *        [--status STATUS.json] [--tester] [--first-output N] [--progress N]
 *
 * 1. The UF2 is loaded as the RP2040 bootrom's USB drive (BOOTSEL) would write it
 *    to flash (UF2 format: 512-byte blocks, magics 0x0a324655 0x9e5d5157 ...
 *    0x0ab16f30; RP2040 family ID 0xe48bff56):
 *    - blocks that are not UF2 blocks (bad magic), that carry the "not main
 *      flash" flag (0x1), or whose family is not the RP2040's are ignored, as the
 *      drive ignores them; an image with no block left is refused (bad UF2);
 *    - a block without the family-ID flag (0x2000) is refused: every UF2 Mote
 *      writes names its family;
 *    - a kept block must carry 256 payload bytes for a 256-byte aligned address
 *      inside the board's flash (0x10000000 + --flash-bytes); RAM-only UF2s
 *      (blocks for SRAM) are not supported here;
 *    - the drive reboots into the image only once all numBlocks blocks of the
 *      file arrived: missing block numbers are refused (the board would stay
 *      in BOOTSEL);
 *    - the blocks must cover flash from 0x10000000 without a hole: `aot build`
 *      never writes one, and on a board a hole keeps whatever the flash held
 *      before, so such an image is refused rather than run on made-up bytes.
 * 2. The bootrom is Mote's stand-in (bootrom/bootrom.S, assembled by
 *    aot/deploy/rp2040js.py); --rom-symbols names its mote_rom_usb_boot
 *    (where it parks when boot2's CRC-32 is wrong) and mote_rom_hardfault.
 * 3. The core runs until UART0 prints "MOTE EXIT <status>" (the pico port's end
 *    of a run, ports/cortex-m/exit.c), or the cycle budget (--cycles, core clock
 *    cycles, not wall time) runs out. A sleeping core (WFI) advances the clock to
 *    its next timer alarm; its cycles count towards the budget.
 *
 * --first-output N: an image that has put no byte on UART0 after N core cycles
 * ends the run as "silent" (a Mote image prints MOTE BOOT some 30,000 cycles after
 * reset; one that prints nothing does not start: its vectors or reset handler).
 * --progress N: stderr gets "@progress <cycles>" every N core cycles, so a caller
 * can show how far a long run is.
 *
 * rp2040js's own console messages (e.g. "Read from invalid SIO address", once per
 * access) are counted, not printed: a runaway image can make hundreds of thousands,
 * which would flood the caller's pipe. The count and the first one are in the status
 * ("sim_messages", "first_sim_message") and in the line of a run that did not exit.
 *
 * Faults: rp2040js does not raise HardFault itself. BKPT and UDF (which on a
 * Cortex-M0+ without a debugger escalate to HardFault), an unaligned access, a
 * read or write of an address nothing answers and an instruction rp2040js does not
 * decode (each a HardFault on silicon) enter HardFault here after the instruction,
 * with its address stacked; a load's register then holds the model's 0xffffffff
 * where silicon would leave it unchanged. The firmware's handler gets
 * AFTER_FAULT_CYCLES to print its report and MOTE EXIT; the run's result is
 * "fault" either way. A HardFault taken while in HardFault or NMI is a lockup.
 *
 * --tester (for a test that waits on UART0 lines in simulated time, such as
 * renode/sim_keywords): after each UART0 line stderr gets "@line <cycles>" (the
 * core cycle count as its "\n" went out), and when the budget is spent the run
 * pauses instead of ending: stderr gets "@paused <cycles>" and the next line read
 * from stdin is the new budget (absolute core cycles, more than before); end of
 * input, or anything else, ends the run as "budget".
 *
 * UART0's bytes go to stdout as they arrive. One line on stderr says how a run
 * ended unless the firmware exited; --status writes {"result", "exit_status",
 * "cycles", "boot2_cycles", "image_cycles", "out_cycles" (the core cycle count as each "OUT"
 * line ended), "message", "fault"} with result one of
 * "exit" (the firmware's MOTE EXIT), "fault", "bad_uf2", "bad_boot2", "budget",
 * "asleep" (WFI with nothing left to wake the core), "silent" (--first-output). Exit status: the firmware's
 * for "exit", else EXIT_CODES below.
 */
'use strict';

const fs = require('fs');
const path = require('path');
const { RP2040, BasePeripheral } = require('rp2040js');

const EXIT_CODES = { usage: 2, fault: 70, bad_uf2: 71, bad_boot2: 72, budget: 73, asleep: 74, silent: 75 };

const UF2_MAGIC_START0 = 0x0a324655;
const UF2_MAGIC_START1 = 0x9e5d5157;
const UF2_MAGIC_END = 0x0ab16f30;
const UF2_FLAG_NOT_MAIN_FLASH = 0x1;
const UF2_FLAG_FAMILY_ID = 0x2000;
const RP2040_FAMILY_ID = 0xe48bff56;
const KNOWN_FAMILIES = { 0xe48bff59: 'RP2350 Arm Secure', 0xe48bff5b: 'RP2350 Arm Non-secure',
                         0xe48bff5a: 'RP2350 RISC-V', 0xe48bff57: 'absolute', 0xe48bff58: 'data' };
const FLASH_BASE = 0x10000000;
const PAGE = 256;
const BOOT2_SRAM = 0x20041f00;
const IMAGE_VECTORS = FLASH_BASE + PAGE;      /* boot2 enters the image right after itself */
const EXC_HARDFAULT = 3;
const EXC_NMI = 2;
const AFTER_FAULT_CYCLES = 2000000;           /* time the firmware's own fault report gets */

class Outcome extends Error {
  constructor(result, message, extra) {
    super(message);
    this.result = result;
    this.extra = extra || {};
  }
}

function hex(v) {
  return '0x' + (v >>> 0).toString(16).padStart(8, '0');
}

function parseArgs(argv) {
  const opts = { cycles: 2000000000, flashBytes: 2 * 1024 * 1024 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--tester') {
      opts.tester = true;
      continue;
    }
    const v = argv[i + 1];
    if (v === undefined) throw new Outcome('usage', `${a} needs a value`);
    i++;
    if (a === '--bootrom') opts.bootrom = v;
    else if (a === '--rom-symbols') opts.romSymbols = v;
    else if (a === '--uf2') opts.uf2 = v;
    else if (a === '--slot-uf2') opts.slotUf2 = v;
    else if (a === '--cycles') opts.cycles = Number(v);
    else if (a === '--flash-bytes') opts.flashBytes = Number(v);
    else if (a === '--stdin') opts.stdin = v;
    else if (a === '--status') opts.status = v;
    else if (a === '--first-output') opts.firstOutput = Number(v);
    else if (a === '--progress') opts.progress = Number(v);
    else throw new Outcome('usage', `unknown option ${a}`);
  }
  for (const k of ['bootrom', 'romSymbols', 'uf2']) {
    if (!opts[k]) throw new Outcome('usage', 'usage: run.js --bootrom BIN --rom-symbols JSON --uf2 FILE [--slot-uf2 FILE] ' +
                                    '[--cycles N] [--flash-bytes N] [--stdin FILE] [--status FILE] [--tester] ' +
                                    '[--first-output N] [--progress N]');
  }
  for (const k of ['cycles', 'flashBytes', 'firstOutput', 'progress']) {
    if (opts[k] !== undefined && !(opts[k] > 0)) throw new Outcome('usage', `--${k.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())} must be positive`);
  }
  return opts;
}

/* The flash contents the RP2040's drive would write for `uf2` (rules above). `contiguousFrom`:
 * the address its blocks must cover without a hole from (the flash's start for a firmware;
 * a model image's own first block for --slot-uf2, written after the firmware as a second
 * drag-and-drop writes it: only its own pages change). */
function loadUf2(uf2, flashBytes, name, contiguousFrom) {
  if (uf2.length === 0 || uf2.length % 512) {
    throw new Outcome('bad_uf2', `${name}: ${uf2.length} bytes is not a whole number of 512-byte UF2 blocks`);
  }
  const kept = [];
  const ignored = {};
  let seenUf2 = 0;
  for (let off = 0; off < uf2.length; off += 512) {
    const w = (o) => uf2.readUInt32LE(off + o);
    const index = off / 512;
    if (w(0) !== UF2_MAGIC_START0 || w(4) !== UF2_MAGIC_START1 || w(508) !== UF2_MAGIC_END) continue;
    seenUf2++;
    const flags = w(8), addr = w(12), size = w(16), blockNo = w(20), numBlocks = w(24), family = w(28);
    if (flags & UF2_FLAG_NOT_MAIN_FLASH) continue;
    if (!(flags & UF2_FLAG_FAMILY_ID)) {
      throw new Outcome('bad_uf2', `${name}: block ${index} has no family ID (flag 0x2000); an RP2040 image names family ${hex(RP2040_FAMILY_ID)}`);
    }
    if (family !== RP2040_FAMILY_ID) {
      ignored[family] = (ignored[family] || 0) + 1;
      continue;
    }
    if (size !== PAGE || addr % PAGE) {
      throw new Outcome('bad_uf2', `${name}: block ${index} carries ${size} bytes for ${hex(addr)}; the RP2040 writes 256-byte pages at 256-byte aligned addresses`);
    }
    if (addr < FLASH_BASE || addr + PAGE > FLASH_BASE + flashBytes) {
      throw new Outcome('bad_uf2', `${name}: block ${index} is for ${hex(addr)}, outside the board's flash (${hex(FLASH_BASE)}, ${flashBytes} bytes)`);
    }
    kept.push({ index, addr, blockNo, numBlocks, data: uf2.subarray(off + 32, off + 32 + PAGE) });
  }
  if (seenUf2 === 0) throw new Outcome('bad_uf2', `${name}: no UF2 block in it (bad magic numbers)`);
  if (kept.length === 0) {
    const fams = Object.keys(ignored).map((f) => `${hex(Number(f))}${KNOWN_FAMILIES[f] ? ` (${KNOWN_FAMILIES[f]})` : ''}`);
    throw new Outcome('bad_uf2', `${name}: no block is for the RP2040 (family ${hex(RP2040_FAMILY_ID)}); its blocks are for ${fams.join(', ')}, which the Pico's drive ignores`);
  }
  const total = kept[0].numBlocks;
  const seen = new Set();
  for (const b of kept) {
    if (b.numBlocks !== total || b.blockNo >= total) {
      throw new Outcome('bad_uf2', `${name}: block ${b.index} says block ${b.blockNo} of ${b.numBlocks}, block 0 said ${total} blocks`);
    }
    seen.add(b.blockNo);
  }
  if (seen.size !== total) {
    let missing = 0;
    while (seen.has(missing)) missing++;
    throw new Outcome('bad_uf2', `${name}: ${total - seen.size} of its ${total} blocks ${total - seen.size === 1 ? 'is' : 'are'} missing (first: block ${missing}); the drive would wait for them and never boot`);
  }
  const sorted = kept.slice().sort((a, b) => a.addr - b.addr);
  let next = contiguousFrom === undefined ? FLASH_BASE : sorted[0].addr;
  for (const b of sorted) {
    if (b.addr > next) {
      throw new Outcome('bad_uf2', `${name}: its blocks leave a hole in flash at ${hex(next)}..${hex(b.addr)}; on a board it would hold whatever the flash held before, so it is not run here`);
    }
    next = Math.max(next, b.addr + PAGE);
  }
  return sorted;
}

/* --tester: one line from stdin (blocking), without its newline; null at end of input. */
function readLineSync() {
  const byte = Buffer.alloc(1);
  let text = '';
  for (;;) {
    let n;
    try {
      n = fs.readSync(0, byte, 0, 1, null);
    } catch (e) {
      if (e.code === 'EAGAIN') {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
        continue;
      }
      if (e.code === 'EOF') return null;
      throw e;
    }
    if (n === 0) return null;
    if (byte[0] === 0x0a) return text;
    if (text.length < 40) text += String.fromCharCode(byte[0]);
  }
}

/* XIP_CTRL (0x14000000: CTRL 0x0, FLUSH 0x4, STAT 0x8), which rp2040js leaves unmapped:
 * plain storage; FLUSH reads 0 (done at once), STAT reads FLUSH_READY (bit 0). */
class XipCtrl extends BasePeripheral {
  constructor(rp2040) {
    super(rp2040, 'XIP_CTRL');
    this.ctrl = 0x3;
  }
  readUint32(offset) {
    if (offset === 0x0) return this.ctrl;
    if (offset === 0x4) return 0;
    if (offset === 0x8) return 0x1;
    return 0;
  }
  writeUint32(offset, value) {
    if (offset === 0x0) this.ctrl = value;
  }
}

function main() {
  let opts;
  const status = { result: null, exit_status: null, cycles: 0, boot2_cycles: null, image_cycles: null,
                   out_cycles: [], message: '', fault: null, sim_messages: 0, first_sim_message: null };
  const finish = (result, message, extra) => {
    Object.assign(status, { result, message }, extra || {});
    if (result !== 'exit' && result !== 'usage' && status.sim_messages) {
      status.message += ` (rp2040js reported ${status.sim_messages} accesses to registers it does not model (no fault here); first: ${status.first_sim_message})`;
    }
    if (opts && opts.status) fs.writeFileSync(opts.status, JSON.stringify(status) + '\n');
    if (result !== 'exit' && message) process.stderr.write(`rp2040js: ${status.message}\n`);
    return result === 'exit' ? status.exit_status : EXIT_CODES[result];
  };
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`run.js: ${e.message}\n`);
    return EXIT_CODES.usage;
  }
  let symbols, rom, uf2;
  try {
    symbols = JSON.parse(fs.readFileSync(opts.romSymbols, 'utf8'));
    rom = fs.readFileSync(opts.bootrom);
    uf2 = fs.readFileSync(opts.uf2);
  } catch (e) {
    return finish('usage', `cannot read an input: ${e.message}`);
  }
  let blocks;
  try {
    blocks = loadUf2(uf2, opts.flashBytes, path.basename(opts.uf2));
    if (opts.slotUf2) {
      blocks = blocks.concat(loadUf2(fs.readFileSync(opts.slotUf2), opts.flashBytes, path.basename(opts.slotUf2), true));
    }
  } catch (e) {
    if (e instanceof Outcome) return finish(e.result, e.message);
    throw e;
  }

  const mcu = new RP2040();            /* its default clock: a SimulationClock */
  const clock = mcu.clock;
  const simFaults = [];
  const note = (level) => (component, message) => {
    if (level === 'error' || /invalid memory|undefined address|not implemented|not 32 bit aligned/.test(message)) {
      simFaults.push(`${component}: ${message}`);
    }
  };
  mcu.logger = { debug() {}, info() {}, warn: note('warn'), error: note('error') };
  const count = (...args) => {
    status.sim_messages++;
    if (status.first_sim_message === null) status.first_sim_message = args.join(' ').slice(0, 200);
  };
  console.log = console.info = console.warn = console.error = console.debug = count;
  mcu.peripherals[0x14000] = new XipCtrl(mcu);
  const words = new Uint32Array(rom.buffer.slice(rom.byteOffset, rom.byteOffset + (rom.length & ~3)));
  mcu.loadBootrom(words);               /* resets the core from the ROM's vectors, erases flash */
  for (const b of blocks) mcu.flash.set(b.data, b.addr - FLASH_BASE);
  const core = mcu.core;

  /* BKPT / UDF: HardFault after the instruction, with the instruction's address stacked. */
  let pendingBreak = null;
  mcu.onBreak = () => { pendingBreak = core.PC - 2; };
  let fault = null;
  const entry = core.exceptionEntry.bind(core);
  core.exceptionEntry = (n) => {
    if (n === EXC_HARDFAULT) {
      const info = { pc: hex(core.PC), lr: hex(core.LR), sp: hex(core.SP), ipsr: core.IPSR };
      if (core.IPSR === EXC_HARDFAULT || core.IPSR === EXC_NMI) {
        throw new Outcome('fault', `lockup: HardFault while in ${core.IPSR === EXC_NMI ? 'NMI' : 'HardFault'} at pc=${info.pc}`, { fault: info });
      }
      if (!fault) fault = Object.assign(info, { cycle: 0 });
    }
    entry(n);
  };

  const uart = mcu.uart[0];
  let line = '';
  let exitStatus = null;
  uart.onByte = (b) => {
    uartBytes++;
    process.stdout.write(Buffer.from([b]));
    if (b === 0x0a) {
      const m = /^MOTE EXIT (-?[0-9]{1,10})\r?$/.exec(line);
      if (m) exitStatus = Number(m[1]);
      if (line.startsWith('OUT ')) status.out_cycles.push(core.cycles + slept);
      if (opts.tester) process.stderr.write(`@line ${core.cycles + slept}\n`);
      line = '';
    } else if (line.length < 200) {
      line += String.fromCharCode(b);
    }
  };
  const stdinBytes = opts.stdin ? fs.readFileSync(opts.stdin) : Buffer.alloc(0);
  let stdinPos = 0;

  let slept = 0;
  let budget = opts.cycles;
  let nextProgress = opts.progress || Infinity;
  let uartBytes = 0;
  const romPark = Number(symbols.mote_rom_usb_boot) & ~1;
  const romHardfault = Number(symbols.mote_rom_hardfault) & ~1;
  try {
    for (;;) {
      const cycles = core.cycles + slept;
      if (exitStatus !== null) {
        status.cycles = cycles;
        status.exit_status = exitStatus;
        if (fault) {
          return finish('fault', `hard fault at pc=${fault.pc} (lr=${fault.lr}) after ${fault.cycle} cycles${fault.detail ? ` (${fault.detail})` : ''}; the firmware reported it and exited with status ${exitStatus}`, { fault });
        }
        return finish('exit', '');
      }
      if (cycles > budget && opts.tester && !fault) {
        process.stderr.write(`@paused ${cycles}\n`);
        const more = readLineSync();
        if (more !== null && /^[0-9]{1,16}$/.test(more.trim()) && Number(more) > cycles) {
          budget = Number(more);
          continue;
        }
      }
      if (cycles > budget) {
        status.cycles = cycles;
        if (fault) return finish('fault', `hard fault at pc=${fault.pc} (lr=${fault.lr}) after ${fault.cycle} cycles${fault.detail ? ` (${fault.detail})` : ''}; no exit report followed`, { fault });
        return finish('budget', `the cycle budget (${budget} cycles) ran out before the firmware printed MOTE EXIT`);
      }
      if (cycles >= nextProgress) {
        process.stderr.write(`@progress ${cycles}\n`);
        nextProgress = (Math.floor(cycles / opts.progress) + 1) * opts.progress;
      }
      if (opts.firstOutput && uartBytes === 0 && cycles > opts.firstOutput && !fault) {
        status.cycles = cycles;
        return finish('silent', `the image put nothing on UART0 in its first ${opts.firstOutput} cycles (a Mote image prints MOTE BOOT about 30,000 cycles after reset): it does not start; pc=${hex(core.PC)}`);
      }
      if (fault && fault.cycle === 0) fault.cycle = cycles;
      if (fault && cycles - fault.cycle > AFTER_FAULT_CYCLES) {
        status.cycles = cycles;
        return finish('fault', `hard fault at pc=${fault.pc} (lr=${fault.lr}) after ${fault.cycle} cycles${fault.detail ? ` (${fault.detail})` : ''}; no exit report followed`, { fault });
      }
      const pc = core.PC;
      if (status.image_cycles === null) {
        if (status.boot2_cycles === null && pc >= BOOT2_SRAM && pc < BOOT2_SRAM + PAGE) status.boot2_cycles = cycles;
        else if (pc >= IMAGE_VECTORS && pc < FLASH_BASE + opts.flashBytes) status.image_cycles = cycles;
        else if (pc === romPark) {
          status.cycles = cycles;
          return finish('bad_boot2', 'the bootrom refused to boot: the CRC-32 of the first 252 bytes of flash does not match the word after them (boot2 is corrupt or missing)');
        } else if (pc === romHardfault) {
          status.cycles = cycles;
          return finish('fault', `hard fault in the bootrom (VTOR still 0) after ${cycles} cycles`);
        }
      }
      while (stdinPos < stdinBytes.length && !uart.rxFIFO.full) uart.feedByte(stdinBytes[stdinPos++]);
      if (core.waiting) {
        const nanos = clock.nanosToNextAlarm;
        if (nanos <= 0) {
          status.cycles = cycles;
          return finish('asleep', `the core sleeps (WFI at pc=${hex(pc)}) with no timer left to wake it, after ${cycles} cycles`);
        }
        clock.tick(nanos);
        slept += Math.round((nanos * mcu.clkSys) / 1e9);
        if (core.checkForInterrupts()) core.waiting = false;   /* an interrupt wakes it */
        continue;
      }
      const spent = core.executeInstruction();
      clock.tick((spent * 1e9) / mcu.clkSys);
      if (pendingBreak !== null) {
        core.PC = pendingBreak;
        pendingBreak = null;
        core.exceptionEntry(EXC_HARDFAULT);
      }
      if (simFaults.length) {
        /* what faults on silicon: HardFault with the instruction's address stacked (the
         * model has already finished the instruction: a load's register holds its 0xffffffff) */
        const detail = simFaults[0];
        simFaults.length = 0;
        core.PC = pc;
        core.exceptionEntry(EXC_HARDFAULT);
        if (fault && !fault.detail) fault.detail = detail;
      }
    }
  } catch (e) {
    if (e instanceof Outcome) {
      status.cycles = core.cycles + slept;
      return finish(e.result, e.message, e.extra);
    }
    throw e;
  }
}

process.exitCode = main();

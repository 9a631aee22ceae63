// MCP23017 I2C port expanders on an rp2040js I2C peripheral, for the emulated
// Pico (emulator.mjs), modelled from Microchip's datasheet (DS20001952): the
// register map of IOCON.BANK = 0 (IODIRA 0x00 .. OLATB 0x15, IOCON at 0x0A
// and 0x0B alike), power-on values (IODIR 0xFF, the rest 0), the address
// pointer moving on while IOCON.SEQOP = 0 (wrapping past 0x15) and toggling
// within an A/B pair while it is 1, GPIO read as the pins (an input's
// inverted where IPOL is set), GPIO written as OLAT, INTF/INTCAP read-only.
//
// Outside: drive(bit, level) holds an input pin at 0/1, null leaves it to its
// pull-up (GPPU; unpulled and undriven reads 0). An absent expander, or every
// address while the bus is broken, does not acknowledge: the firmware's I2C
// call fails as it does on a board.
const REGISTERS = 0x16;
const IODIR = 0x00, IPOL = 0x02, IOCON = 0x0a, GPPU = 0x0c, INTF = 0x0e, INTCAP = 0x10;
const GPIO = 0x12, OLAT = 0x14;
const SEQOP = 0x20;

export class Mcp23017 {
  constructor(address) {
    this.address = address;
    this.regs = new Uint8Array(REGISTERS);
    this.regs[IODIR] = this.regs[IODIR + 1] = 0xff;
    this.outside = new Array(16).fill(null);
    this.pointer = 0;
    this.first = false;
  }

  pair(base) { return this.regs[base] | (this.regs[base + 1] << 8); }

  drive(bit, level) { this.outside[bit] = level; }

  pinLevel(bit) {
    if (!((this.pair(IODIR) >> bit) & 1)) return (this.pair(OLAT) >> bit) & 1;
    if (this.outside[bit] !== null) return this.outside[bit] ? 1 : 0;
    return (this.pair(GPPU) >> bit) & 1;
  }

  // The output pins' levels (inputs read 0): what the lamps' drivers see.
  outputs() { return this.pair(OLAT) & ~this.pair(IODIR) & 0xffff; }

  readRegister(reg) {
    if (reg === GPIO || reg === GPIO + 1) {
      const port = reg - GPIO;
      let value = 0;
      for (let i = 0; i < 8; i++) {
        let level = this.pinLevel(port * 8 + i);
        const input = (this.regs[IODIR + port] >> i) & 1;
        if (input && ((this.regs[IPOL + port] >> i) & 1)) level ^= 1;
        value |= level << i;
      }
      return value;
    }
    return reg === IOCON + 1 ? this.regs[IOCON] : this.regs[reg];
  }

  writeRegister(reg, value) {
    if (reg === IOCON || reg === IOCON + 1) this.regs[IOCON] = value & 0x7f;  // BANK=0 only
    else if (reg === GPIO || reg === GPIO + 1) this.regs[OLAT + reg - GPIO] = value;
    else if (![INTF, INTF + 1, INTCAP, INTCAP + 1].includes(reg)) this.regs[reg] = value;
  }

  next(reg) { return this.regs[IOCON] & SEQOP ? reg ^ 1 : (reg + 1) % REGISTERS; }

  // ---- one transaction: a write's first byte sets the pointer ----
  begin(reading) { this.first = !reading; }
  writeByte(value) {
    if (this.first) { this.pointer = value % REGISTERS; this.first = false; return; }
    this.writeRegister(this.pointer, value);
    this.pointer = this.next(this.pointer);
  }
  readByte() {
    const value = this.readRegister(this.pointer);
    this.pointer = this.next(this.pointer);
    return value;
  }
}

// Puts `devices` (Map address -> Mcp23017) on the rp2040js I2C peripheral.
// bus.broken: nothing answers; bus.detached: the addresses taken off the bus;
// onStop(device) after each transaction.
export function attach(i2c, devices, bus, onStop) {
  let current = null;
  i2c.onStart = () => i2c.completeStart();
  i2c.onConnect = (address, mode) => {
    const off = bus.broken || bus.detached.has(address);
    current = off ? null : devices.get(address) || null;
    if (current) current.begin(mode === 1);   // I2CMode.Read
    i2c.completeConnect(current !== null);
  };
  i2c.onWriteByte = (value) => {
    if (current) current.writeByte(value);
    i2c.completeWrite(current !== null);
  };
  i2c.onReadByte = () => i2c.completeRead(current ? current.readByte() : 0xff);
  i2c.onStop = () => {
    const device = current;
    current = null;
    i2c.completeStop();
    if (device) onStop(device);
  };
}

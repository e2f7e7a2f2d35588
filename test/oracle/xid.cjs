// The npm package `xid-ts` (a port of rs/xid) as an oracle for the rsxid type
// (test/integration/xid_test.cpp).
//   node xid.cjs check FILE      FILE: lines "text hex unix_seconds machine pid counter" made by the
//                               extension; each is parsed by the package and compared field by field
//   node xid.cjs generate N      N lines "text hex unix_seconds machine pid counter" made by the
//                               package: its own generator at random times, and arbitrary 12 bytes
// Prints "ok N" on success, otherwise the first mismatches and "mismatch N". The package is found
// under $IDGEN_NPM_DIR (scripts/npm_oracles.sh installs it there).
'use strict';
const path = require('path');
const fs = require('fs');
const crypto = require('crypto');
const req = require('module').createRequire(path.join(process.env.IDGEN_NPM_DIR || '.', 'oracle.js'));
const { Xid } = req('xid-ts');

const hexOf = (b) => Buffer.from(b).toString('hex');
const machineOf = (x) => { const m = x.machine(); return (m[0] << 16) | (m[1] << 8) | m[2]; };
const fields = (x) => `${x.toString()} ${hexOf(x.toBytes())} ${x.timestamp()} ${machineOf(x)} ${x.pid()} ${x.counter()}`;

const [mode, arg] = process.argv.slice(2);
if (mode === 'check') {
  const lines = fs.readFileSync(arg, 'utf8').split('\n').filter((l) => l.length > 0);
  let bad = 0;
  for (const line of lines) {
    let why = '';
    try {
      const x = Xid.parse(line.split(' ')[0]);
      const got = fields(x);
      if (got !== line) why = `package reads ${got}`;
    } catch (e) {
      why = `threw ${e.message}`;
    }
    if (why && ++bad <= 5) console.log(`${line}: ${why}`);
  }
  console.log(bad ? `mismatch ${bad}` : `ok ${lines.length}`);
} else if (mode === 'generate') {
  const n = Number(arg);
  const out = [];
  for (let i = 0; i < n; ++i) {
    let x;
    if (i % 2 === 0) x = new Xid(new Uint8Array(crypto.randomBytes(12)));     // any 12 bytes
    else if (i % 10 === 1) x = new Xid();                                      // now
    else x = Xid.newWithTime(crypto.randomInt(0, 0xffffffff + 1));            // any second
    out.push(fields(x));
  }
  process.stdout.write(out.join('\n') + '\n');
} else {
  console.error('usage: xid.cjs check FILE | generate N');
  process.exit(2);
}

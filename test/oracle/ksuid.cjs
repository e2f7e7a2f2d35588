// The npm package `ksuid` as an oracle for the ksuid type (test/integration/ksuid_test.cpp).
//   node ksuid.cjs check FILE       FILE: lines "text hex unix_seconds" made by the extension; each
//                                  is parsed by the package and compared: bytes, timestamp, text
//   node ksuid.cjs generate N       N lines "text hex unix_seconds" made by the package, times
//                                  spread over the whole KSUID range
// Prints "ok N" on success, otherwise the first mismatches and "mismatch N". The package is found
// under $IDGEN_NPM_DIR (scripts/npm_oracles.sh installs it there).
'use strict';
const path = require('path');
const fs = require('fs');
const crypto = require('crypto');
const req = require('module').createRequire(path.join(process.env.IDGEN_NPM_DIR || '.', 'oracle.js'));
const KSUID = req('ksuid');

const EPOCH = 1400000000;
const [mode, arg] = process.argv.slice(2);
if (mode === 'check') {
  const lines = fs.readFileSync(arg, 'utf8').split('\n').filter((l) => l.length > 0);
  let bad = 0;
  for (const line of lines) {
    const [text, hex, secs] = line.split(' ');
    let why = '';
    try {
      const k = KSUID.parse(text);
      if (k.raw.toString('hex') !== hex) why = `bytes ${k.raw.toString('hex')}`;
      else if (k.timestamp + EPOCH !== Number(secs)) why = `seconds ${k.timestamp + EPOCH}`;
      else if (k.date.getTime() !== Number(secs) * 1000) why = `date ${k.date.toISOString()}`;
      else if (k.string !== text) why = `text ${k.string}`;
      else if (KSUID.fromParts(Number(secs) * 1000, k.payload).string !== text) why = 'fromParts';
    } catch (e) {
      why = `threw ${e.message}`;
    }
    if (why) {
      if (++bad <= 5) console.log(`${line}: ${why}`);
    }
  }
  console.log(bad ? `mismatch ${bad}` : `ok ${lines.length}`);
} else if (mode === 'generate') {
  const n = Number(arg);
  const out = [];
  for (let i = 0; i < n; ++i) {
    // Every tenth at the current time, the rest at random seconds of the whole range (including
    // both ends), so the first byte takes every value.
    let secs;
    if (i === 0) secs = EPOCH;
    else if (i === 1) secs = EPOCH + 0xffffffff;
    else if (i % 10 === 0) secs = Math.floor(Date.now() / 1000);
    else secs = EPOCH + crypto.randomInt(0, 0xffffffff + 1);
    const k = KSUID.randomSync(secs * 1000);
    out.push(`${k.string} ${k.raw.toString('hex')} ${k.timestamp + EPOCH}`);
  }
  process.stdout.write(out.join('\n') + '\n');
} else {
  console.error('usage: ksuid.cjs check FILE | generate N');
  process.exit(2);
}

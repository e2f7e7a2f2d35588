// Independent implementations as test oracles: the npm packages `uuid` (v6, v1ToV6, v6ToV1) and
// `nanoid` (its URL-safe alphabet), installed by scripts/npm_oracles.sh into $IDGEN_NPM_DIR.
// Reads lines on stdin, writes one line per input (or per value made) on stdout.
//   node uuid_nanoid.mjs v6-read       our UUIDv6 texts -> "<valid> <version> <v6ToV1> <stringify(parse)>"
//   node uuid_nanoid.mjs v1-make N     N npm v1 UUIDs -> "<v1> <v1ToV6(v1)> <unix ms> <100 ns within the ms>"
//   node uuid_nanoid.mjs v6-make N     N npm v6 UUIDs -> "<v6> <v6ToV1(v6)>"
//   node uuid_nanoid.mjs nanoid-read   our NanoIDs -> "<length> <all characters in nanoid's urlAlphabet>"
//   node uuid_nanoid.mjs nanoid-alphabet   nanoid's urlAlphabet, its characters sorted
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { readFileSync } from 'node:fs';

const dir = process.env.IDGEN_NPM_DIR;
if (!dir) throw new Error('IDGEN_NPM_DIR is not set');
const require = createRequire(dir.replace(/\/?$/, '/'));
const uuid = await import(pathToFileURL(require.resolve('uuid')).href);
const nanoidPkg = await import(pathToFileURL(require.resolve('nanoid')).href);

const [cmd, arg] = process.argv.slice(2);
const lines = () => readFileSync(0, 'utf8').split('\n').filter((l) => l.length > 0);
const out = [];
switch (cmd) {
  case 'v6-read':
    for (const s of lines()) {
      const valid = uuid.validate(s);
      out.push(`${valid} ${valid ? uuid.version(s) : -1} ${valid ? uuid.v6ToV1(s) : '-'} ${valid ? uuid.stringify(uuid.parse(s)) : '-'}`);
    }
    break;
  case 'v1-make': {
    // Spread over time: each value its own msecs (so the times differ), nsecs 0..9999.
    const base = Date.UTC(2024, 0, 1);
    for (let i = 0; i < Number(arg); i++) {
      const msecs = base + i * 1000 + (i % 997);
      const nsecs = (i * 7919) % 10000;
      const v1 = uuid.v1({ msecs, nsecs });
      out.push(`${v1} ${uuid.v1ToV6(v1)} ${msecs} ${nsecs}`);
    }
    break;
  }
  case 'v6-make':
    for (let i = 0; i < Number(arg); i++) {
      const v6 = uuid.v6();
      out.push(`${v6} ${uuid.v6ToV1(v6)}`);
    }
    break;
  case 'nanoid-read': {
    const set = new Set(nanoidPkg.urlAlphabet);
    for (const s of lines()) out.push(`${s.length} ${[...s].every((c) => set.has(c))}`);
    break;
  }
  case 'nanoid-alphabet':
    out.push([...nanoidPkg.urlAlphabet].sort().join(''));
    break;
  default:
    throw new Error(`unknown command ${cmd}`);
}
process.stdout.write(out.join('\n') + (out.length ? '\n' : ''));

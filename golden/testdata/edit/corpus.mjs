// Records the reference's edit tool on random files and edits, for the
// differential test in golden/edit_corpus_test.go.
//
//   node corpus.mjs ORACLE_DIR [COUNT] [SEED] > corpus.jsonl
//
// ORACLE_DIR is an installed copy of the oracle (see its README). The
// reference's editInStore runs over an in-memory store; each line records
// the file's bytes, the edits, the result object and the bytes written
// (null when the edit was refused). Files use one kind of line ending and
// valid UTF-8, where our deliberate differences do not show.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [oracle, countArg = '1500', seedArg = '1'] = process.argv.slice(2);
if (!oracle) {
  process.stderr.write('usage: node corpus.mjs ORACLE_DIR [COUNT] [SEED]\n');
  process.exit(2);
}
const dist = join(oracle, 'node_modules/@cloudflare/computer/dist');
const chunk = readdirSync(dist).find((f) => f.endsWith('.js') && readFileSync(join(dist, f), 'utf8').includes('function editInStore'));
const mod = await import(pathToFileURL(join(dist, chunk)).href);
const editInStore = Object.values(mod).find((f) => typeof f === 'function' && f.name === 'editInStore');

let state = Number(seedArg) >>> 0 || 1;
function rand() {
  // xorshift32: the corpus is the same for the same seed
  state ^= state << 13; state >>>= 0;
  state ^= state >>> 17;
  state ^= state << 5; state >>>= 0;
  return state / 4294967296;
}
const pick = (a) => a[Math.floor(rand() * a.length)];
const int = (n) => Math.floor(rand() * n);

const words = ['foo', 'bar', 'baz', 'x', 'alpha', 'beta', 'return', 'if', '{', '}', '(', ')', '=', ';', '"', "'", '$&', '$1'];
const specials = ['\u2019', '\u2018', '\u201c', '\u201d', '\u2014', '\u2013', '\u2212', '\u00a0', '\u2009', '\u3000',
  '\ufb01', '\u2460', '\uff21', 'e\u0301', '\u00e9', '\ud83d\ude00', '\ud83d\udc4d\ud83c\udffd', '\uff76', '\t', '  '];
function line() {
  const parts = [];
  for (let n = int(6); n >= 0; n--) {
    parts.push(rand() < 0.3 ? pick(specials) : pick(words));
    if (rand() < 0.7) parts.push(' ');
  }
  if (rand() < 0.2) parts.push(pick(['   ', '\t', '\u00a0', ' \u3000']));
  return parts.join('');
}
function fuzz(text) {
  const swaps = [['\u2019', "'"], ['\u2018', "'"], ['\u201c', '"'], ['\u201d', '"'], ['\u2014', '-'], ['\u2013', '-'],
    ['\u2212', '-'], ['\u00a0', ' '], ['\u3000', ' '], ['\ufb01', 'fi'], ['\u2460', '1'], ['\uff21', 'A'], ['e\u0301', '\u00e9'], ['\u00e9', 'e\u0301']];
  for (const [from, to] of swaps) if (rand() < 0.5) text = text.split(from).join(to);
  if (rand() < 0.5) text = text.split('\n').map((l) => l.replace(/[ \t]+$/, '')).join('\n');
  return text;
}

const encoder = new TextEncoder();
const count = Number(countArg);
for (let i = 0; i < count; i++) {
  const lines = Array.from({ length: 1 + int(12) }, line);
  const eol = rand() < 0.25 ? '\r\n' : '\n';
  let text = lines.join(eol) + (rand() < 0.8 ? eol : '');
  if (rand() < 0.1) text = '\ufeff' + text;
  const lf = text.replace(/^\ufeff/, '').replace(/\r\n/g, '\n');
  const edits = [];
  for (let n = 1 + int(rand() < 0.7 ? 1 : 3); n > 0; n--) {
    let oldText;
    const r = rand();
    if (r < 0.1) oldText = pick(words) + pick(specials);
    else if (r < 0.15) oldText = '';
    else {
      const chars = Array.from(lf); // whole code points, never half a surrogate pair
      const a = int(chars.length);
      oldText = chars.slice(a, Math.min(chars.length, a + 1 + int(40))).join('');
      if (rand() < 0.5) oldText = fuzz(oldText);
      if (rand() < 0.1 && eol === '\r\n') oldText = oldText.replace(/\n/g, '\r\n');
    }
    const newText = rand() < 0.1 ? oldText : Array.from({ length: int(4) }, () => (rand() < 0.3 ? '\n' : pick(words) + ' ')).join('');
    edits.push({ oldText, newText });
  }
  const bytes = encoder.encode(text);
  let written = null;
  const store = {
    lockIdentity: {},
    async stat() { return { size: bytes.byteLength, mtime: 0, mode: 0o644 }; },
    async readAll() { return bytes; },
    async write(_path, content) { written = content; },
  };
  const result = await editInStore({ store }, { path: '/workspace/f.txt', edits });
  process.stdout.write(JSON.stringify({
    content: Buffer.from(bytes).toString('base64'),
    edits,
    result,
    written: written === null ? null : Buffer.from(written).toString('base64'),
  }) + '\n');
}

// One test per modifier (sigma-notes §4), including chains and misuse errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compile, problems } from './helpers.js';
import { buildPipeline } from '../../src/sigma/index.js';

const sel = (key: string, value: string): string => `sel:\n    ${key}: ${value}\ncondition: sel`;

test('contains / startswith / endswith (and existing wildcards are not doubled)', () => {
  assert.equal(compile(sel('F|contains', "'mid'")).match({ F: 'xxMIDxx' }), true);
  assert.equal(compile(sel('F|startswith', "'pre'")).match({ F: 'PREfix' }), true);
  assert.equal(compile(sel('F|startswith', "'pre'")).match({ F: 'xpre' }), false);
  assert.equal(compile(sel('F|endswith', "'.exe'")).match({ F: 'a.EXE' }), true);
  assert.equal(compile(sel('F|endswith', "'.exe'")).match({ F: 'a.exe.txt' }), false);
  assert.equal(compile(sel('F|contains', "'*a*'")).match({ F: 'xax' }), true);
});

test('all: list becomes AND; with windash the expansion stays OR', () => {
  const m = compile(sel('F|contains|all', "['a', 'b']"));
  assert.equal(m.match({ F: 'xaxbx' }), true);
  assert.equal(m.match({ F: 'xax' }), false);
  const w = compile(sel('F|contains|all|windash', "['-a', '-b']"));
  assert.equal(w.match({ F: 'cmd /a \u2013b' }), true);
  assert.equal(w.match({ F: 'cmd /a' }), false);
});

test('windash: 5 variants per dash at a word start; dashes inside words unchanged', () => {
  const m = compile(sel('F|windash', "'-param-1'"));
  for (const d of ['-', '/', '\u2013', '\u2014', '\u2015']) assert.equal(m.match({ F: `${d}param-1` }), true, d);
  assert.equal(m.match({ F: '/param/1' }), false);
  // Word characters are Unicode, as in Python's \b: a dash before 'ü' is a word start, after 'é' it is not.
  const u = compile(sel('F|windash|contains', "' -über'"));
  assert.equal(u.match({ F: 'x /über' }), true);
  assert.equal(u.match({ F: 'x -über' }), true);
  const inner = compile(sel('F|windash', "'é-b'"));
  assert.equal(inner.match({ F: 'é/b' }), false);
  assert.equal(inner.match({ F: 'é-b' }), true);
});

test('base64, base64offset (foobar → Zm9vYmFy, Zvb2Jhc, mb29iYX), wide|base64offset', () => {
  assert.equal(compile(sel('F|base64', "'foobar'")).match({ F: 'Zm9vYmFy' }), true);
  const off = compile(sel('F|base64offset|contains', "'foobar'"));
  for (const s of ['xxZm9vYmFyxx', 'xZvb2Jhcx', 'xmb29iYXx']) assert.equal(off.match({ F: s }), true, s);
  assert.equal(off.match({ F: 'Zm9vYmE' }), false);
  // 'cmd' as UTF-16LE = 63 00 6d 00 64 00 → base64 "YwBtAGQA"
  assert.equal(compile(sel('F|wide|base64offset|contains', "'cmd'")).match({ F: 'xxYwBtAGQAxx' }), true);
  assert.ok(problems(sel('F|base64', "'foo*'"))[0].message.includes('wildcards'));
});

test('utf16le / utf16be / utf16 / wide', () => {
  assert.equal(compile(sel('F|utf16le|base64', "'a'")).match({ F: Buffer.from('a\0', 'latin1').toString('base64') }), true);
  assert.equal(compile(sel('F|utf16be|base64', "'a'")).match({ F: Buffer.from('\0a', 'latin1').toString('base64') }), true);
  assert.equal(compile(sel('F|utf16|base64', "'a'")).match({ F: Buffer.from('\xff\xfea\0', 'latin1').toString('base64') }), true);
  assert.equal(compile(sel('F|wide', "'ab'")).match({ F: 'a\0b\0' }), true);
});

test('re: unanchored search, case-sensitive; i/m/s; leading (?i); no u flag', () => {
  const m = compile(sel('F|re', "'-D'"));
  assert.equal(m.match({ F: 'run -D x' }), true);
  assert.equal(m.match({ F: 'run -d x' }), false);
  assert.equal(compile(sel('F|re|i', "'^abc$'")).match({ F: 'ABC' }), true);
  assert.equal(compile(sel('F|re', "'(?i)^abc$'")).match({ F: 'ABC' }), true);
  assert.equal(compile(sel('F|re|m', "'^b$'")).match({ F: 'a\nb\nc' }), true);
  assert.equal(compile(sel('F|re', "'^b$'")).match({ F: 'a\nb\nc' }), false);
  assert.equal(compile(sel('F|re|s', "'a.c'")).match({ F: 'a\nc' }), true);
  assert.equal(compile(sel('F|re', "'a.c'")).match({ F: 'a\nc' }), false);
  assert.equal(compile(sel('F|re', `'\\"\\-x'`)).match({ F: '"-x' }), true, 'identity escapes work without u');
  assert.equal(compile(sel('F|re', "'a\\*b'")).match({ F: 'a*b' }), true, 'no Sigma escape processing');
  assert.match(problems(sel('F|contains|re', "'x'"))[0].message, /first modifier/);
  assert.match(problems(sel('F|i', "'x'"))[0].message, /cannot be applied/);
});

test('cidr: IPv4 and IPv6', () => {
  const m = compile(sel('ip|cidr', "['10.0.0.0/8', '192.168.1.0/24', '::1/128', 'fe80::/10']"));
  assert.equal(m.match({ ip: '10.1.2.3' }), true);
  assert.equal(m.match({ ip: '192.168.2.1' }), false);
  assert.equal(m.match({ ip: '::1' }), true);
  assert.equal(m.match({ ip: 'FE80::1234:5678' }), true);
  assert.equal(m.match({ ip: 'fec0::1' }), false);
  assert.equal(m.match({ ip: 'not an ip' }), false);
  assert.match(problems(sel('ip|cidr', "'10.0.0.0/33'"))[0].message, /not a valid/);
  // Addresses read as Python's ipaddress reads them: no leading zeros (octal to inet_aton), no spaces.
  assert.equal(m.match({ ip: '010.0.0.1' }), false);
  assert.equal(m.match({ ip: ' 10.0.0.1' }), false);
  assert.equal(m.match({ ip: '10.0.0.0' }), true);
  assert.equal(m.match({ ip: '::ffff:10.0.0.1' }), false); // IPv4-mapped IPv6 is IPv6
  // An IPv6 scope takes no part in the comparison; brackets, an empty scope, a scope holding `%` or `/` make
  // the text no address (so `not` a network holds on it).
  assert.equal(m.match({ ip: 'fe80::1%eth0' }), true);
  assert.equal(m.match({ ip: '::1%1' }), true);
  const outside = compile("sel:\n    ip|cidr: '::1/128'\ncondition: not sel");
  for (const ip of ['[::1]', '::1%', '::1%eth0/64', 'fe80::1%a%b', '::1/128']) assert.equal(outside.match({ ip }), true, ip);
  assert.equal(outside.match({ ip: '::1%eth0' }), false);
  assert.match(problems(sel('ip|cidr', "'[::1]/128'"))[0].message, /not a valid/);
  assert.deepEqual(problems(sel('ip|cidr', "'fe80::%eth0/64'")), []);
  // A network is read as Python's ip_network reads it: no surrounding spaces.
  assert.match(problems(sel('ip|cidr', "' 10.0.0.0/8'"))[0].message, /not a valid/);
  assert.match(problems(sel('ip|cidr', "'10.0.0.0/8 '"))[0].message, /not a valid/);
  // A network with host bits set is refused, as a strict network parser does.
  assert.match(problems(sel('ip|cidr', "'10.1.2.3/8'"))[0].message, /host bits set beyond the \/8 prefix/);
  assert.match(problems(sel('ip|cidr', "'fe80::1/10'"))[0].message, /host bits/);
  assert.deepEqual(problems(sel('ip|cidr', "['10.1.2.3/32', '0.0.0.0/0', '::/0', '2620:83:8000::/48']")), []);
});

test('exists true/false (present even when null)', () => {
  const t = compile(sel('F|exists', 'true'));
  assert.equal(t.match({ F: null }), true);
  assert.equal(t.match({}), false);
  const f = compile(sel('F|exists', 'no'));
  assert.equal(f.match({}), true);
  assert.equal(f.match({ F: '' }), false);
  assert.match(problems(sel('F|exists', "'maybe'"))[0].message, /true or false/);
  // A boolean only (a quoted 'true' is a string), and no modifier before it, not even neq or all.
  assert.match(problems(sel('F|exists', "'true'"))[0].message, /true or false/);
  assert.match(problems(sel('F|neq|exists', 'true'))[0].message, /'exists' must be the first modifier/);
  assert.match(problems(sel('F|all|exists', 'true'))[0].message, /'exists' must be the first modifier/);
});

test('expand: placeholder values from the pipeline, \\% escapes, refused when unresolved', () => {
  const p = buildPipeline({ defaultMapping: 'identity', fieldMappings: [], vars: { Admins: ['root', 'adm*'] } });
  const m = compile(sel('User|expand', "'%Admins%'"), p);
  assert.equal(m.match({ User: 'root' }), true);
  assert.equal(m.match({ User: 'admin' }), true);
  assert.equal(m.match({ User: 'bob' }), false);
  assert.equal(compile(sel('F', "'%Admins%'"), p).match({ F: '%admins%' }), true, 'literal without expand');
  assert.match(problems(sel('User|expand', "'%Nope%'"), p)[0].message, /placeholder %Nope% has no values/);
});

test('fieldref (+ startswith/endswith/contains)', () => {
  const m = compile(sel('A|fieldref', "'B'"));
  assert.equal(m.match({ A: 'x', B: 'X' }), true);
  assert.equal(m.match({ A: 'x', B: 'y' }), false);
  assert.equal(m.match({ A: 'x' }), false);
  assert.equal(compile(sel('A|fieldref|endswith', "'B'")).match({ A: 'c:\\a\\x.exe', B: 'x.exe' }), true);
  assert.equal(compile(sel('A|fieldref|contains', "'B'")).match({ A: 'xyz', B: 'y' }), true);
  assert.match(problems(sel('A|fieldref', "'B*'"))[0].message, /wildcards/);
});

test('gt / gte / lt / lte', () => {
  assert.equal(compile(sel('n|gt', '5')).match({ n: 6 }), true);
  assert.equal(compile(sel('n|gt', '5')).match({ n: 5 }), false);
  assert.equal(compile(sel('n|gte', '5')).match({ n: '5' }), true);
  assert.equal(compile(sel('n|lt', '5')).match({ n: 4.5 }), true);
  assert.equal(compile(sel('n|lte', '5')).match({ n: 'x' }), false);
  assert.match(problems(sel('n|gt', "'abc'"))[0].message, /expects a number/);
  // Event text is read as a decimal number the way Python's float reads it: no hexadecimal or octal.
  const gte = compile(sel('n|gte', '10'));
  for (const n of ['1e3', 'Infinity', 'inf', '+20', '10.', ' 42 ', '1_000', '.5e2']) assert.equal(gte.match({ n }), true, n);
  for (const n of ['0x10', '0o17', '0b11', '1__0', '_10', '10_', 'nan', '12abc', '', ' ', '-inf']) assert.equal(gte.match({ n }), false, n);
  // Unicode digits and spaces as float reads them (python-float.test.ts has the details).
  for (const n of ['٤٢', '１２', '𝟏𝟏', '11\u0085']) assert.equal(gte.match({ n }), true, n);
  for (const n of ['\ufeff11', '11\ufeff']) assert.equal(gte.match({ n }), false, n);
  // A quoted number is a string: refused, as pySigma does ("Compare operator expects number").
  assert.match(problems(sel('n|gt', "'5'"))[0].message, /expects a number/);
  assert.match(problems(sel('t|hour', "'10'"))[0].message, /expects a number/);
});

test('string modifiers refuse numbers and booleans; quoted, they match the text', () => {
  for (const mod of ['contains', 'startswith', 'endswith', 'cased', 'windash', 'base64', 'base64offset', 'wide', 'utf16le', 'utf16be', 'utf16', 'expand', 're']) {
    assert.match(problems(sel(`EventID|${mod}`, '46'))[0].message, new RegExp(`'${mod}' cannot be applied to the number 46`));
    assert.match(problems(sel(`EventID|${mod}`, '[1, 46]'))[0].message, /cannot be applied to the number/);
    assert.match(problems(sel(`Signed|${mod}`, 'true'))[0].message, new RegExp(`'${mod}' cannot be applied to the boolean true`));
  }
  assert.equal(compile(sel('F|windash', "'5'")).match({ F: '5' }), true);
  assert.equal(compile(sel('F|re', "'^4[0-9]'")).match({ F: 46 }), true);
  assert.equal(compile(sel('EventID|startswith', "'46'")).match({ EventID: 4624 }), true);
  assert.equal(compile(sel('EventID|contains', "'62'")).match({ EventID: '4624' }), true);
});

test('time modifiers: minute hour day week month year, with compare', () => {
  const ev = { t: '2024-03-15T10:20:30Z' };
  assert.equal(compile(sel('t|hour', '10')).match(ev), true);
  assert.equal(compile(sel('t|minute', '20')).match(ev), true);
  assert.equal(compile(sel('t|day', '15')).match(ev), true);
  assert.equal(compile(sel('t|week', '11')).match(ev), true);
  assert.equal(compile(sel('t|month', '3')).match(ev), true);
  assert.equal(compile(sel('t|year', '2024')).match(ev), true);
  assert.equal(compile(sel('t|hour|gte', '8')).match(ev), true);
  assert.equal(compile(sel('t|hour|lt', '8')).match(ev), false);
});

test('time modifiers read the parts written in the value, whatever the machine time zone; other text has none', () => {
  const part = (mod: string, n: number, t: unknown): boolean => compile(sel(`t|${mod}`, String(n))).match({ t });
  const saved = process.env.TZ;
  try {
    for (const tz of ['UTC', 'Asia/Kolkata', 'America/New_York']) {
      process.env.TZ = tz;
      for (const t of ['2024-01-02 03:04:05.678', '2024-01-02T03:04:05.6789012Z', '2024-01-02T03:04:05+05:30', '2024-01-02T03:04-02:00', 1704164645, 1704164645000]) {
        assert.equal(part('hour', 3, t), true, `${tz} ${t}`);
        assert.equal(part('minute', 4, t), true, `${tz} ${t}`);
        assert.equal(part('day', 2, t), true, `${tz} ${t}`);
        assert.equal(part('month', 1, t), true, `${tz} ${t}`);
        assert.equal(part('year', 2024, t), true, `${tz} ${t}`);
        assert.equal(part('week', 1, t), true, `${tz} ${t}`);
      }
      assert.equal(part('day', 2, '2024-01-02'), true);
      assert.equal(part('hour', 0, '2024-01-02'), true);
    }
  } finally {
    if (saved === undefined) delete process.env.TZ;
    else process.env.TZ = saved;
  }
  assert.equal(part('week', 53, '2020-12-31 10:00:00'), true);
  assert.equal(part('week', 53, '2021-01-03'), true);
  assert.equal(part('week', 1, '2021-01-04'), true);
  // Not timestamps: no part matches, not even through a comparison.
  for (const t of ['cmd.exe 3', '12', '02.01.2024 03:04:05', '2024-13-01', '2024-02-30', '2024-01-02 24:00:00', '', 'now', true, null]) {
    for (const mod of ['minute', 'hour', 'day', 'week', 'month', 'year']) {
      assert.equal(compile(sel(`t|${mod}|gte`, '0')).match({ t }), false, `${mod} on ${JSON.stringify(t)}`);
    }
  }
});

test('cased: case-sensitive', () => {
  const m = compile(sel('F|cased', "'CmD'"));
  assert.equal(m.match({ F: 'CmD' }), true);
  assert.equal(m.match({ F: 'cmd' }), false);
  assert.equal(compile(sel('F|contains|cased', "'X'")).match({ F: 'axb' }), false);
});

test('neq: none of the values; absent field counts as different', () => {
  const m = compile(sel('F|neq', "['a', 'b']"));
  assert.equal(m.match({ F: 'c' }), true);
  assert.equal(m.match({ F: 'A' }), false);
  assert.equal(m.match({ F: 'b' }), false);
  assert.equal(m.match({}), true);
});

test('unknown modifier is a validation error with the item path', () => {
  const errs = problems(sel('Image|endwith', "'x'"));
  assert.deepEqual(errs, [{ field: 'detection.sel.Image|endwith', message: "unknown modifier 'endwith'" }]);
});

test('chains pySigma refuses: null under a value modifier, re or cidr after all/neq, fieldref|cased', () => {
  assert.match(problems(sel('F|contains', 'null'))[0].message, /'contains' cannot be applied to a null value/);
  assert.match(problems(sel('F|gt', 'null'))[0].message, /'gt' expects a number/);
  assert.match(problems(sel('F|re', '[null]'))[0].message, /'re' cannot be applied to a null value/);
  assert.match(problems(sel('F|neq|re', "'a'"))[0].message, /'re' must be the first modifier/);
  assert.match(problems(sel('F|all|re', "['a', 'b']"))[0].message, /'re' must be the first modifier/);
  assert.match(problems(sel('F|all|cidr', "['10.0.0.0/8']"))[0].message, /'cidr' must be the first modifier/);
  assert.match(problems(sel('A|fieldref|cased', "'B'"))[0].message, /'cased' cannot be applied to a fieldref value/);
  // What stays valid: null with list modifiers only, re and cidr first with all/neq after them.
  assert.equal(compile(sel('F|neq', 'null')).match({ F: 'x' }), true);
  assert.equal(compile(sel('F|re|neq', "'^a'")).match({ F: 'b' }), true);
  assert.equal(compile(sel('F|cidr|all', "['10.0.0.0/8', '10.1.0.0/16']")).match({ F: '10.1.2.3' }), true);
  // re|expand without a placeholder changes nothing; with one it is refused.
  assert.equal(compile(sel('F|re|expand', "'^a%'")).match({ F: 'a%' }), true);
  assert.match(problems(sel('F|re|expand', "'^%user%$'"))[0].message, /placeholders inside a regular expression/);
});

// Realistic Sysmon-style benchmark events: built deterministically (seeded PRNG) from the regression
// events, with process, file, registry, hash, GUID and time values replaced by varied benign values so that
// most events match no rule, and a small share of the original (matching) events kept as they are. As in
// real telemetry, binaries run from their usual folders under their usual parents, a binary's version
// resource and hashes follow its image, and events come from a fleet of hosts; command lines, GUIDs,
// process ids, times and file names vary per event.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Benign processes as they run on a workstation: each binary in its usual folder, started by its usual
 * parent, with arguments of its own (a system binary in a user folder, or svchost without `-k`, is what
 * detection rules look for, and would make the events match). */
interface Program {
  image: string;
  parents: readonly string[];
  args: readonly string[];
}
const SYS = 'C:\\Windows\\System32';
const PROGRAMS: readonly Program[] = [
  { image: `${SYS}\\svchost.exe`, parents: [`${SYS}\\services.exe`], args: ['-k netsvcs -p', '-k LocalServiceNetworkRestricted -p', '-k DcomLaunch -p', '-k UnistackSvcGroup'] },
  { image: `${SYS}\\taskhostw.exe`, parents: [`${SYS}\\svchost.exe`], args: ['', 'Install $(Arg0)'] },
  { image: `${SYS}\\RuntimeBroker.exe`, parents: [`${SYS}\\svchost.exe`], args: ['-Embedding'] },
  { image: `${SYS}\\backgroundTaskHost.exe`, parents: [`${SYS}\\svchost.exe`], args: ['-ServerName:App.AppXnme9zjyebb2xnyygh6q9ev6p5d234br2.mca'] },
  { image: `${SYS}\\SearchProtocolHost.exe`, parents: [`${SYS}\\SearchIndexer.exe`], args: ['Global\\UsGthrFltPipeMssGthrPipe1_ Global\\UsGthrCtrlFltPipeMssGthrPipe1 1'] },
  { image: `${SYS}\\dllhost.exe`, parents: [`${SYS}\\svchost.exe`], args: ['/Processid:{3EB3C877-1F16-487C-9050-104DBCD66683}', '/Processid:{AB8902B4-09CA-4BB6-B78D-A8F59079A8D5}'] },
  { image: `${SYS}\\sihost.exe`, parents: [`${SYS}\\svchost.exe`], args: [''] },
  { image: `${SYS}\\ctfmon.exe`, parents: [`${SYS}\\svchost.exe`], args: [''] },
  { image: 'C:\\Program Files\\Contoso\\Agent\\agent.exe', parents: [`${SYS}\\services.exe`], args: ['--service', '--config "C:\\ProgramData\\Contoso\\agent.json"'] },
  { image: 'C:\\Program Files (x86)\\Fabrikam\\Update\\updater.exe', parents: [`${SYS}\\svchost.exe`], args: ['/update /silent', '/check'] },
  { image: 'C:\\Program Files\\Editor\\editor.exe', parents: ['C:\\Windows\\explorer.exe'], args: ['--new-window', 'C:\\Users\\alice\\Documents\\notes.md'] },
  { image: 'C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe', parents: ['C:\\Windows\\explorer.exe', 'C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe'], args: ['--type=renderer --lang=en-US', '--type=gpu-process', '--profile=Default'] },
  { image: 'C:\\Program Files (x86)\\Microsoft\\Edge\\Application\\msedge.exe', parents: ['C:\\Windows\\explorer.exe'], args: ['--type=utility --lang=en-US', '--single-argument https://intranet.corp.example/'] },
  { image: 'C:\\Users\\alice\\AppData\\Local\\Microsoft\\Teams\\current\\Teams.exe', parents: ['C:\\Windows\\explorer.exe'], args: ['--type=renderer', '--process-start-args "--profile=AAD"'] },
  { image: 'C:\\Users\\alice\\AppData\\Local\\Microsoft\\OneDrive\\OneDrive.exe', parents: ['C:\\Windows\\explorer.exe'], args: ['/background'] },
  { image: 'C:\\Program Files\\Python311\\python.exe', parents: ['C:\\Program Files\\Microsoft VS Code\\Code.exe'], args: ['-m pip list', 'manage.py runserver 8000', 'report.py --month 5'] },
  { image: 'C:\\Program Files\\Microsoft VS Code\\Code.exe', parents: ['C:\\Windows\\explorer.exe'], args: ['--type=renderer', 'C:\\Users\\alice\\src\\portal'] },
  { image: 'C:\\Program Files\\Git\\cmd\\git.exe', parents: ['C:\\Program Files\\Microsoft VS Code\\Code.exe'], args: ['status --short', 'fetch origin', 'log --oneline -n 20'] },
  { image: 'C:\\Program Files\\Java\\jre\\bin\\java.exe', parents: [`${SYS}\\services.exe`], args: ['-jar app.jar --port 8080', '-Xmx512m -jar reports.jar'] },
];
const FILE_DIRS = ['C:\\Users\\alice\\Documents', 'C:\\Users\\bob\\AppData\\Local\\Temp', 'C:\\ProgramData\\Vendor\\cache', 'D:\\data\\exports', 'C:\\Windows\\Temp\\logs'];
const FILE_EXT = ['.txt', '.log', '.json', '.tmp', '.docx', '.csv', '.db', '.xml'];
const REG_ROOTS = ['HKLM\\SOFTWARE\\Contoso\\Agent', 'HKU\\S-1-5-21-1004\\Software\\Fabrikam\\Settings', 'HKLM\\SYSTEM\\CurrentControlSet\\Services\\ContosoSvc\\Parameters', 'HKCU\\Software\\Editor\\Recent'];
/** Size of the fleet the events come from. */
const HOSTS = 500;
const USERS = ['CORP\\alice', 'CORP\\bob', 'NT AUTHORITY\\SYSTEM', 'CORP\\svc_backup'];

function pick<T>(rnd: () => number, xs: readonly T[]): T {
  return xs[Math.floor(rnd() * xs.length)];
}

function hex(rnd: () => number, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += '0123456789ABCDEF'[Math.floor(rnd() * 16)];
  return s;
}

function guid(rnd: () => number): string {
  return `{${hex(rnd, 8)}-${hex(rnd, 4)}-${hex(rnd, 4)}-${hex(rnd, 4)}-${hex(rnd, 12)}}`;
}

function word(rnd: () => number): string {
  const n = 4 + Math.floor(rnd() * 8);
  let s = '';
  for (let i = 0; i < n; i++) s += 'abcdefghijklmnopqrstuvwxyz'[Math.floor(rnd() * 26)];
  return s;
}

/** What Sysmon reports about a binary (version resource and hashes) is a property of the file: the same
 * image always comes with the same description, product, company, version and hashes. */
interface Binary {
  description: string;
  product: string;
  company: string;
  version: string;
  hashes: string;
}

function binaryOf(image: string, rnd: () => number, known: Map<string, Binary>): Binary {
  let b = known.get(image);
  if (!b) {
    b = {
      description: `${word(rnd)} ${word(rnd)}`,
      product: `${word(rnd)} Suite`,
      company: `${word(rnd)} Ltd.`,
      version: `${1 + Math.floor(rnd() * 20)}.${Math.floor(rnd() * 10)}.${Math.floor(rnd() * 9999)}`,
      hashes: `MD5=${hex(rnd, 32)},SHA256=${hex(rnd, 64)},IMPHASH=${hex(rnd, 32)}`,
    };
    known.set(image, b);
  }
  return b;
}

/** What the varied values are drawn from: the programs that run, the users and the hosts. */
interface Fleet {
  programs: readonly Program[];
  argsOf: Map<string, readonly string[]>;
  users: readonly string[];
  hosts: readonly string[];
}

function fleetOf(programs: readonly Program[], users: readonly string[], hosts: readonly string[]): Fleet {
  return { programs, argsOf: new Map(programs.map((p) => [p.image, p.args])), users, hosts };
}

function varyEvent(e: Record<string, unknown>, rnd: () => number, binaries: Map<string, Binary>, fleet: Fleet): Record<string, unknown> {
  const out: Record<string, unknown> = { ...e };
  const program = pick(rnd, fleet.programs);
  const image = program.image;
  const parent = pick(rnd, program.parents);
  const parentArgs = fleet.argsOf.get(parent) ?? [''];
  const binary = binaryOf(image, rnd, binaries);
  const commandLine = (img: string, args: string): string => (args ? `"${img}" ${args}` : `"${img}"`);
  const set = (k: string, v: unknown): void => {
    if (k in out) out[k] = v;
  };
  set('Image', image);
  // A per-event token (a document, a port, a session) keeps command lines from repeating.
  set('CommandLine', `${commandLine(image, pick(rnd, program.args))} ${word(rnd)}`.trim());
  set('ParentImage', parent);
  set('ParentCommandLine', commandLine(parent, pick(rnd, parentArgs)));
  set('OriginalFileName', image.slice(image.lastIndexOf('\\') + 1));
  set('Description', binary.description);
  set('Product', binary.product);
  set('Company', binary.company);
  set('FileVersion', binary.version);
  set('CurrentDirectory', `${image.slice(0, image.lastIndexOf('\\'))}\\`);
  set('User', pick(rnd, fleet.users));
  set('ParentUser', pick(rnd, fleet.users));
  set('Hashes', binary.hashes);
  set('ProcessGuid', guid(rnd));
  set('ParentProcessGuid', guid(rnd));
  set('LogonGuid', guid(rnd));
  set('ProcessId', Math.floor(rnd() * 60000));
  set('ParentProcessId', Math.floor(rnd() * 60000));
  set('EventRecordID', Math.floor(rnd() * 1e7));
  set('UtcTime', new Date(1.7e12 + Math.floor(rnd() * 3e10)).toISOString().replace('T', ' ').slice(0, 23));
  set('TargetFilename', `${pick(rnd, FILE_DIRS)}\\${word(rnd)}${pick(rnd, FILE_EXT)}`);
  set('ImageLoaded', `${image.slice(0, image.lastIndexOf('\\'))}\\${word(rnd)}.dll`);
  set('TargetObject', `${pick(rnd, REG_ROOTS)}\\${word(rnd)}`);
  set('Details', rnd() < 0.5 ? `DWORD (0x0000000${Math.floor(rnd() * 10)})` : `C:\\ProgramData\\Contoso\\${word(rnd)}.cfg`);
  set('PipeName', `\\${word(rnd)}_${hex(rnd, 6)}`);
  set('ScriptBlockText', `Get-ChildItem ${pick(rnd, FILE_DIRS)} | Select-Object -First ${Math.floor(rnd() * 20)}`);
  set('Computer', pick(rnd, fleet.hosts));
  return out;
}

export function regressionEvents(corpusDir: string): Record<string, unknown>[] {
  return readFileSync(join(corpusDir, 'regression/cases.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .flatMap((l) => (JSON.parse(l) as { events: Record<string, unknown>[] }).events);
}

/** `count` NDJSON lines; about `matchingShare` of them are unmodified regression (matching) events. */
export function benchEvents(corpusDir: string, count: number, seed = 42, matchingShare = 0.01): string[] {
  const base = regressionEvents(corpusDir);
  const rnd = prng(seed);
  const binaries = new Map<string, Binary>();
  const hosts = Array.from({ length: HOSTS }, () => `ws-${word(rnd)}.corp.example`);
  const fleet = fleetOf(PROGRAMS, USERS, hosts);
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const e = pick(rnd, base);
    lines.push(JSON.stringify(rnd() < matchingShare ? e : varyEvent(e, rnd, binaries, fleet)));
  }
  return lines;
}

const PARENTS = [`${SYS}\\services.exe`, `${SYS}\\svchost.exe`, 'C:\\Windows\\explorer.exe'];
const VENDOR_ROOTS = ['C:\\Program Files', 'C:\\Program Files (x86)'];

/**
 * Events of a large fleet, as an ingest pipeline receives them: the programs above plus `programs`
 * installed applications (each its own image under Program Files with its own arguments), `users`
 * domain accounts, `hosts` machines, and an `@timestamp` within the `spanMs` before `endMs`; about
 * `matchingShare` are unmodified regression (matching) events, stamped likewise; with `alerts`, the
 * others are drawn so that they raise none.
 */
export function fleetEvents(
  corpusDir: string,
  count: number,
  options: {
    seed?: number;
    matchingShare?: number;
    programs?: number;
    users?: number;
    hosts?: number;
    endMs?: number;
    spanMs?: number;
    /** Whether a generated event would raise an alert: such an event is drawn again (up to 20 times), so
     * only the unmodified regression events alert, as in a fleet where alerts are rare. */
    alerts?: (event: Record<string, unknown>) => boolean;
  } = {},
): string[] {
  const { seed = 7, matchingShare = 0.01, endMs = Date.now(), spanMs = 24 * 3600 * 1000 } = options;
  const base = regressionEvents(corpusDir);
  const rnd = prng(seed);
  const binaries = new Map<string, Binary>();
  const installed: Program[] = Array.from({ length: options.programs ?? 3000 }, () => {
    const folder = `${pick(rnd, VENDOR_ROOTS)}\\${word(rnd)}\\${word(rnd)}`;
    return {
      image: `${folder}\\${word(rnd)}.exe`,
      parents: [pick(rnd, PARENTS)],
      args: [`--${word(rnd)}`, `/${word(rnd)} "${folder}\\${word(rnd)}.cfg"`, ''],
    };
  });
  const users = Array.from({ length: options.users ?? 2000 }, () => `CORP\\${word(rnd)}.${word(rnd)}`);
  const hosts = Array.from({ length: options.hosts ?? 5000 }, () => `ws-${word(rnd)}-${Math.floor(rnd() * 1000)}.corp.example`);
  const fleet = fleetOf([...PROGRAMS, ...installed], [...USERS, ...users], hosts);
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const e = pick(rnd, base);
    const original = rnd() < matchingShare;
    let event = original ? { ...e } : varyEvent(e, rnd, binaries, fleet);
    for (let tries = 0; !original && options.alerts?.(event) && tries < 20; tries++) event = varyEvent(pick(rnd, base), rnd, binaries, fleet);
    event['@timestamp'] = new Date(endMs - Math.floor(rnd() * spanMs)).toISOString();
    lines.push(JSON.stringify(event));
  }
  return lines;
}

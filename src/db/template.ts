// A migrated embedded database made once by the build (scripts/build.mjs writes dist/db-template),
// from which a start on an empty data directory begins instead of running initdb and every migration:
// its files are what initdb and the migrations write, copied into place. The template is used only
// when its key (the PGlite version and the migrations' SQL) is the running code's; any other template,
// or none, leaves the start to initdb and the migrations as before.
import { createHash } from 'node:crypto';
import { constants, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cp, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrate } from './migrate.js';
import { migrations } from './migrations/index.js';
import { openPglite } from './pglite.js';
import { syncPath, syncTree } from './sync-files.js';

/** dist/db-template of this checkout, from src/db (tests, tsx) and dist/db (the compiled server) alike. */
export const TEMPLATE_DIR = fileURLToPath(new URL('../../dist/db-template/', import.meta.url));

const KEY_FILE = 'template-key';
const DATA = 'pgdata';

function pgliteVersion(): string {
  let dir = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      const { name, version } = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version?: string };
      if (name === '@electric-sql/pglite' && version) return version;
    }
    if (dirname(dir) === dir) return 'unknown';
    dir = dirname(dir);
  }
}

/** What the template must have been made from to stand for initdb and the migrations of this code. */
export function templateKey(): string {
  const hash = createHash('sha256').update(`pglite ${pgliteVersion()}\n`);
  for (const migration of migrations) hash.update(`${migration.version}\0${migration.name}\0${migration.sql}\0`);
  return hash.digest('hex');
}

function keyOf(templateDir: string): string | undefined {
  const path = join(templateDir, KEY_FILE);
  return existsSync(path) ? readFileSync(path, 'utf8').trim() : undefined;
}

/** Makes the template in `templateDir` unless the one there already has this code's key. */
export async function writeTemplate(templateDir: string = TEMPLATE_DIR): Promise<boolean> {
  const key = templateKey();
  if (keyOf(templateDir) === key && existsSync(join(templateDir, DATA, 'PG_VERSION'))) return false;
  rmSync(templateDir, { recursive: true, force: true });
  mkdirSync(templateDir, { recursive: true });
  const db = await openPglite({ dataDir: join(templateDir, DATA) });
  try {
    await migrate(db);
  } finally {
    await db.close();
  }
  // Written last: a template interrupted before this line has no key and is never used.
  writeFileSync(join(templateDir, KEY_FILE), `${key}\n`);
  return true;
}

/**
 * Puts the template's files at `dataDir` when nothing is there yet and the template fits this code;
 * answers whether it did. The copy is synced to the disk and renamed into place, so an interrupted one
 * (even by a power loss) leaves no database. It runs on libuv's pool: the starting process loads its
 * modules meanwhile.
 */
export async function startFromTemplate(dataDir: string, templateDir: string = TEMPLATE_DIR): Promise<boolean> {
  if (existsSync(dataDir) || keyOf(templateDir) !== templateKey()) return false;
  const source = join(templateDir, DATA);
  if (!existsSync(join(source, 'PG_VERSION'))) return false;
  const partial = `${dataDir}.partial-${process.pid}`;
  await rm(partial, { recursive: true, force: true });
  await cp(source, partial, { recursive: true, mode: constants.COPYFILE_FICLONE });
  await syncTree(partial);
  await rename(partial, dataDir);
  await syncPath(dirname(dataDir));
  return true;
}

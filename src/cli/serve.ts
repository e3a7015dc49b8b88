// `vigil serve`: runs the service with configuration from the environment until SIGINT/SIGTERM.
// The database starts opening (on its own thread) before the service's modules load on this one, and
// the banner says how long the start took, from the process's start to listening.
import type { AddressInfo } from 'node:net';
import { PASSWORD_HASH_COST, passwordHashCost } from '../auth/passwords.js';
import { ConfigError, loadConfig } from '../config.js';
import { DataDirLockedError } from '../db/data-dir-lock.js';
import { openDatabase } from '../db/open.js';
import type { Service } from '../server.js';
import { serveBanner } from './serve-banner.js';

export async function serve(_args: string[]): Promise<number> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`vigil: configuration error: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  if (passwordHashCost() !== PASSWORD_HASH_COST) {
    process.stderr.write('vigil: WARNING: VIGIL_TEST_PASSWORD_HASHING=fast hashes passwords with a test suite\'s weak cost; never use it with real passwords\n');
  }
  let service: Service;
  try {
    const opening = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
    // Handled when createService awaits it; a failure must not count as unhandled while modules load.
    opening.catch(() => {});
    const { createService } = await import('../server.js');
    service = await createService(config, {
      logger: { level: config.logLevel },
      trustProxy: process.env.TRUST_PROXY === 'true',
      opening,
    });
  } catch (error) {
    if (error instanceof DataDirLockedError) {
      process.stderr.write(`vigil: ${error.message}\n`);
      return 1;
    }
    const where = config.databaseUrl ? 'the PostgreSQL database at DATABASE_URL' : `the embedded database in ${config.dataDir}`;
    process.stderr.write(`vigil: could not start with ${where}: ${(error as Error).message}\n`);
    return 1;
  }
  if (service.bootstrap?.generatedPassword) {
    process.stdout.write(
      `\nCreated admin user '${service.bootstrap.username}' with generated password: ${service.bootstrap.generatedPassword}\n` +
        'This password is shown only once. Change it after signing in (POST /api/auth/password).\n\n',
    );
  } else if (service.bootstrap) {
    process.stdout.write(`Created admin user '${service.bootstrap.username}' with the password from ADMIN_PASSWORD.\n`);
  }
  try {
    await service.app.listen({ host: config.host, port: config.port });
  } catch (error) {
    await service.close();
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'EADDRINUSE' ? 'the address is already in use' : code === 'EACCES' ? 'permission denied' : (error as Error).message;
    process.stderr.write(`vigil: cannot listen on ${config.host}:${config.port}: ${reason}\n`);
    return 1;
  }
  // With PORT=0 the system picks the port: the banner shows the real one.
  const { port } = service.app.server.address() as AddressInfo;
  process.stdout.write(serveBanner(config, port, process.uptime()));

  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await service.close();
  return 0;
}

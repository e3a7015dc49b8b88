// `vigil serve`: runs the service with configuration from the environment until SIGINT/SIGTERM.
import { ConfigError, loadConfig } from '../config.js';
import { DataDirLockedError } from '../db/data-dir-lock.js';
import { createService } from '../server.js';

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
  let service;
  try {
    service = await createService(config, {
      logger: { level: config.logLevel },
      trustProxy: process.env.TRUST_PROXY === 'true',
    });
  } catch (error) {
    if (error instanceof DataDirLockedError) {
      process.stderr.write(`vigil: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
  if (service.bootstrap?.generatedPassword) {
    process.stdout.write(
      `\nCreated admin user '${service.bootstrap.username}' with generated password: ${service.bootstrap.generatedPassword}\n` +
        'This password is shown only once. Change it after signing in (POST /api/auth/password).\n\n',
    );
  } else if (service.bootstrap) {
    process.stdout.write(`Created admin user '${service.bootstrap.username}' with the password from ADMIN_PASSWORD.\n`);
  }
  await service.app.listen({ host: config.host, port: config.port });
  const storage = config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `embedded database in ${config.dataDir}`;
  process.stdout.write(`Vigil is serving on ${config.publicUrl} (storage: ${storage})\n`);

  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await service.close();
  return 0;
}

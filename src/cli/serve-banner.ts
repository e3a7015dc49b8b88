// The line `vigil serve` prints once it listens: the address it listens on, the public address users
// reach (PUBLIC_URL) when that is another one, where the data lives, and how long the start took.
import { httpUrl, type Config } from '../config.js';

/** `startSeconds`: from the process's start to listening. */
export function serveBanner(config: Config, listeningPort: number, startSeconds: number): string {
  const listening = httpUrl(config.host, listeningPort);
  // PUBLIC_URL unset defaults to the configured address, which is the listening one (or, with PORT=0,
  // an address with port 0 that nobody reaches): only a PUBLIC_URL of its own is shown.
  const publicUrl = config.publicUrl !== httpUrl(config.host, config.port) && config.publicUrl !== listening ? config.publicUrl : undefined;
  const storage = config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `embedded database in ${config.dataDir}`;
  return `Vigil is serving on ${listening} (${publicUrl ? `public address: ${publicUrl}; ` : ''}storage: ${storage}; ready in ${startSeconds.toFixed(1)} s)\n`;
}

// The ordered list of schema migrations. Append only: a released migration is never edited.
import { sql as foundation } from './001-foundation.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const migrations: Migration[] = [{ version: 1, name: 'foundation', sql: foundation }];

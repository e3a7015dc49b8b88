// The public shape of a user: never the password hash.
import { Type } from '@fastify/type-provider-typebox';
import { ROLES } from '../auth/roles.js';
import { StringEnum, Timestamp, Uuid } from '../http/schemas.js';
import type { UserRow } from './store.js';

export const UserSchema = Type.Object(
  {
    id: Uuid,
    username: Type.String(),
    role: StringEnum(ROLES),
    disabled: Type.Boolean(),
    auth_method: StringEnum(['local', 'sso'] as const),
    two_factor_enabled: Type.Boolean(),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'User' },
);

export function userView(row: UserRow) {
  return {
    id: row.id,
    username: row.username,
    role: row.role,
    disabled: row.disabled,
    auth_method: row.auth_method,
    two_factor_enabled: Boolean(row.two_factor_enabled),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

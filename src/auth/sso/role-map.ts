// OIDC_ROLE_MAP: which role a signed-in user gets from the groups (or other values) the provider
// sends in the role claim. Written `group:role,group:role`; the highest role among the matching
// entries wins, and a user matching none gets the default role.
import { hasRole, ROLES, type Role } from '../roles.js';

export interface RoleMapEntry {
  value: string;
  role: Role;
}

/** Parses `group:role,…` (the last `:` separates the role, so group names may contain `:`); throws an Error naming the bad entry. */
export function parseRoleMap(text: string): RoleMapEntry[] {
  const entries: RoleMapEntry[] = [];
  for (const raw of text.split(',')) {
    const item = raw.trim();
    if (item === '') continue;
    const colon = item.lastIndexOf(':');
    const value = colon > 0 ? item.slice(0, colon).trim() : '';
    const role = colon > 0 ? item.slice(colon + 1).trim() : '';
    if (value === '' || !(ROLES as readonly string[]).includes(role)) {
      throw new Error(`OIDC_ROLE_MAP entry '${item.slice(0, 80)}' must be group:role with role one of ${ROLES.join(', ')}`);
    }
    entries.push({ value, role: role as Role });
  }
  return entries;
}

/** The values of the role claim: a string, an array of strings (other types are ignored). */
export function claimValues(claim: unknown): string[] {
  if (typeof claim === 'string') return [claim];
  if (Array.isArray(claim)) return claim.filter((v): v is string => typeof v === 'string');
  return [];
}

/** The role for these claim values: the highest mapped one, else `defaultRole`. */
export function mapRole(entries: RoleMapEntry[], values: string[], defaultRole: Role): Role {
  const present = new Set(values);
  let best: Role | undefined;
  for (const entry of entries) {
    if (present.has(entry.value) && (best === undefined || !hasRole(best, entry.role))) best = entry.role;
  }
  return best ?? defaultRole;
}

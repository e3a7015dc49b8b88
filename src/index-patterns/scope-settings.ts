// Checks and normal forms of an index pattern's placeholder values and log-source scope (the parts of
// their rules a schema cannot say): placeholder names are what a rule may write between two `%`, and an
// empty scope is stored as "any" (null), its entries with their attributes in one order.
import { badRequest } from '../http/errors.js';
import type { LogsourceScopeEntry } from './store.js';

const MAX_NAME_CHARS = 100;

/** 400 naming each placeholder name a rule could not write (`%` inside, blank, too long). */
export function checkPlaceholders(placeholders: Record<string, string[]> | undefined): void {
  if (!placeholders) return;
  const errors = Object.keys(placeholders)
    .filter((name) => name.length === 0 || name.length > MAX_NAME_CHARS || name.includes('%') || name.trim() === '')
    .map((name) => ({
      field: `body.placeholders.${name}`,
      message: `a placeholder name is 1 to ${MAX_NAME_CHARS} characters without '%' (a rule writes it as %name%)`,
    }));
  if (errors.length > 0) throw badRequest('Invalid request', errors);
}

/** The scope as stored: null for any (null or []), entries as {product, category, service} given. */
export function normaliseScope(scope: LogsourceScopeEntry[] | null | undefined): LogsourceScopeEntry[] | null {
  if (!scope || scope.length === 0) return null;
  return scope.map((e) => ({
    ...(e.product !== undefined ? { product: e.product } : {}),
    ...(e.category !== undefined ? { category: e.category } : {}),
    ...(e.service !== undefined ? { service: e.service } : {}),
  }));
}

// Every action the audit log records, by name. `recordAudit` takes only these (the compiler holds each
// call to the list), and docs/api.md lists the same names (test/audit/actions.test.ts compares them),
// so what the log can hold and what the docs promise cannot drift apart.

/** Secret checks under the login throttle (src/auth/login.ts): each records `<check>_failed` for a wrong
 * password or code and `<check>_blocked` while its account or address is throttled. */
export const THROTTLED_CHECKS = [
  'auth.login',
  'auth.password_change',
  'auth.2fa',
  'auth.2fa_enable',
  'auth.2fa_disable',
  'auth.2fa_disable_password',
] as const;
export type ThrottledCheck = (typeof THROTTLED_CHECKS)[number];

/** The actions recorded under their own name. */
const NAMED_ACTIONS = [
  'auth.login',
  'auth.lockout',
  'auth.logout',
  'auth.password_changed',
  'auth.2fa_setup',
  'auth.2fa_enabled',
  'auth.2fa_disabled',
  'auth.2fa_required',
  'auth.2fa_verified',
  'auth.2fa_reset',
  'user.bootstrap_admin',
  'user.create',
  'user.update',
  'user.delete',
  'index_pattern.create',
  'index_pattern.update',
  'index_pattern.delete',
  'index_pattern.rotate_token',
  'rule.create',
  'rule.update',
  'rule.rollback',
  'rule.deploy',
  'rule.undeploy',
  'rule.delete',
  'rule.import',
  'rule.reconcile',
  'rule.set_aside',
  'rule.exception_create',
  'rule.exception_update',
  'rule.exception_delete',
  'rule.suppression_set',
  'rule.suppression_delete',
  'alert.status_changed',
  'alert.comment_added',
  'alert.assigned',
  'alert.bulk_changed',
  'threat_intel_feed.create',
  'threat_intel_feed.delete',
  'api_key.create',
  'api_key.revoke',
  'notification_channel.create',
  'notification_channel.update',
  'notification_channel.delete',
  'notification_channel.test',
  'notification_channel.unhealthy',
  'notification_channel.recovered',
  'notification_delivery.retry',
] as const;

export type AuditAction = (typeof NAMED_ACTIONS)[number] | `${ThrottledCheck}_failed` | `${ThrottledCheck}_blocked`;

/** All of them, each once. */
export const AUDIT_ACTIONS: readonly AuditAction[] = [
  ...NAMED_ACTIONS,
  ...THROTTLED_CHECKS.flatMap((check) => [`${check}_failed` as const, `${check}_blocked` as const]),
];

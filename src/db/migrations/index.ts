// The ordered list of schema migrations. Append only: a released migration is never edited.
import { sql as foundation } from './001-foundation.js';
import { sql as rules } from './002-rules.js';
import { sql as exceptionUniqueness } from './003-exception-uniqueness.js';
import { sql as alerts } from './004-alerts.js';
import { sql as threatIntel } from './005-threat-intel.js';
import { sql as patternScope } from './006-pattern-scope.js';
import { sql as alertIndexes } from './007-alert-indexes.js';
import { sql as ingestStorage } from './008-ingest-storage.js';
import { sql as apiKeys } from './009-api-keys.js';
import { sql as twoFactor } from './010-two-factor.js';
import { sql as sso } from './011-sso.js';
import { sql as canonicalEventHash } from './012-canonical-event-hash.js';
import { sql as alertStatusSeverityIndex } from './013-alert-status-severity-index.js';
import { sql as correlationRules } from './014-correlation-rules.js';
import { sql as eventBlocks } from './015-event-blocks.js';
import { sql as notifications } from './016-notifications.js';
import { sql as alertSuppression } from './017-alert-suppression.js';
import { sql as alertAssignee } from './018-alert-assignee.js';
import { sql as alertEventTimeIndex } from './019-alert-event-time-index.js';
import { sql as correlationState } from './020-correlation-state.js';
import { sql as deliveryLeaseHolder } from './021-delivery-lease-holder.js';
import { sql as exceptionExpiryHits } from './022-exception-expiry-hits.js';
import { sql as eventBlockStartIndex } from './023-event-block-start-index.js';
import { sql as alertSearchTable } from './024-alert-search-table.js';
import { sql as correlationGroupClocks } from './025-correlation-group-clocks.js';
import { sql as statusIndexRule } from './026-status-index-rule.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const migrations: Migration[] = [
  { version: 1, name: 'foundation', sql: foundation },
  { version: 2, name: 'rules', sql: rules },
  { version: 3, name: 'exception uniqueness', sql: exceptionUniqueness },
  { version: 4, name: 'alerts', sql: alerts },
  { version: 5, name: 'threat intel', sql: threatIntel },
  { version: 6, name: 'pattern scope', sql: patternScope },
  { version: 7, name: 'alert indexes', sql: alertIndexes },
  { version: 8, name: 'ingest storage', sql: ingestStorage },
  { version: 9, name: 'api keys', sql: apiKeys },
  { version: 10, name: 'two factor', sql: twoFactor },
  { version: 11, name: 'single sign-on', sql: sso },
  { version: 12, name: 'canonical event hash', sql: canonicalEventHash },
  { version: 13, name: 'alert status severity index', sql: alertStatusSeverityIndex },
  { version: 14, name: 'correlation rules', sql: correlationRules },
  { version: 15, name: 'event blocks', sql: eventBlocks },
  { version: 16, name: 'notifications', sql: notifications },
  { version: 17, name: 'alert suppression', sql: alertSuppression },
  { version: 18, name: 'alert assignee', sql: alertAssignee },
  { version: 19, name: 'alert event time index', sql: alertEventTimeIndex },
  { version: 20, name: 'correlation state', sql: correlationState },
  { version: 21, name: 'delivery lease holder', sql: deliveryLeaseHolder },
  { version: 22, name: 'exception expiry and hits', sql: exceptionExpiryHits },
  { version: 23, name: 'event block start index', sql: eventBlockStartIndex },
  { version: 24, name: 'alert search table', sql: alertSearchTable },
  { version: 25, name: 'correlation group clocks', sql: correlationGroupClocks },
  { version: 26, name: 'status index with rule', sql: statusIndexRule },
];

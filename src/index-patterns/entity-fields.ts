// Where an event's entities are found: the first of these fields (dotted paths) that holds a value.
// Defaults cover ECS, Sysmon/Windows Security and common syslog-style names; a pattern may override.
import type { EntityFields } from './store.js';

export const DEFAULT_ENTITY_FIELDS: EntityFields = {
  source_ip: ['source.ip', 'client.ip', 'SourceIp', 'SourceAddress', 'IpAddress', 'src_ip', 'winlog.event_data.IpAddress', 'winlog.event_data.SourceIp'],
  user: ['user.name', 'User', 'TargetUserName', 'SubjectUserName', 'winlog.event_data.User', 'winlog.event_data.TargetUserName', 'winlog.user.name', 'user', 'username'],
  host: ['host.name', 'host.hostname', 'Computer', 'winlog.computer_name', 'hostname', 'host'],
};

export function effectiveEntityFields(custom: Partial<EntityFields>): EntityFields {
  return {
    source_ip: custom.source_ip ?? DEFAULT_ENTITY_FIELDS.source_ip,
    user: custom.user ?? DEFAULT_ENTITY_FIELDS.user,
    host: custom.host ?? DEFAULT_ENTITY_FIELDS.host,
  };
}

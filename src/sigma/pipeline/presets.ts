// Built-in pipelines and the pipeline builder. Promises: presets are data; `buildPipeline` starts from a
// preset (or an empty identity pipeline) and overrides its default mapping and field mappings.
import type { LogsourceCondition, Pipeline, PipelineSpec } from './pipeline.js';
import { THOR_LOGSOURCES } from './thor-data.js';

/** pySigma ecs_windows field table (log-shippers.md §2): the mappings that hold for every log source. */
const ECS_WINDOWS: Record<string, string[]> = {
  EventID: ['event.code'],
  Channel: ['winlog.channel'],
  Provider_Name: ['winlog.provider_name'],
  ComputerName: ['winlog.computer_name'],
  Image: ['process.executable'],
  ParentImage: ['process.parent.executable'],
  ParentCommandLine: ['process.parent.command_line'],
  ProcessId: ['process.pid'],
  ProcessGuid: ['process.entity_id'],
  ParentProcessId: ['process.parent.pid'],
  ParentProcessGuid: ['process.parent.entity_id'],
  CurrentDirectory: ['process.working_directory'],
  TargetFilename: ['file.path'],
  ImageLoaded: ['file.path'],
  FileName: ['file.path'],
  Device: ['file.path'],
  ScriptName: ['file.path'],
  Signed: ['file.code_signature.signed'],
  SignatureStatus: ['file.code_signature.status'],
  Imphash: ['file.pe.imphash'],
  PipeName: ['file.name'],
  SourceIp: ['source.ip'],
  SourcePort: ['source.port'],
  SourceHostname: ['source.domain'],
  DestinationIp: ['destination.ip'],
  DestinationPort: ['destination.port'],
  DestinationHostname: ['destination.domain'],
  DestinationPortName: ['network.protocol'],
  TargetObject: ['registry.path'],
  QueryName: ['dns.question.name'],
  QueryStatus: ['sysmon.dns.status'],
  SourceImage: ['process.executable'],
  SourceProcessId: ['process.pid'],
  SourceThreadId: ['process.thread.id'],
  User: ['user.name'],
  AccountName: ['user.name'],
  TargetDomainName: ['user.domain'],
  AccountDomain: ['user.domain'],
  IpAddress: ['source.ip'],
  ClientAddress: ['source.ip'],
  IpPort: ['source.port'],
  NewProcessName: ['process.executable'],
  ProcessName: ['process.executable'],
  Application: ['process.executable'],
  // Winlogbeat 7's security module writes a 4688 event's ParentProcessName (a full path) to
  // process.parent.executable and its file name to process.parent.name: a Security 4688 ParentImage
  // (renamed ParentProcessName) is found in either.
  ParentProcessName: ['process.parent.executable', 'process.parent.name'],
  ScriptBlockText: ['powershell.file.script_block_text'],
  Payload: ['powershell.file.script_block_text'],
  HostApplication: ['process.command_line'],
  // The rest of pySigma's ecs_windows table (Sysmon, PowerShell and Security names).
  SourceProcessGuid: ['process.entity_id'],
  Destination: ['process.executable'],
  IsExecutable: ['sysmon.file.is_executable'],
  Archived: ['sysmon.file.archived'],
  CommandName: ['powershell.command.name'],
  CommandPath: ['powershell.command.path'],
  CommandType: ['powershell.command.type'],
  HostId: ['process.entity_id'],
  HostName: ['process.title'],
  NewEngineState: ['powershell.engine.new_state'],
  PipelineId: ['powershell.pipeline_id'],
  PreviousEngineState: ['powershell.engine.previous_state'],
  RunspaceId: ['powershell.runspace_id'],
  SequenceNumber: ['event.sequence'],
  NewProviderState: ['powershell.provider.new_state'],
  ProviderName: ['powershell.provider.name'],
  MessageNumber: ['powershell.sequence'],
  MessageTotal: ['powershell.total'],
  ScriptBlockId: ['powershell.file.script_block_id'],
  ClientName: ['source.domain'],
  DestAddress: ['destination.ip'],
  DestPort: ['destination.port'],
  NewProcessId: ['process.pid'],
  SourceAddress: ['source.ip'],
  WorkstationName: ['source.domain'],
};

/** ecs_windows mappings that depend on the log source (log-shippers.md §2); outside these log sources the
 * fields take the default prefix (winlog.event_data.). */
const PE_FIELDS: Record<string, string> = {
  OriginalFileName: 'original_file_name',
  Product: 'product',
  Company: 'company',
  Description: 'description',
  FileVersion: 'file_version',
};
const peFields = (prefix: string): Record<string, string[]> => Object.fromEntries(Object.entries(PE_FIELDS).map(([f, ecs]) => [f, [`${prefix}${ecs}`]]));
const POWERSHELL_CLASSIC = {
  CommandLine: ['powershell.command.value'],
  EngineVersion: ['powershell.engine.version'],
  HostVersion: ['powershell.process.executable_version'],
};
const ECS_WINDOWS_SCOPED: NonNullable<Pipeline['scopedFieldMappings']> = [
  { logsource: { category: 'process_creation', product: 'windows' }, mappings: { ...peFields('process.pe.'), CommandLine: ['process.command_line'] } },
  { logsource: { category: 'image_load', product: 'windows' }, mappings: peFields('file.pe.') },
  { logsource: { category: 'network_connection', product: 'windows' }, mappings: { Protocol: ['network.transport'], Initiated: ['network.direction'] } },
  // Also the ps_classic_* categories, which thor.yml rewrites to this service.
  { logsource: { product: 'windows', service: 'powershell-classic' }, mappings: POWERSHELL_CLASSIC },
  {
    logsource: { product: 'windows', service: 'security' },
    mappings: {
      CommandLine: ['process.command_line'],
      SubjectUserName: ['user.name'],
      SubjectDomainName: ['user.domain'],
      SubjectUserSid: ['user.id'],
      SubjectLogonId: ['winlog.logon.id'],
      TargetLogonId: ['winlog.logon.id'],
      // Only the Security channel's service events (4697) carry ServiceName as service.name; a System 7045
      // keeps it under winlog.event_data.
      ServiceName: ['service.name', 'winlog.event_data.ServiceName'],
    },
  },
];

const WINLOGBEAT_RAW: Record<string, string[]> = {
  EventID: ['winlog.event_id', 'event.code'],
  Channel: ['winlog.channel'],
  Provider_Name: ['winlog.provider_name'],
  Computer: ['winlog.computer_name'],
  ComputerName: ['winlog.computer_name'],
};

/** Services of pySigma's Windows log source table (sigma/pipelines/common.py) that thor.yml does not name,
 * as channel conditions for the Winlogbeat presets (whose log source handling is pySigma's). */
const COMMON_EXTRA_SERVICES: Record<string, string> = {
  'dns-server': 'DNS Server',
  'dns-server-audit': 'Microsoft-Windows-DNS-Server/Audit',
  'dns-server-analytic': 'Microsoft-Windows-DNS-Server/Analytical',
  'driver-framework': 'Microsoft-Windows-DriverFrameworks-UserMode/Operational',
  'microsoft-servicebus-client': 'Microsoft-ServiceBus-Client',
  ldap_debug: 'Microsoft-Windows-LDAP-Client/Debug',
};
const WINLOGBEAT_LOGSOURCES: LogsourceCondition[] = [
  ...THOR_LOGSOURCES,
  ...Object.entries(COMMON_EXTRA_SERVICES).map(([service, channel]) => ({ logsource: { product: 'windows', service }, conditions: { Channel: channel } })),
];
/** pySigma's ecs_windows maps the fields of Windows rules only; the Winlogbeat presets do the same. */
const WINDOWS_RULES = { product: 'windows' };

/** Where Windows events carry their time: evtx_dump's JSON (attributes under #attributes or inline), or flattened. */
const EVTX_TIME_FIELDS = ['Event.System.TimeCreated.#attributes.SystemTime', 'Event.System.TimeCreated.SystemTime', 'TimeCreated', 'UtcTime'];
/** Where Beats put the time of an event. */
const BEATS_TIME_FIELDS = ['@timestamp', 'winlog.time_created', 'event.created'];

const PRESETS: Pipeline[] = [
  {
    name: 'sigma-native',
    description: 'Identity mapping, no log source conditions: events flattened like the SigmaHQ regression data (EventData and System fields at top level).',
    defaultMapping: 'identity',
    fieldMappings: {},
    logsources: [],
    vars: {},
    unresolvedPlaceholders: 'error',
    flattenEvtxDump: true,
    timeFields: EVTX_TIME_FIELDS,
  },
  {
    name: 'windows-thor',
    description: "sigma-native plus the log source conditions of SigmaHQ's tests/thor.yml (category → Sysmon/Security EventID and Channel, service → Channel).",
    defaultMapping: 'identity',
    fieldMappings: {},
    logsources: THOR_LOGSOURCES,
    vars: {},
    unresolvedPlaceholders: 'error',
    flattenEvtxDump: true,
    timeFields: EVTX_TIME_FIELDS,
  },
  {
    name: 'ecs-windows',
    description: 'pySigma ecs_windows: Winlogbeat 7 / ECS field names, unmapped undotted fields under winlog.event_data., thor log source conditions.',
    defaultMapping: { prefix: 'winlog.event_data.' },
    fieldMappings: ECS_WINDOWS,
    scopedFieldMappings: ECS_WINDOWS_SCOPED,
    mappingScope: WINDOWS_RULES,
    logsources: WINLOGBEAT_LOGSOURCES,
    vars: {},
    unresolvedPlaceholders: 'error',
    timeFields: BEATS_TIME_FIELDS,
  },
  {
    name: 'winlogbeat-raw',
    description: 'Winlogbeat 8 raw events: fields under winlog.event_data., EventID → winlog.event_id or event.code, Channel → winlog.channel, thor log source conditions.',
    defaultMapping: { prefix: 'winlog.event_data.' },
    fieldMappings: WINLOGBEAT_RAW,
    mappingScope: WINDOWS_RULES,
    logsources: WINLOGBEAT_LOGSOURCES,
    vars: {},
    unresolvedPlaceholders: 'error',
    timeFields: BEATS_TIME_FIELDS,
  },
  {
    name: 'nxlog-windows',
    description:
      "NXLog JSON of Windows events (im_msvistalog, as in the OTRF security datasets): flat fields, SourceName as Provider_Name, Hostname as Computer, classic PowerShell details read from Message's Key=Value lines (and Message as Data); thor log source conditions.",
    defaultMapping: 'identity',
    fieldMappings: {},
    logsources: WINLOGBEAT_LOGSOURCES,
    vars: {},
    unresolvedPlaceholders: 'error',
    eventShape: 'nxlog',
    timeFields: ['EventTime', 'EventReceivedTime'],
  },
  {
    name: 'sentinel-windows-event',
    description:
      "Microsoft Sentinel WindowsEvent rows (exports): EventData decoded from its JSON text and its fields read at top level, Provider as Provider_Name, Channel, Computer and EventID as they are; thor log source conditions.",
    defaultMapping: 'identity',
    fieldMappings: {},
    logsources: WINLOGBEAT_LOGSOURCES,
    vars: {},
    unresolvedPlaceholders: 'error',
    eventShape: 'sentinel-windows-event',
    timeFields: ['TimeGenerated', 'TimeCreated'],
  },
];

export function getPreset(name: string): Pipeline | undefined {
  return PRESETS.find((p) => p.name === name);
}

export function listPresets(): { name: string; description: string }[] {
  return PRESETS.map(({ name, description }) => ({ name, description }));
}

/** Build a pipeline from a spec: preset (optional) + default mapping + field mappings + placeholder
 * values + log-source scope. The spec's mappings win over the preset's (scoped ones included) and apply
 * to rules of every log source; the preset's event shaping is kept. */
export function buildPipeline(spec: PipelineSpec): Pipeline {
  const base = spec.preset ? getPreset(spec.preset) : undefined;
  if (spec.preset && !base) throw new Error(`unknown pipeline preset '${spec.preset}'`);
  const overrides: Record<string, string[]> = {};
  for (const m of spec.fieldMappings) overrides[m.sigmaField] = [...m.targetFields];
  return {
    name: base ? `${base.name}+custom` : 'custom',
    description: base ? `${base.description} (customised)` : 'custom pipeline',
    defaultMapping: spec.defaultMapping,
    fieldMappings: { ...(base?.fieldMappings ?? {}) },
    overrides,
    logsources: base?.logsources ?? [],
    scopedFieldMappings: base?.scopedFieldMappings ?? [],
    mappingScope: base?.mappingScope,
    vars: { ...(base?.vars ?? {}), ...(spec.vars ?? {}) },
    unresolvedPlaceholders: spec.unresolvedPlaceholders ?? base?.unresolvedPlaceholders ?? 'error',
    ...(base?.flattenEvtxDump ? { flattenEvtxDump: true } : {}),
    ...(base?.eventShape ? { eventShape: base.eventShape } : {}),
    ...(spec.logsourceScope && spec.logsourceScope.length > 0 ? { logsourceScope: spec.logsourceScope.map((e) => ({ ...e })) } : {}),
  };
}

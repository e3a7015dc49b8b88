// Public API of the Sigma engine (a pure library: no I/O, no imports from outside src/sigma/).
// Promises: parseRule/parseRules never throw for bad input; compileRule never throws for rule content.
// Matchers and indexes take events as values: an event object must not be changed once it has been matched
// (what was learnt of its keys may be reused); a changed event is matched as a new object.
export { parseRule, parseRules } from './load/parse-rule.js';
export { moreDocumentsThan, MAX_STREAM_BYTES } from './load/yaml11.js';
export { splitDocuments } from './load/split-documents.js';
export { compileRule } from './compile-rule.js';
export type { CompileResult, CompileOptions } from './compile-rule.js';
export { filterApplies } from './filters.js';
export { getPreset, listPresets, buildPipeline } from './pipeline/presets.js';
export { mapFieldWithOverrides } from './pipeline/pipeline.js';
export { eventShaperOf } from './pipeline/event-shape.js';
export type { EventShaper } from './pipeline/event-shape.js';
export type { Pipeline, PipelineSpec, LogsourceCondition, EventShapeName } from './pipeline/pipeline.js';
export { scopeAdmits, describeLogsource, describeScope, SCOPE_KEYS } from './pipeline/logsource-scope.js';
export type { LogsourceKeys } from './pipeline/logsource-scope.js';
export { placeholdersOf, missingPlaceholders } from './placeholders.js';
export { shapeNxlogEvent, messageDetails } from './event-shapes/nxlog.js';
export { shapeSentinelWindowsEvent } from './event-shapes/sentinel.js';
export { fieldOriginsOf } from './event-shapes/field-origins.js';
export type { FieldOrigins } from './event-shapes/field-origins.js';
export { loadYaml } from './load/yaml11.js';
export type { CompiledRule, Explanation } from './compile/matcher.js';
export type { IRNode, Test } from './ir.js';
export { buildIR, unmappedFields } from './build-ir.js';
export { compileSafeRegex } from './regex/safe-regex.js';
export { ruleCost, MAX_REGEXES, MAX_WILDCARDS, MAX_MATCH_COST } from './compile/rule-budget.js';
export type { RuleCost } from './compile/rule-budget.js';
export { eventText, overEventWork, MAX_EVENT_WORK } from './compile/event-work.js';
export { MAX_PREDICATES } from './build-ir.js';
export type { SigmaRule, ParseResult, FieldError, Level, Status, Logsource, SigmaCorrelation } from './rule.js';
export { RuleIndex } from './index/rule-index.js';
export type { RuleIndexStats } from './index/rule-index.js';
export { requirementOf } from './index/witness.js';
export type { Atom, Clause, Requirement } from './index/witness.js';
export { compileCorrelations, generatesAlerts, suppressedRuleRefs, newState, feed, advance, flush, settle, due, anyDue, clockIdOf, forgetStale, staleBefore, compactWaiting, serialize, restore, StateMismatchError } from './correlation/index.js';
export { asWaiting, windowsReached, waitingReached, clocksReached, clockText, clocksOf, parseClock, entryText, groupKeyText, liveEntries, parseEntry, windowFrom, fromParts, headOf, headText, isHeadText, newestOf, parseHead, parseWaiting, parseWindow, waitingText, windowsOf, windowText } from './correlation/index.js';
export type { CompiledCorrelation, CompileCorrelationsResult, CorrelationSet, EngineOptions, EngineState, FeedResult, Firing, RuleMatch, RejectedCorrelation } from './correlation/index.js';
export type { GroupClock, GroupState, PendingInput, WindowEntry, StateHead, StoredClock, StoredWindow, WaitingReach } from './correlation/index.js';
export { buildCatalog } from './scan/rule-catalog.js';
export type { RuleCatalog, CatalogRule, RejectedRule, RuleSource } from './scan/rule-catalog.js';
export { compileDsl } from './opensearch/compile-dsl.js';
export type { Dsl, DslOptions, DslResult } from './opensearch/compile-dsl.js';
export { flattenWindowsEvent, isEvtxDump } from './windows-event.js';
export { EventTooDeepError, MAX_EVENT_DEPTH, nestedTooDeep } from './event-depth.js';
export { eachLeaf, makeAccessor } from './compile/field-access.js';
export { foldCase } from './case-fold.js';
export type { Accessor } from './compile/field-access.js';

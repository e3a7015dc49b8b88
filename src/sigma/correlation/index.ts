// Public API of the correlation engine (sigma-notes §7): compile correlation documents into a set, keep
// one JSON state per set, feed it rule matches in any order within the allowed lateness, get firings.
//
//   const { set, rejected } = compileCorrelations(correlationRules, { latenessMs: 60_000 });
//   const state = newState(set);                     // or restore(set, savedText)
//   const { firings, warnings } = feed(set, state, { ruleRef: [id, name], eventId, time, fields });
//   ... flush(set, state) at the end of a finite input; serialize(state) to save it.
export { compileCorrelations, generatesAlerts, suppressedRuleRefs } from './compile.js';
export type { CompileCorrelationsResult, RejectedCorrelation } from './compile.js';
export { newState, feed, advance, flush, settle, due, anyDue, clockIdOf, forgetStale, staleBefore, compactWaiting } from './engine.js';
export { serialize, restore, StateMismatchError } from './state-io.js';
export { DEFAULT_OPTIONS } from './types.js';
export type { CompiledCorrelation, Comparison, ComparisonOp, CorrelationRef, CorrelationSet, CorrelationType, EngineOptions, EngineState, FeedResult, Firing, RuleMatch } from './types.js';
export { asWaiting, clocksReached, windowsReached, waitingReached, type WaitingReach } from './reach.js';
export { clockText, clocksOf, entryText, groupKeyText, liveEntries, parseClock, parseEntry, windowFrom, fromParts, headOf, headText, isHeadText, newestOf, parseHead, parseWaiting, parseWindow, waitingText, windowsOf, windowText, type StateHead, type StoredClock, type StoredWindow } from './state-parts.js';
export type { GroupClock, GroupState, PendingInput, WindowEntry } from './types.js';

// Migration 25: correlation event clocks per group. Each group's clock (the newest event time it has
// seen and the time of its last input evaluated) is a row of correlation_clocks, keyed by the SHA-256 of
// the clock's identity (group-by names and values), with its newest time indexed so stale clocks are
// forgotten by index. A waiting match records the clock it waits on and its arrival (wall clock), so a
// chunk reads the waiting matches of the groups it reaches and those due by arrival, and a timer finds
// the correlations with matches due. Heads written before this version (one clock per correlation) are
// upgraded the first time their correlation is fed.
export const sql = `
CREATE TABLE correlation_clocks (
  rule_id uuid NOT NULL REFERENCES correlation_states (rule_id) ON DELETE CASCADE,
  clock_hash text NOT NULL,
  clock_id text NOT NULL,
  newest double precision NOT NULL,
  clock text NOT NULL,
  PRIMARY KEY (rule_id, clock_hash)
);
CREATE INDEX correlation_clocks_newest_idx ON correlation_clocks (rule_id, newest);

ALTER TABLE correlation_waiting ADD COLUMN clock_hash text;
ALTER TABLE correlation_waiting ADD COLUMN arrival double precision;
CREATE INDEX correlation_waiting_clock_idx ON correlation_waiting (rule_id, clock_hash);
CREATE INDEX correlation_waiting_arrival_idx ON correlation_waiting (arrival);
`;

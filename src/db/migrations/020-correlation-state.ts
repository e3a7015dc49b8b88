// Migration 20: correlation state in parts. A correlation's row of correlation_states keeps only its
// head (clocks and counters, a few hundred bytes) once it has been fed under this version; its windows
// are one row each in correlation_windows, keyed by the correlation of the chain they belong to
// (`member`, its position in the compiled set) and the SHA-256 of the group's identity, with the time of
// the window's newest input (so expired windows are found by index) and the numbers of its first live
// and next input; the inputs of a window are one row each in correlation_window_inputs, numbered in
// order, so a window that grows is appended to, not rewritten. Matches waiting for the lateness bound
// are one row each in correlation_waiting. An ingest chunk reads and writes only the rows it reaches. A
// row written before this version (the whole state as JSON) is split into parts the first time its
// correlation is fed, so an upgrade loses no window. All of it goes with its head row.
export const sql = `
CREATE TABLE correlation_windows (
  rule_id uuid NOT NULL REFERENCES correlation_states (rule_id) ON DELETE CASCADE,
  member integer NOT NULL,
  group_hash text NOT NULL,
  group_id text NOT NULL,
  group_key text NOT NULL,
  newest double precision NOT NULL,
  first_input bigint NOT NULL,
  next_input bigint NOT NULL,
  PRIMARY KEY (rule_id, member, group_hash)
);
CREATE INDEX correlation_windows_newest_idx ON correlation_windows (rule_id, member, newest);

CREATE TABLE correlation_window_inputs (
  rule_id uuid NOT NULL REFERENCES correlation_states (rule_id) ON DELETE CASCADE,
  member integer NOT NULL,
  group_hash text NOT NULL,
  n bigint NOT NULL,
  input text NOT NULL,
  PRIMARY KEY (rule_id, member, group_hash, n)
);

CREATE TABLE correlation_waiting (
  rule_id uuid NOT NULL REFERENCES correlation_states (rule_id) ON DELETE CASCADE,
  seq bigint NOT NULL,
  event_time double precision NOT NULL,
  input text NOT NULL,
  PRIMARY KEY (rule_id, seq)
);
CREATE INDEX correlation_waiting_time_idx ON correlation_waiting (rule_id, event_time, seq);
`;

// Migration 23: event blocks also by their earliest event, so the blocks that begin within a time window
// and end after it (a request that sent hours of events at once) are found by an index range, as those
// ending within it are by event_blocks_pattern_time_idx. Read by process ancestry (alerts/process-tree-store.ts).
export const sql = `
CREATE INDEX event_blocks_pattern_first_time_idx ON event_blocks (index_pattern_id, first_time);
`;

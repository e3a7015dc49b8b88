// Migration 19: the alerts list sorted and filtered by the events' own time, read in index order like
// every other sort (event_time, then created_at and id, one direction).
export const sql = `
CREATE INDEX alerts_event_time_idx ON alerts (event_time, created_at, id);
`;

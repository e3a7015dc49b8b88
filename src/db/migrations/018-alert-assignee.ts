// Migration 18: who owns an alert. `assignee` is a user (cleared when the user is deleted), listed and
// filtered through its own index; a user may choose to take the alerts they acknowledge.
export const sql = `
ALTER TABLE alerts ADD COLUMN assignee uuid REFERENCES users (id) ON DELETE SET NULL;
CREATE INDEX alerts_assignee_idx ON alerts (assignee, created_at DESC, id DESC) WHERE assignee IS NOT NULL;
ALTER TABLE users ADD COLUMN assign_on_acknowledge boolean NOT NULL DEFAULT false;
`;

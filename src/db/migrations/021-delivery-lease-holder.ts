// Migration 21: which instance holds a delivery's lease (leased_by, a random id per running sender), so
// an attempt's outcome is recorded only by the instance whose lease it is, and a delivery whose lease
// another instance took over is never recorded twice.
export const sql = `
ALTER TABLE notification_deliveries ADD COLUMN leased_by uuid;
`;

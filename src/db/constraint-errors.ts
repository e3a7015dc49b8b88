// Recognises database constraint violations, so a race the application checks could not see (a row
// deleted or created by a concurrent request) answers 409 instead of a server error.
const UNIQUE_VIOLATION = '23505';
const FOREIGN_KEY_VIOLATION = '23503';

const codeOf = (error: unknown) => (error !== null && typeof error === 'object' ? (error as { code?: unknown }).code : undefined);

export const isUniqueViolation = (error: unknown) => codeOf(error) === UNIQUE_VIOLATION;
export const isForeignKeyViolation = (error: unknown) => codeOf(error) === FOREIGN_KEY_VIOLATION;

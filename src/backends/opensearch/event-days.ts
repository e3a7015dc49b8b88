// Names of a pattern's event indices on the cluster. The family is `svc-events-{pattern}`: events are
// written to one index per UTC day of arrival, `svc-events-{pattern}-{yyyy.MM.dd}`, and the undated
// `svc-events-{pattern}` of earlier versions is still read (and emptied by retention). Another pattern's
// indices may share the family's name as a prefix (`win` and `win-sec`), so members are told by their
// exact names, never by a wildcard alone.

export const eventIndexName = (patternName: string) => `svc-events-${patternName}`;

export const DAY_MS = 86_400_000;

/** `yyyy.MM.dd` of the UTC day holding `at`. */
export function dayStamp(at: Date): string {
  return at.toISOString().slice(0, 10).replaceAll('-', '.');
}

/** The daily index of the family `family` (prefix included) for the arrival day of `at`. */
export const dailyIndexName = (family: string, at: Date) => `${family}-${dayStamp(at)}`;

const DAY_SUFFIX = /^-(\d{4})\.(\d{2})\.(\d{2})$/;

/** The start of the UTC day an index of the family holds, null for the undated index, undefined for an index outside the family. */
export function dayOfIndex(family: string, index: string): Date | null | undefined {
  if (index === family) return null;
  if (!index.startsWith(family)) return undefined;
  const m = DAY_SUFFIX.exec(index.slice(family.length));
  if (!m) return undefined;
  const day = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return dayStamp(day) === index.slice(family.length + 1) ? day : undefined;
}

/** Only the family's own indices, given their names: a filter for searches over `{family}*`. */
export const familyFilter = (members: string[]) => ({ terms: { _index: members } });

// The text of a number, as the reference semantics spell it: pySigma keeps a number of a rule as an int
// when it is whole, else as a float, and Python's str writes them; an event's numbers are read from JSON,
// where JavaScript keeps no difference between `1` and `1.0` (both are the whole number 1). Promises: whole
// numbers are written out in full, without exponent or fraction (`1.0e+21` is `1000000000000000000000`,
// `-0.0` is `0`); other numbers as Python's repr of a float: the shortest digits that read back the same,
// with an exponent below 1e-4 written with a sign and at least two digits (`1e-05`, `1.5e-07`); `inf`,
// `-inf`, `nan`.
export function numberText(n: number): string {
  if (Number.isSafeInteger(n)) return String(n);
  if (Number.isNaN(n)) return 'nan';
  if (!Number.isFinite(n)) return n > 0 ? 'inf' : '-inf';
  if (Number.isInteger(n)) return BigInt(n).toString();
  const [mantissa, exponent] = n.toExponential().split('e');
  const e = Number(exponent);
  if (e >= -4) return String(n);
  return `${mantissa}e-${String(-e).padStart(2, '0')}`;
}

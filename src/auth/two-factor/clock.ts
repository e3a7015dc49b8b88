// The time two-factor login reads: which TOTP step is current and when a login challenge expires.
// It is the system clock; tests move it to pin codes to a known step and to age a challenge without
// waiting. Nothing else may change it.
export const twoFactorClock = {
  now: (): number => Date.now(),
};

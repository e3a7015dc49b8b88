// Correlation rules several test files use: a failed logon (EventID 4625) and a brute force over it
// (three failures of one user within five minutes).
export const FAILED_LOGON = `title: Failed Logon
name: failed_logon
id: 0e95725d-7320-415d-80f7-004da920fc11
status: test
logsource:
  product: windows
  service: security
detection:
  selection:
    EventID: 4625
  condition: selection
level: low
`;

export const bruteForce = (extra = '') => `title: Many Failed Logons For One User
name: brute_force
status: test
correlation:
  type: event_count
  rules:
    - failed_logon
  group-by:
    - TargetUserName
  timespan: 5m
  condition:
    gte: 3
level: high
${extra}`;

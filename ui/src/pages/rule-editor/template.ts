// The starting text of a new rule and of the sample log in the test panel.
export const TEMPLATE = `title: Whoami execution
id: 00000000-0000-4000-8000-000000000000
status: experimental
description: Detects whoami.exe, often run right after a compromise
logsource:
  category: process_creation
  product: windows
detection:
  selection:
    Image|endswith: '\\whoami.exe'
  condition: selection
level: medium
tags:
  - attack.discovery
`;

export const SAMPLE = `{
  "@timestamp": "${new Date().toISOString()}",
  "Image": "C:\\\\Windows\\\\System32\\\\whoami.exe",
  "User": "CORP\\\\alice"
}`;

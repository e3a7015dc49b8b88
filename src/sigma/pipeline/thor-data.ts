// Log source conditions of SigmaHQ's regression configuration `tests/thor.yml` (SigmaHQ/sigma @ 8eaafff1,
// DRL 1.1), embedded as data because the engine does no I/O. Promises: one entry per thor.yml log source
// that an event can be tested against (the five sources thor.yml locates by log file, apache, linux-auth,
// linux-syslog, logfiles and logfiles-appliances, name no event field and are left out); category entries
// carry their EventID conditions plus the Channel of the service they are rewritten to, and that rewrite
// (the log source the rule is read as from then on); service entries carry their Channel(s). Generated
// from thor.yml; edit the source table, not the logic.
import type { LogsourceCondition } from './pipeline.js';

export const THOR_LOGSOURCES: LogsourceCondition[] = [
  // process_creation_1
  {logsource: {"category": "process_creation", "product": "windows"}, conditions: {"EventID": 1, "Channel": "Microsoft-Windows-Sysmon/Operational"}, rewrite: {"product": "windows", "service": "sysmon"}},
  // process_creation_2
  {logsource: {"category": "process_creation", "product": "windows"}, conditions: {"EventID": 4688, "Channel": "Security"}, renames: {"Image": "NewProcessName", "ParentImage": "ParentProcessName"}, rewrite: {"product": "windows", "service": "security"}},
  // file_change
  {logsource: {"category": "file_change", "product": "windows"}, conditions: {"EventID": 2, "Channel": "Microsoft-Windows-Sysmon/Operational"}, rewrite: {"product": "windows", "service": "sysmon"}},
  // network_connection
  {logsource: {"category": "network_connection", "product": "windows"}, conditions: {"EventID": 3, "Channel": "Microsoft-Windows-Sysmon/Operational"}, rewrite: {"product": "windows", "service": "sysmon"}},
  // sysmon_status1
  {logsource: {"category": "sysmon_status", "product": "windows"}, conditions: {"EventID": 4, "Channel": "Microsoft-Windows-Sysmon/Operational"}, rewrite: {"product": "windows", "service": "sysmon"}},
  // sysmon_status2
  {logsource: {"category": "sysmon_status", "product": "windows"}, conditions: {"EventID": 16, "Channel": "Microsoft-Windows-Sysmon/Operational"}, rewrite: {"product": "windows", "service": "sysmon"}},
  // process_terminated
  {logsource: {"category": "process_termination", "product": "windows"}, conditions: {"EventID": 5, "Channel": "Microsoft-Windows-Sysmon/Operational"}, rewrite: {"product": "windows", "service": "sysmon"}},
  // driver_loaded
  {logsource: {"category": "driver_load", "product": "windows"}, conditions: {"EventID": 6, "Channel": "Microsoft-Windows-Sysmon/Operational"}, rewrite: {"product": "windows", "service": "sysmon"}},
  // image_loaded
  {logsource: {"category": "image_load", "product": "windows"}, conditions: {"EventID": 7, "Channel": "Microsoft-Windows-Sysmon/Operational"}, rewrite: {"product": "windows", "service": "sysmon"}},
  // create_remote_thread
  {logsource: {"category": "create_remote_thread", "product": "windows"}, conditions: {"EventID": 8, "Channel": "Microsoft-Windows-Sysmon/Operational"}, rewrite: {"product": "windows", "service": "sysmon"}},
  // raw_access_thread
  {logsource: {"category": "raw_access_thread", "product": "windows"}, conditions: {"EventID": 9, "Channel": "Microsoft-Windows-Sysmon/Operational"}, rewrite: {"product": "windows", "service": "sysmon"}},
  // process_access
  {logsource: {"category": "process_access", "product": "windows"}, conditions: {"EventID": 10, "Channel": "Microsoft-Windows-Sysmon/Operational"}, rewrite: {"product": "windows", "service": "sysmon"}},
  // file_creation
  {logsource: {"category": "file_event", "product": "windows"}, conditions: {"EventID": 11, "Channel": "Microsoft-Windows-Sysmon/Operational"}, rewrite: {"product": "windows", "service": "sysmon"}},
  // registry_event1
  {logsource: {"category": "registry_event", "product": "windows"}, conditions: {"EventID": 12, "Channel": "Microsoft-Windows-Sysmon/Operational"}, rewrite: {"product": "windows", "service": "sysmon"}},
  // registry_event2
  {logsource: {"category": "registry_event", "product": "windows"}, conditions: {"EventID": 13, "Channel": "Microsoft-Windows-Sysmon/Operational"}, rewrite: {"product": "windows", "service": "sysmon"}},
  // registry_event3
  {logsource: {"category": "registry_event", "product": "windows"}, conditions: {"EventID": 14, "Channel": "Microsoft-Windows-Sysmon/Operational"}, rewrite: {"product": "windows", "service": "sysmon"}},
  // registry_add
  {logsource: {"category": "registry_add", "product": "windows"}, conditions: {"EventID": 12, "EventType": "CreateKey", "Channel": "Microsoft-Windows-Sysmon/Operational"}, rewrite: {"product": "windows", "service": "sysmon"}},
  // registry_delete_key
  {logsource: {"category": "registry_delete", "product": "windows"}, conditions: {"EventID": 12, "EventType": "DeleteKey", "Channel": "Microsoft-Windows-Sysmon/Operational"}, rewrite: {"product": "windows", "service": "sysmon"}},
  // registry_delete_value
  {logsource: {"category": "registry_delete", "product": "windows"}, conditions: {"EventID": 12, "EventType": "DeleteValue", "Channel": "Microsoft-Windows-Sysmon/Operational"}, rewrite: {"product": "windows", "service": "sysmon"}},
  // registry_set
  {logsource: {"category": "registry_set", "product": "windows"}, conditions: {"EventID": 13, "Channel": "Microsoft-Windows-Sysmon/Operational"}, rewrite: {"product": "windows", "service": "sysmon"}},
  // registry_rename
  {logsource: {"category": "registry_rename", "product": "windows"}, conditions: {"EventID": 14, "Channel": "Microsoft-Windows-Sysmon/Operational"}, rewrite: {"product": "windows", "service": "sysmon"}},
  // create_stream_hash
  {logsource: {"category": "create_stream_hash", "product": "windows"}, conditions: {"EventID": 15, "Channel": "Microsoft-Windows-Sysmon/Operational"}, rewrite: {"product": "windows", "service": "sysmon"}},
  // pipe_created1
  {logsource: {"category": "pipe_created", "product": "windows"}, conditions: {"EventID": 17, "Channel": "Microsoft-Windows-Sysmon/Operational"}, rewrite: {"product": "windows", "service": "sysmon"}},
  // pipe_created2
  {logsource: {"category": "pipe_created", "product": "windows"}, conditions: {"EventID": 18, "Channel": "Microsoft-Windows-Sysmon/Operational"}, rewrite: {"product": "windows", "service": "sysmon"}},
  // wmi_event1
  {logsource: {"category": "wmi_event", "product": "windows"}, conditions: {"EventID": 19, "Channel": "Microsoft-Windows-Sysmon/Operational"}, rewrite: {"product": "windows", "service": "sysmon"}},
  // wmi_event2
  {logsource: {"category": "wmi_event", "product": "windows"}, conditions: {"EventID": 20, "Channel": "Microsoft-Windows-Sysmon/Operational"}, rewrite: {"product": "windows", "service": "sysmon"}},
  // wmi_event3
  {logsource: {"category": "wmi_event", "product": "windows"}, conditions: {"EventID": 21, "Channel": "Microsoft-Windows-Sysmon/Operational"}, rewrite: {"product": "windows", "service": "sysmon"}},
  // dns_query
  {logsource: {"category": "dns_query", "product": "windows"}, conditions: {"EventID": 22, "Channel": "Microsoft-Windows-Sysmon/Operational"}, rewrite: {"product": "windows", "service": "sysmon"}},
  // file_delete
  {logsource: {"category": "file_delete", "product": "windows"}, conditions: {"EventID": 23, "Channel": "Microsoft-Windows-Sysmon/Operational"}, rewrite: {"product": "windows", "service": "sysmon"}},
  // clipboard_change
  {logsource: {"category": "clipboard_change", "product": "windows"}, conditions: {"EventID": 24, "Channel": "Microsoft-Windows-Sysmon/Operational"}, rewrite: {"product": "windows", "service": "sysmon"}},
  // process_tampering
  {logsource: {"category": "process_tampering", "product": "windows"}, conditions: {"EventID": 25, "Channel": "Microsoft-Windows-Sysmon/Operational"}, rewrite: {"product": "windows", "service": "sysmon"}},
  // file_delete_detected
  {logsource: {"category": "file_delete_detected", "product": "windows"}, conditions: {"EventID": 26, "Channel": "Microsoft-Windows-Sysmon/Operational"}, rewrite: {"product": "windows", "service": "sysmon"}},
  // file_block_executable
  {logsource: {"category": "file_block_executable", "product": "windows"}, conditions: {"EventID": 27, "Channel": "Microsoft-Windows-Sysmon/Operational"}, rewrite: {"product": "windows", "service": "sysmon"}},
  // file_block_shredding
  {logsource: {"category": "file_block_shredding", "product": "windows"}, conditions: {"EventID": 28, "Channel": "Microsoft-Windows-Sysmon/Operational"}, rewrite: {"product": "windows", "service": "sysmon"}},
  // file_executable_detected
  {logsource: {"category": "file_executable_detected", "product": "windows"}, conditions: {"EventID": 29, "Channel": "Microsoft-Windows-Sysmon/Operational"}, rewrite: {"product": "windows", "service": "sysmon"}},
  // sysmon_error
  {logsource: {"category": "sysmon_error", "product": "windows"}, conditions: {"EventID": 255, "Channel": "Microsoft-Windows-Sysmon/Operational"}, rewrite: {"product": "windows", "service": "sysmon"}},
  // ps_module
  {logsource: {"category": "ps_module", "product": "windows"}, conditions: {"EventID": 4103, "Channel": ["Microsoft-Windows-PowerShell/Operational", "PowerShellCore/Operational"]}, rewrite: {"product": "windows", "service": "powershell"}},
  // ps_script
  {logsource: {"category": "ps_script", "product": "windows"}, conditions: {"EventID": 4104, "Channel": ["Microsoft-Windows-PowerShell/Operational", "PowerShellCore/Operational"]}, rewrite: {"product": "windows", "service": "powershell"}},
  // ps_classic_start
  {logsource: {"category": "ps_classic_start", "product": "windows"}, conditions: {"EventID": 400, "Channel": "Windows PowerShell"}, rewrite: {"product": "windows", "service": "powershell-classic"}},
  // ps_classic_provider_start
  {logsource: {"category": "ps_classic_provider_start", "product": "windows"}, conditions: {"EventID": 600, "Channel": "Windows PowerShell"}, rewrite: {"product": "windows", "service": "powershell-classic"}},
  // ps_classic_script
  {logsource: {"category": "ps_classic_script", "product": "windows"}, conditions: {"EventID": 800, "Channel": "Windows PowerShell"}, rewrite: {"product": "windows", "service": "powershell-classic"}},
  // windows-application
  {logsource: {"product": "windows", "service": "application"}, conditions: {"Channel": "Application"}},
  // windows-security
  {logsource: {"product": "windows", "service": "security"}, conditions: {"Channel": "Security"}},
  // windows-system
  {logsource: {"product": "windows", "service": "system"}, conditions: {"Channel": "System"}},
  // windows-ntlm
  {logsource: {"product": "windows", "service": "ntlm"}, conditions: {"Channel": "Microsoft-Windows-NTLM/Operational"}},
  // windows-sysmon
  {logsource: {"product": "windows", "service": "sysmon"}, conditions: {"Channel": "Microsoft-Windows-Sysmon/Operational"}},
  // windows-powershell
  {logsource: {"product": "windows", "service": "powershell"}, conditions: {"Channel": ["Microsoft-Windows-PowerShell/Operational", "PowerShellCore/Operational"]}},
  // windows-classicpowershell
  {logsource: {"product": "windows", "service": "powershell-classic"}, conditions: {"Channel": "Windows PowerShell"}},
  // windows-taskscheduler
  {logsource: {"product": "windows", "service": "taskscheduler"}, conditions: {"Channel": "Microsoft-Windows-TaskScheduler/Operational"}},
  // windows-wmi
  {logsource: {"product": "windows", "service": "wmi"}, conditions: {"Channel": "Microsoft-Windows-WMI-Activity/Operational"}},
  // windows-dhcp
  {logsource: {"product": "windows", "service": "dhcp"}, conditions: {"Channel": "Microsoft-Windows-DHCP-Server/Operational"}},
  // windows-printservice-admin
  {logsource: {"product": "windows", "service": "printservice-admin"}, conditions: {"Channel": "Microsoft-Windows-PrintService/Admin"}},
  // windows-smbclient-security
  {logsource: {"product": "windows", "service": "smbclient-security"}, conditions: {"Channel": "Microsoft-Windows-SmbClient/Security"}},
  // windows-smbclient-connectivity
  {logsource: {"product": "windows", "service": "smbclient-connectivity"}, conditions: {"Channel": "Microsoft-Windows-SmbClient/Connectivity"}},
  // windows-smbserver-connectivity
  {logsource: {"product": "windows", "service": "smbserver-connectivity"}, conditions: {"Channel": "Microsoft-Windows-SMBServer/Connectivity"}},
  // windows-printservice-operational
  {logsource: {"product": "windows", "service": "printservice-operational"}, conditions: {"Channel": "Microsoft-Windows-PrintService/Operational"}},
  // windows-terminalservices-localsessionmanager-operational
  {logsource: {"product": "windows", "service": "terminalservices-localsessionmanager"}, conditions: {"Channel": "Microsoft-Windows-TerminalServices-LocalSessionManager/Operational"}},
  // windows-codeintegrity-operational
  {logsource: {"product": "windows", "service": "codeintegrity-operational"}, conditions: {"Channel": "Microsoft-Windows-CodeIntegrity/Operational"}},
  // windows-applocker
  {logsource: {"product": "windows", "service": "applocker"}, conditions: {"Channel": ["Microsoft-Windows-AppLocker/MSI and Script", "Microsoft-Windows-AppLocker/EXE and DLL", "Microsoft-Windows-AppLocker/Packaged app-Deployment", "Microsoft-Windows-AppLocker/Packaged app-Execution"]}},
  // windows-msexchange-management
  {logsource: {"product": "windows", "service": "msexchange-management"}, conditions: {"Channel": "MSExchange Management"}},
  // windows-defender
  {logsource: {"product": "windows", "service": "windefend"}, conditions: {"Channel": "Microsoft-Windows-Windows Defender/Operational"}},
  // windows-defender-antivirus-mapping
  {logsource: {"category": "antivirus"}, conditions: {"EventID": [1006, 1007, 1008, 1009, 1010, 1011, 1012, 1017, 1018, 1019, 1115, 1116], "Channel": "Microsoft-Windows-Windows Defender/Operational"}, renames: {"Signature": "ThreatName", "Filename": "Path"}, rewrite: {"product": "windows", "service": "windefend"}},
  // windows-firewall-advanced-security
  {logsource: {"product": "windows", "service": "firewall-as"}, conditions: {"Channel": "Microsoft-Windows-Windows Firewall With Advanced Security/Firewall"}},
  // windows-bits-client
  {logsource: {"product": "windows", "service": "bits-client"}, conditions: {"Channel": "Microsoft-Windows-Bits-Client/Operational"}},
  // windows-security-mitigations
  {logsource: {"product": "windows", "service": "security-mitigations"}, conditions: {"Channel": ["Microsoft-Windows-Security-Mitigations/Kernel Mode", "Microsoft-Windows-Security-Mitigations/User Mode"]}},
  // windows-diagnosis
  {logsource: {"product": "windows", "service": "diagnosis-scripted"}, conditions: {"Channel": "Microsoft-Windows-Diagnosis-Scripted/Operational"}},
  // windows-shell-core
  {logsource: {"product": "windows", "service": "shell-core"}, conditions: {"Channel": "Microsoft-Windows-Shell-Core/Operational"}},
  // windows-openssh
  {logsource: {"product": "windows", "service": "openssh"}, conditions: {"Channel": "OpenSSH/Operational"}},
  // windows-ldap-debug
  {logsource: {"product": "windows", "service": "ldap"}, conditions: {"Channel": "Microsoft-Windows-LDAP-Client/Debug"}},
  // windows-bitlocker
  {logsource: {"product": "windows", "service": "bitlocker"}, conditions: {"Channel": "Microsoft-Windows-BitLocker/BitLocker Management"}},
  // windows-vhdmp
  {logsource: {"product": "windows", "service": "vhdmp"}, conditions: {"Channel": "Microsoft-Windows-VHDMP/Operational"}},
  // windows-appxdeployment-server
  {logsource: {"product": "windows", "service": "appxdeployment-server"}, conditions: {"Channel": "Microsoft-Windows-AppXDeploymentServer/Operational"}},
  // windows-lsa-server
  {logsource: {"product": "windows", "service": "lsa-server"}, conditions: {"Channel": "Microsoft-Windows-LSA/Operational"}},
  // windows-appxpackaging-om
  {logsource: {"product": "windows", "service": "appxpackaging-om"}, conditions: {"Channel": "Microsoft-Windows-AppxPackaging/Operational"}},
  // windows-dns-client
  {logsource: {"product": "windows", "service": "dns-client"}, conditions: {"Channel": "Microsoft-Windows-DNS Client Events/Operational"}},
  // windows-appmodel-runtime
  {logsource: {"product": "windows", "service": "appmodel-runtime"}, conditions: {"Channel": "Microsoft-Windows-AppModel-Runtime/Admin"}},
  // windows-capi2
  {logsource: {"product": "windows", "service": "capi2"}, conditions: {"Channel": "Microsoft-Windows-CAPI2/Operational"}},
  // windows-certificateservicesclient-lifecycle
  {logsource: {"product": "windows", "service": "certificateservicesclient-lifecycle-system"}, conditions: {"Channel": "Microsoft-Windows-CertificateServicesClient-Lifecycle-System/Operational"}},
  // windows-kernel-shimengine
  {logsource: {"product": "windows", "service": "kernel-shimengine"}, conditions: {"Channel": ["Microsoft-Windows-Kernel-ShimEngine/Operational", "Microsoft-Windows-Kernel-ShimEngine/Diagnostic"]}},
  // windows-application-experience
  {logsource: {"product": "windows", "service": "application-experience"}, conditions: {"Channel": ["Microsoft-Windows-Application-Experience/Program-Telemetry", "Microsoft-Windows-Application-Experience/Program-Compatibility-Assistant"]}},
  // windows-ntfs
  {logsource: {"product": "windows", "service": "ntfs"}, conditions: {"Channel": "Microsoft-Windows-Ntfs/Operational"}},
  // windows-hyper-v-worker
  {logsource: {"product": "windows", "service": "hyper-v-worker"}, conditions: {"Channel": "Microsoft-Windows-Hyper-V-Worker"}},
  // windows-kernel-event-tracing
  {logsource: {"product": "windows", "service": "kernel-event-tracing"}, conditions: {"Channel": "Microsoft-Windows-Kernel-EventTracing"}},
  // windows-sense
  {logsource: {"product": "windows", "service": "sense"}, conditions: {"Channel": "Microsoft-Windows-SENSE/Operational"}},
  // windows-servicebus
  {logsource: {"product": "windows", "service": "servicebus-client"}, conditions: {"Channel": ["Microsoft-ServiceBus-Client/Admin", "Microsoft-ServiceBus-Client/Operational"]}},
  // windows-iis-configuration
  {logsource: {"product": "windows", "service": "iis-configuration"}, conditions: {"Channel": "Microsoft-IIS-Configuration/Operational"}},
];

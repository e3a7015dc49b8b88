// The `vigil` command line: dispatches to subcommands (serve, scan, users).
const USAGE = `usage: vigil <command> [options]

commands:
  serve    run the HTTP service (configuration from the environment, see README)
  scan     match Sigma rules against NDJSON events (vigil scan --help)
`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve': {
      const { serve } = await import('./serve.js');
      return serve(rest);
    }
    case 'scan': {
      const { scan } = await import('./scan.js');
      return scan(rest);
    }
    case undefined:
      process.stderr.write(`vigil: a command is required\n${USAGE}`);
      return 2;
    case '-h':
    case '--help':
      process.stdout.write(USAGE);
      return 0;
    default:
      process.stderr.write(`vigil: unknown command '${command}'\n${USAGE}`);
      return 2;
  }
}

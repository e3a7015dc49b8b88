// `vigil serve`: starts the HTTP service with configuration from the environment.
export async function serve(_args: string[]): Promise<number> {
  process.stdout.write('vigil: serve is not implemented yet\n');
  return 0;
}

// Alert list and stats latencies (`BENCH=alerts`).
export async function alertsBench(): Promise<void> {}

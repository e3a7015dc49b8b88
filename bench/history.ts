// Historical rule test over stored history (`BENCH=history`).
export async function historyBench(_corpus: string): Promise<void> {}

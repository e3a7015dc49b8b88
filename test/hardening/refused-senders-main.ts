// Runs `count` refused senders (refused-sender.ts) at once against the port given, in a process of its
// own, and prints their outcomes as one JSON line when all have ended.
import { refusedSender } from './refused-sender.js';

const [port, count] = process.argv.slice(2).map(Number);
const outcomes = await Promise.all(Array.from({ length: count }, () => refusedSender(port)));
process.stdout.write(`${JSON.stringify(outcomes)}\n`);

// `vigil serve` from the current sources (TypeScript through tsx), as the end-to-end benches start it.
import { main } from '../src/cli/main.js';

process.exitCode = await main(['serve']);

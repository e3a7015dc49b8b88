// Buffered writing of scan results to a stream (stdout), with backpressure. Promises: text is written in
// order, in chunks of about FLUSH_BYTES (the caller flushes when `write` says the buffer is full), waiting
// for 'drain' when the stream's buffer is full; when the reader goes away (EPIPE) writing stops quietly
// (`closed`); any other write error (a full disk, a closed descriptor) stops writing too and is kept in
// `failure` for the caller to report.
import { once } from 'node:events';
import type { Writable } from 'node:stream';

const FLUSH_BYTES = 64 * 1024;

export class BufferedOutput {
  private buf = '';
  /** No more text is written (the reader went away or writing failed). */
  closed = false;
  /** The write error that stopped writing, unless it was the reader going away. */
  failure: Error | null = null;

  constructor(private readonly out: Writable) {
    out.on('error', (e: NodeJS.ErrnoException) => this.stop(e));
  }

  /** Buffer `s`; true when the buffer is full and the caller should `flush` before writing more. */
  write(s: string): boolean {
    this.buf += s;
    return this.buf.length >= FLUSH_BYTES;
  }

  /** Write what is buffered and wait until the stream has taken it. */
  async flush(): Promise<void> {
    const chunk = this.buf;
    this.buf = '';
    if (this.closed) return;
    // Waiting for 'drain' ends early if the stream fails meanwhile (the error listener records why).
    if (chunk && !this.out.write(chunk)) await once(this.out, 'drain').catch(() => undefined);
  }

  /** Wait until every chunk written so far has been handed to the system (errors then known). */
  async end(): Promise<void> {
    await this.flush();
    if (this.closed) return;
    await new Promise<void>((resolve) => {
      this.out.write('', (e) => {
        if (e) this.stop(e as NodeJS.ErrnoException);
        resolve();
      });
    });
  }

  private stop(e: NodeJS.ErrnoException): void {
    if (!this.closed && e.code !== 'EPIPE') this.failure = e;
    this.closed = true;
  }
}

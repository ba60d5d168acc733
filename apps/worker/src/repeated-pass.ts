/** A pass repeated every `intervalMs`, one at a time; the one in flight is awaited on shutdown. */
export class RepeatedPass {
  private timer?: NodeJS.Timeout;
  private inFlight: Promise<void> = Promise.resolve();

  constructor(
    private readonly intervalMs: number,
    private readonly pass: () => Promise<void>,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.runNow(), this.intervalMs);
    this.timer.unref();
  }

  runNow(): void {
    this.inFlight = this.inFlight.then(this.pass);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  settled(): Promise<void> {
    return this.inFlight;
  }
}

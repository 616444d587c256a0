/**
 * Ctrl-C, the way people expect it from a command-line tool: the first press
 * stops what the agent is doing (the model call or tool in flight) and lets
 * the run end cleanly, with its ledger closed; a second press, for when that
 * is not fast enough, exits at once. Patches are atomic, so even then no file
 * is left half written.
 */
export class CtrlC {
  private controller = new AbortController();
  private presses = 0;

  constructor(
    private readonly onFirstPress: () => void,
    private readonly exitNow: () => void,
  ) {}

  /** Aborts when the user presses Ctrl-C during the current run. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** A fresh signal for the next run (interactive mode runs many). */
  nextRun(): AbortSignal {
    this.controller = new AbortController();
    this.presses = 0;
    return this.controller.signal;
  }

  press(): void {
    this.presses += 1;
    if (this.presses === 1) {
      this.onFirstPress();
      this.controller.abort();
    } else {
      this.exitNow();
    }
  }

  /** Routes the process's SIGINT here; returns the function that stops listening. */
  listen(target: NodeJS.EventEmitter = process): () => void {
    const onSigint = () => this.press();
    target.on("SIGINT", onSigint);
    return () => target.off("SIGINT", onSigint);
  }
}

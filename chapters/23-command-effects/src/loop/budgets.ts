/**
 * Limits that end a run no matter what the model does. A model that loops
 * (reads the same file forever, retries the same failing patch) costs money
 * and time; the harness, not the model, decides when enough is enough.
 */
export interface Budgets {
  /** Model calls, failed ones included: a failing endpoint must not retry forever. */
  maxSteps: number;
  /** Input plus output tokens over all model calls of the run. */
  maxTokens: number;
  /** Wall-clock time of the whole run. */
  maxTimeMs: number;
}

export const DEFAULT_BUDGETS: Budgets = {
  maxSteps: 40,
  maxTokens: 1_000_000,
  maxTimeMs: 15 * 60_000,
};

export type BudgetName = "steps" | "tokens" | "time";

export interface BudgetStop {
  budget: BudgetName;
  /** One line for the user: which budget, how much was used, which flag raises it. */
  message: string;
}

/** Counts what a run has used and says when a budget is spent. */
export class BudgetTracker {
  steps = 0;
  tokens = 0;
  private readonly startedAt: number;

  constructor(
    readonly budgets: Budgets,
    private readonly now: () => number = Date.now,
  ) {
    this.startedAt = now();
  }

  /** One model call, successful or not; `tokens` is 0 when the server reported no usage. */
  recordModelCall(tokens: number): void {
    this.steps += 1;
    this.tokens += tokens;
  }

  elapsedMs(): number {
    return this.now() - this.startedAt;
  }

  remainingMs(): number {
    return Math.max(0, this.budgets.maxTimeMs - this.elapsedMs());
  }

  /** The first spent budget, checked before every model call; undefined while all have room. */
  exceeded(): BudgetStop | undefined {
    const { maxSteps, maxTokens, maxTimeMs } = this.budgets;
    if (this.steps >= maxSteps) {
      return {
        budget: "steps",
        message: `step budget used up: ${this.steps} of ${maxSteps} model calls (raise it with --max-steps)`,
      };
    }
    if (this.tokens >= maxTokens) {
      return {
        budget: "tokens",
        message: `token budget used up: ${this.tokens} of ${maxTokens} tokens (raise it with --max-tokens)`,
      };
    }
    if (this.elapsedMs() >= maxTimeMs) {
      return {
        budget: "time",
        message: `time budget used up: ${formatSeconds(this.elapsedMs())} of ${formatSeconds(maxTimeMs)} (raise it with --max-time)`,
      };
    }
    return undefined;
  }
}

/** Parses a --max-time value: "90" or "90s" (seconds), "5m" (minutes). */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(s|m)?$/.exec(text.trim());
  if (match === null) return undefined;
  const ms = Number(match[1]) * (match[2] === "m" ? 60_000 : 1_000);
  return ms > 0 ? ms : undefined;
}

function formatSeconds(ms: number): string {
  return `${Math.round(ms / 1000)}s`;
}

/**
 * Runs one shell command and always comes back: with its exit code, or because its time ran
 * out, or because the person pressed Ctrl-C. A command is rarely one process (`npm test` starts
 * node, which starts workers), so it runs in a process group of its own and every stop is sent
 * to the whole group; killing only the shell would leave its children running, holding the
 * output pipe open, and the agent waiting.
 */
import { spawn } from "node:child_process";
import { OutputCap } from "./output-cap.ts";
import { StreamRedactor } from "./redact-secrets.ts";

export interface CommandRun {
  /** One shell command line, run by `bash -c`. */
  command: string;
  /** The workspace root, absolute. */
  cwd: string;
  timeoutMs: number;
  /** Ctrl-C: aborting kills the whole process group. */
  signal: AbortSignal;
  /** Already scrubbed by childEnv. */
  env: NodeJS.ProcessEnv;
  /** Taken out of the output: the API key, should the command print it (`cat .env`). */
  secrets?: readonly string[];
  /** Default 16,000: about 4,000 tokens, a test failure's worth. */
  maxOutputChars?: number;
}

export interface CommandOutcome {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  durationMs: number;
  /** OutputCap's text: stdout and stderr interleaved, the middle elided if long. */
  output: string;
}

/** How long a stopped command has to clean up after SIGTERM before SIGKILL. */
const KILL_GRACE_MS = 2_000;
/** After SIGKILL, how long a process that escaped the group (setsid) may hold the pipes. */
const PIPE_GRACE_MS = 500;

export async function runCommand(run: CommandRun): Promise<CommandOutcome> {
  // Ctrl-C came before the command started: it never runs.
  if (run.signal.aborted) {
    return {
      exitCode: null,
      signal: null,
      timedOut: false,
      aborted: true,
      durationMs: 0,
      output: "",
    };
  }
  const started = performance.now();
  const output = new OutputCap(run.maxOutputChars ?? 16_000);
  // Before the cap, not after: a key cut in two at the elision would survive as two halves.
  const redactor = new StreamRedactor(run.secrets ?? []);
  // detached: the shell leads a new process group (and session, so no terminal to read from).
  const child = spawn("bash", ["-c", run.command], {
    cwd: run.cwd,
    env: run.env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  for (const stream of [child.stdout, child.stderr]) {
    stream.setEncoding("utf8");
    stream.on("data", (chunk: string) => output.push(redactor.push(chunk)));
  }

  let timedOut = false;
  let aborted = false;
  let stopping = false;
  const timers: NodeJS.Timeout[] = [];
  // SIGTERM lets test runners clean up; SIGKILL is for what ignores it.
  const stop = () => {
    if (stopping) return;
    stopping = true;
    signalGroup(child.pid, "SIGTERM");
    const kill = () => {
      signalGroup(child.pid, "SIGKILL");
      const letGo = () => [child.stdout, child.stderr].forEach((stream) => stream.destroy());
      timers.push(setTimeout(letGo, PIPE_GRACE_MS));
    };
    timers.push(setTimeout(kill, KILL_GRACE_MS));
  };
  const onAbort = () => {
    aborted = true;
    stop();
  };
  const deadline = setTimeout(() => {
    timedOut = true;
    stop();
  }, run.timeoutMs);
  run.signal.addEventListener("abort", onAbort, { once: true });
  const settled = () => {
    clearTimeout(deadline);
    run.signal.removeEventListener("abort", onAbort);
  };

  return new Promise((resolve, reject) => {
    // The shell ended; whatever it left running in the background (`server &`) goes too.
    child.on("exit", () => {
      settled();
      stop();
    });
    child.on("error", (error) => {
      settled();
      timers.forEach(clearTimeout);
      reject(new Error(`Could not start bash in ${run.cwd}: ${error.message}`, { cause: error }));
    });
    // "close", not "exit": only now has everything the command printed been read.
    child.on("close", (exitCode, signal) => {
      settled();
      timers.forEach(clearTimeout);
      const durationMs = Math.round(performance.now() - started);
      output.push(redactor.end());
      resolve({ exitCode, signal, timedOut, aborted, durationMs, output: output.text() });
    });
  });
}

function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the whole group has already ended, which is what we wanted.
  }
}

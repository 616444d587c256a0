import type OpenAI from "openai";
import { addMessages, startConversation, type Conversation } from "./conversation.ts";
import type { ModelEndpoint } from "../model/model-endpoint.ts";
import { describeModelError, isAbort } from "../model/model-errors.ts";
import { visible } from "../terminal/visible-text.ts";
import type { AnyTool } from "../tools/define-tool.ts";
import { toolCallLine } from "../tools/tool-call-line.ts";
import {
  answerWithTools,
  DEFAULT_MAX_ROUNDS,
  type ToolRoundTripResult,
} from "../tools/tool-round-trip.ts";

export interface ChatOptions {
  client: OpenAI;
  endpoint: ModelEndpoint;
  /** What the model may call, and the folder those tools work in. */
  tools: readonly AnyTool[];
  workspace: string;
  /** Each line is one turn (or a command). The chat ends when the lines do (Ctrl-D, end of pipe). */
  lines: AsyncIterable<string> | Iterable<string>;
  /** Answer text, as it streams, and one line per tool call (stdout). */
  write: (text: string) => void;
  /** One-line notices: usage, errors (stderr). */
  note: (line: string) => void;
  /** Interactive: show a prompt before each line, and keep going after a failed turn. */
  interactive: boolean;
  prompt?: () => void;
  /** Told how to abort the answer in progress (undefined between answers), for Ctrl-C. */
  onAbortable?: (abort: (() => void) | undefined) => void;
  systemPrompt?: string;
}

export const CHAT_HELP = "commands: /reset (forget the conversation), /exit (or Ctrl-D)";

type TurnOutcome =
  { kind: "answered"; conversation: Conversation } | { kind: "failed" | "aborted" };

/**
 * A chat with memory: every request carries the whole conversation so far. Nothing limits its
 * size yet: a long chat outgrows the model's context window (chapter 6 counts and trims).
 * Returns the exit code. An interactive chat carries on after a failed or aborted turn; a piped
 * one stops there (1 for an error, 130 for Ctrl-C), since nobody is there to react.
 */
export async function runChat(options: ChatOptions): Promise<number> {
  const { lines, note, interactive } = options;
  let conversation = startConversation(options.systemPrompt);
  options.prompt?.();
  for await (const rawLine of lines) {
    const line = rawLine.trim();
    if (line === "/exit") break;
    if (line === "/reset") {
      conversation = startConversation(options.systemPrompt);
      note("context: conversation reset");
    } else if (/^\/\S+$/.test(line)) {
      note(`unknown command ${line}: ${CHAT_HELP}`);
    } else if (line !== "") {
      const outcome = await runTurn(conversation, line, options);
      if (outcome.kind === "answered") conversation = outcome.conversation;
      else if (!interactive) return outcome.kind === "aborted" ? 130 : 1;
    }
    options.prompt?.();
  }
  return 0;
}

/** One question, its tool calls and its answer, kept for follow-ups; a failed turn keeps none. */
async function runTurn(
  conversation: Conversation,
  question: string,
  options: ChatOptions,
): Promise<TurnOutcome> {
  const { client, endpoint, write, note } = options;
  const controller = new AbortController();
  options.onAbortable?.(() => controller.abort());
  let lineOpen = false; // streamed text not yet ended by a newline
  const endLine = () => {
    if (lineOpen) write("\n");
    lineOpen = false;
  };
  try {
    const result = await answerWithTools({
      client,
      model: endpoint.model,
      conversation: addMessages(conversation, { role: "user", content: question }),
      tools: options.tools,
      context: { cwd: options.workspace, signal: controller.signal },
      maxRetries: endpoint.maxRetries,
      onText: (text) => {
        write(visible(text, { lines: true })); // the model's text, written out
        lineOpen = !text.endsWith("\n");
      },
      onRetry: ({ attempt, delayMs }) =>
        note(
          `retrying in ${(delayMs / 1000).toFixed(1)} s (retry ${attempt} of ${endpoint.maxRetries})`,
        ),
      onToolCall: (call, outcome) => {
        endLine();
        write(toolCallLine(call, outcome) + "\n");
      },
    });
    endLine();
    if (result.answer === null) {
      note(
        `error: stopped after ${DEFAULT_MAX_ROUNDS} model calls: the model still wanted more tools. Ask a narrower question.`,
      );
      return { kind: "failed" };
    }
    note(usageLine(result));
    return { kind: "answered", conversation: result.conversation };
  } catch (error) {
    // No question without its answer in the history: the model would answer it again next turn.
    endLine();
    if (isAbort(error)) {
      note("aborted");
      return { kind: "aborted" };
    }
    note(`error: ${visible(describeModelError(error, endpoint), { lines: true })}`);
    return { kind: "failed" };
  } finally {
    options.onAbortable?.(undefined);
  }
}

/** The server's count, summed over the turn's model calls (one per round of tool calls). */
export function usageLine({ usage, rounds }: ToolRoundTripResult): string {
  if (usage === null) return "tokens: not reported by the server";
  return `tokens: ${usage.prompt} in, ${usage.completion} out over ${rounds} model calls`;
}

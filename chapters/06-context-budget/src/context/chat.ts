import type OpenAI from "openai";
import { ContextBudgetError, droppedLine, fitToBudget } from "./context-budget.ts";
import {
  addMessages,
  requestMessages,
  startConversation,
  type Conversation,
} from "./conversation.ts";
import type { ModelEndpoint } from "../model/model-endpoint.ts";
import { describeModelError, isAbort } from "../model/model-errors.ts";
import { visible } from "../terminal/visible-text.ts";
import type { ChatResult } from "../model/stream-assembler.ts";
import { streamWithRetry } from "../model/stream-with-retry.ts";
import { countRequestTokens } from "./token-counter.ts";

export interface ChatOptions {
  client: OpenAI;
  endpoint: ModelEndpoint;
  contextTokens: number;
  /** Each line is one turn (or a command). The chat ends when the lines do (Ctrl-D, end of pipe). */
  lines: AsyncIterable<string> | Iterable<string>;
  /** Answer text, as it streams (stdout). */
  write: (text: string) => void;
  /** One-line notices: usage, dropped context, errors (stderr). */
  note: (line: string) => void;
  /** Interactive: show a prompt before each line, and keep going after a failed turn. */
  interactive: boolean;
  prompt?: () => void;
  /** Told how to abort the answer in progress (undefined between answers), for Ctrl-C. */
  onAbortable?: (abort: (() => void) | undefined) => void;
  systemPrompt?: string;
}

export const CHAT_HELP =
  "commands: /tokens (context size), /reset (forget the conversation), /exit (or Ctrl-D)";

type TurnOutcome =
  { kind: "answered"; conversation: Conversation } | { kind: "failed" | "aborted" };

/**
 * A chat with memory: every request carries the whole conversation so far, fitted to the budget.
 * Returns the exit code. An interactive chat carries on after a failed or aborted turn; a piped
 * one stops there (1 for an error, 130 for Ctrl-C), since nobody is there to react.
 */
export async function runChat(options: ChatOptions): Promise<number> {
  const { lines, note, interactive, contextTokens } = options;
  let conversation = startConversation(options.systemPrompt);
  options.prompt?.();
  for await (const rawLine of lines) {
    const line = rawLine.trim();
    if (line === "/exit") break;
    if (line === "/reset") {
      conversation = startConversation(options.systemPrompt);
      note("context: conversation reset");
    } else if (line === "/tokens") {
      note(tokensLine(conversation, contextTokens));
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

/** One question and its answer. A failed turn leaves the conversation as it was. */
async function runTurn(
  conversation: Conversation,
  question: string,
  options: ChatOptions,
): Promise<TurnOutcome> {
  const { client, endpoint, contextTokens, write, note } = options;
  let fitted;
  try {
    fitted = fitToBudget(
      addMessages(conversation, { role: "user", content: question }),
      contextTokens,
    );
  } catch (error) {
    if (!(error instanceof ContextBudgetError)) throw error;
    note(`error: ${error.message}`);
    return { kind: "failed" };
  }
  const dropped = droppedLine(fitted.dropped, contextTokens);
  if (dropped !== undefined) note(dropped);

  const controller = new AbortController();
  options.onAbortable?.(() => controller.abort());
  let shownText = false;
  try {
    const result = await streamWithRetry({
      client,
      model: endpoint.model,
      messages: requestMessages(fitted.conversation),
      maxRetries: endpoint.maxRetries,
      signal: controller.signal,
      onText: (text) => {
        shownText = true;
        write(visible(text, { lines: true })); // the model's text, written out
      },
      onRetry: ({ attempt, delayMs }) =>
        note(
          `retrying in ${(delayMs / 1000).toFixed(1)} s (retry ${attempt} of ${endpoint.maxRetries})`,
        ),
    });
    write("\n");
    note(usageLine(result, fitted.tokens));
    return { kind: "answered", conversation: addMessages(fitted.conversation, result.message) };
  } catch (error) {
    // No question without its answer in the history: the model would answer it again next turn.
    if (shownText) write("\n");
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

/** What `/tokens` shows: our own count of the next request, against the budget. */
export function tokensLine(conversation: Conversation, budget: number): string {
  const messages = requestMessages(conversation);
  const count = messages.length === 1 ? "1 message" : `${messages.length} messages`;
  return `context: ${countRequestTokens(messages)} of ${budget} tokens (${count}, system prompt included)`;
}

/** The server's usage beside our own estimate, so a reader can see how close the count is. */
export function usageLine({ usage }: ChatResult, estimated: number): string {
  if (usage === null) return `tokens: not reported by the server (we counted ${estimated} in)`;
  return `tokens: ${usage.prompt_tokens} in (we counted ${estimated}), ${usage.completion_tokens} out`;
}

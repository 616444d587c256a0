// The offline model: a local HTTP server that speaks the OpenAI Chat Completions wire
// format and answers from a script. Clients reach it with the real `openai` SDK, so
// an offline run exercises exactly the code path a real model would.

import { createServer } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Script, ScriptStep } from "./script.ts";
import { selectStep } from "./script.ts";
import type { ErrorResponse, Fault } from "./faults.ts";
import {
  badKeyResponse,
  contextLengthResponse,
  cutPoint,
  echoKeyResponse,
  errorResponse,
  rateLimitResponse,
  serverErrorResponse,
  unknownModelResponse,
  withMalformedArguments,
} from "./faults.ts";
import { finishReasonOf, replyToChunks, sseEvent } from "./sse.ts";
import { countPromptTokens, estimateUsage } from "./usage.ts";
import type { ChatCompletion, ChatRequestBody } from "./wire-types.ts";

export interface OfflineModelOptions {
  script: Script;
  /**
   * Consumed in order, one per incoming chat request (a faulted request does not advance the
   * script); a context_window fault is not consumed but applies to every request.
   */
  faults?: Fault[];
  /** Default "offline"; requests with another bearer token get 401. */
  apiKey?: string;
  /** Default "offline-scripted-demo"; requests for another model get 404. */
  model?: string;
  /** Pause between streamed chunks, so a terminal shows text arriving. Default 0. */
  chunkDelayMs?: number;
  /**
   * Called before a script step is replied, with the step's index (0-based). A scripted demo uses
   * it to change the world at a chosen moment, e.g. another program editing a file the agent has
   * read. A retried request calls it again for the same step.
   */
  beforeStep?: (index: number) => Promise<void> | void;
}

export interface OfflineModel {
  /** e.g. "http://127.0.0.1:PORT/v1" */
  baseURL: string;
  apiKey: string;
  model: string;
  /** Every chat request body received, in order (for test assertions). */
  requests: ChatRequestBody[];
  close(): Promise<void>;
}

export const DEFAULT_API_KEY = "offline";
export const DEFAULT_MODEL = "offline-scripted-demo";

export async function startOfflineModel(options: OfflineModelOptions): Promise<OfflineModel> {
  const apiKey = options.apiKey ?? DEFAULT_API_KEY;
  const model = options.model ?? DEFAULT_MODEL;
  const faults = (options.faults ?? []).filter((fault) => fault.kind !== "context_window");
  const contextWindow = options.faults?.find((fault) => fault.kind === "context_window");
  const requests: ChatRequestBody[] = [];
  let served = 0;
  let answered = 0; // steps replied, for a sequential script

  const handleChat = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const parsed = parseChatRequest(await readBody(req));
    if (!parsed.ok) return sendError(res, parsed.error);
    const request = parsed.body;
    requests.push(request);
    served += 1;
    const fault = faults.shift();

    // Before the key check: the echo is of whatever key the client sent, right or wrong.
    if (fault?.kind === "echo_key")
      return sendError(res, echoKeyResponse(req.headers.authorization));
    if (fault?.kind === "bad_key" || bearerToken(req) !== apiKey)
      return sendError(res, badKeyResponse());
    if (fault?.kind === "unknown_model" || request.model !== model) {
      return sendError(res, unknownModelResponse(request.model));
    }
    if (fault?.kind === "rate_limit")
      return sendError(res, rateLimitResponse(fault.retryAfterSeconds));
    if (fault?.kind === "server_error") return sendError(res, serverErrorResponse());
    if (fault?.kind === "stall" && !(await waitUnlessClosed(res, fault.ms))) return;
    const promptTokens = countPromptTokens(request);
    if (contextWindow !== undefined && promptTokens > contextWindow.tokens) {
      return sendError(res, contextLengthResponse(contextWindow.tokens, promptTokens));
    }

    const selection = selectStep(
      options.script,
      request,
      options.script.sequential === true ? answered : undefined,
    );
    if (!selection.ok) {
      return sendError(
        res,
        errorResponse(400, selection.message, "invalid_request_error", "off_script"),
      );
    }
    answered = selection.index + 1;
    await options.beforeStep?.(selection.index);
    let reply: ScriptStep["reply"] = selection.reply;
    if (fault?.kind === "malformed_tool_arguments") {
      const broken = withMalformedArguments(reply);
      if (broken === undefined) {
        return sendError(res, faultMisuse(fault.kind, options.script.name, selection.index));
      }
      reply = broken;
    }

    const context = {
      id: `chatcmpl-offline-${served}`,
      created: Math.floor(Date.now() / 1000),
      model,
      includeUsage: request.stream_options?.include_usage === true,
      usage: estimateUsage(request, reply),
    };
    const cut = fault?.kind === "cut_stream_mid_tool_call";
    if (request.stream === true) {
      const chunks = replyToChunks(reply, context);
      const stopAfter = cut ? cutPoint(chunks) : undefined;
      if (cut && stopAfter === undefined) {
        return sendError(
          res,
          faultMisuse("cut_stream_mid_tool_call", options.script.name, selection.index),
        );
      }
      await streamChunks(res, chunks, stopAfter, options.chunkDelayMs ?? 0);
      return;
    }
    const completion: ChatCompletion = {
      id: context.id,
      object: "chat.completion",
      created: context.created,
      model,
      system_fingerprint: null,
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: reply.content ?? null,
            refusal: null,
            ...(reply.toolCalls !== undefined
              ? {
                  tool_calls: reply.toolCalls.map((call) => ({
                    id: call.id,
                    type: "function" as const,
                    function: { name: call.name, arguments: call.arguments },
                  })),
                }
              : {}),
          },
          logprobs: null,
          finish_reason: finishReasonOf(reply),
        },
      ],
      usage: context.usage,
    };
    if (cut) return sendTruncatedJson(res, completion);
    sendJson(res, 200, completion);
  };

  const handleModels = (req: IncomingMessage, res: ServerResponse): void => {
    if (bearerToken(req) !== apiKey) return sendError(res, badKeyResponse());
    const entry = {
      id: model,
      object: "model",
      created: 0,
      owned_by: "offline-model (scripted demo)",
    };
    if (req.url === "/v1/models") return sendJson(res, 200, { object: "list", data: [entry] });
    if (req.url === `/v1/models/${encodeURIComponent(model)}`) return sendJson(res, 200, entry);
    sendError(
      res,
      unknownModelResponse(decodeURIComponent(req.url?.slice("/v1/models/".length) ?? "")),
    );
  };

  const server = createServer((req, res) => {
    const path = req.url?.split("?")[0] ?? "";
    if (req.method === "POST" && path === "/v1/chat/completions") {
      handleChat(req, res).catch((error: unknown) => {
        if (!res.headersSent) {
          sendError(
            res,
            errorResponse(500, `offline model crashed: ${String(error)}`, "server_error", null),
          );
        } else {
          res.destroy();
        }
      });
      return;
    }
    if (req.method === "GET" && (path === "/v1/models" || path.startsWith("/v1/models/"))) {
      return handleModels(req, res);
    }
    sendError(
      res,
      errorResponse(
        404,
        `Unknown request URL: ${req.method ?? "?"} ${path}. The offline model serves POST /v1/chat/completions and GET /v1/models.`,
        "invalid_request_error",
        "unknown_url",
      ),
    );
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    apiKey,
    model,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Keep-alive sockets and stalled requests would otherwise hold close() open.
        server.closeAllConnections();
      }),
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts).toString("utf8");
}

type ParsedRequest = { ok: true; body: ChatRequestBody } | { ok: false; error: ErrorResponse };

function parseChatRequest(text: string): ParsedRequest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return invalid("We could not parse the JSON body of your request. Send a JSON object.");
  }
  const body = value as Partial<ChatRequestBody> | null;
  if (typeof body !== "object" || body === null || typeof body.model !== "string") {
    return invalid("you must provide a model parameter");
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    return invalid("'messages' must be a non-empty array of messages.");
  }
  return { ok: true, body: body as ChatRequestBody };
}

function invalid(message: string): ParsedRequest {
  return { ok: false, error: errorResponse(400, message, "invalid_request_error", null) };
}

function bearerToken(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  return header?.startsWith("Bearer ") ? header.slice("Bearer ".length) : undefined;
}

function faultMisuse(kind: Fault["kind"], script: string, step: number): ErrorResponse {
  return errorResponse(
    400,
    `offline model setup: the fault ${kind} needs a reply with a tool call, but step ${step} of script "${script}" calls no tool. Put the fault where the script calls a tool.`,
    "invalid_request_error",
    "fault_misuse",
  );
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    "x-request-id": "req_offline",
    ...headers,
  });
  res.end(text);
}

function sendError(res: ServerResponse, error: ErrorResponse): void {
  sendJson(res, error.status, error.body, error.headers);
}

// Half a body and a dead socket: what a client sees when the connection drops mid-answer.
function sendTruncatedJson(res: ServerResponse, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(200, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  res.write(text.slice(0, Math.floor(text.length / 2)), () => res.destroy());
}

async function streamChunks(
  res: ServerResponse,
  chunks: ReturnType<typeof replyToChunks>,
  stopAfter: number | undefined,
  delayMs: number,
): Promise<void> {
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    connection: "keep-alive",
    "x-request-id": "req_offline",
  });
  res.flushHeaders();
  const sent = chunks.slice(0, stopAfter ?? chunks.length);
  for (const [i, chunk] of sent.entries()) {
    if (i > 0 && delayMs > 0 && !(await waitUnlessClosed(res, delayMs))) return;
    if (res.destroyed) return;
    if (stopAfter !== undefined && i === sent.length - 1) {
      // Let the partial data reach the client before the connection dies.
      res.write(sseEvent(chunk), () => res.destroy());
      return;
    }
    res.write(sseEvent(chunk));
  }
  res.end(sseEvent("[DONE]"));
}

/** Resolves true after `ms`, or false as soon as the client goes away. */
function waitUnlessClosed(res: ServerResponse, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    if (res.destroyed) return resolve(false);
    const onClose = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      res.off("close", onClose);
      resolve(true);
    }, ms);
    res.once("close", onClose);
  });
}
